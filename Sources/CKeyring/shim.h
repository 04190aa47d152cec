#ifndef CKEYRING_SHIM_H
#define CKEYRING_SHIM_H
// The Linux kernel key retention service (keyrings(7)) has no libc wrappers, and syscall(2) is
// variadic, which Swift cannot call: these non-variadic wrappers are the only C here.
#include <unistd.h>
#include <sys/syscall.h>
#include <stddef.h>

static inline long ckeyring_add_key(const char *type, const char *description, const void *payload, size_t length, int keyring) {
    return syscall(SYS_add_key, type, description, payload, length, keyring);
}

static inline long ckeyring_keyctl2(int operation, long arg2, long arg3) {
    return syscall(SYS_keyctl, operation, arg2, arg3);
}

static inline long ckeyring_search(int keyring, const char *type, const char *description) {
    return syscall(SYS_keyctl, 10 /* KEYCTL_SEARCH */, keyring, type, description, 0);
}

static inline long ckeyring_read(long key, void *buffer, size_t length) {
    return syscall(SYS_keyctl, 11 /* KEYCTL_READ */, key, buffer, length);
}

static inline long ckeyring_describe(long key, char *buffer, size_t length) {
    return syscall(SYS_keyctl, 6 /* KEYCTL_DESCRIBE */, key, buffer, length);
}
#endif
