// Gives every test run a kernel keyring of its own, so that the test suites never touch the user's
// real "swift-keychain" keyring and leave nothing behind (tracker issue 12).
//
// This runs as a constructor, before the test runner starts any thread: it sets KEYCHAIN_KEYRING to
// "swift-keychain-test-<pid>", which the engine (ClassKeyStore.keyringName) and every child process
// the tests start (keychain-test-helper, keychain-stress, security) inherit. At exit the keyring is
// invalidated, which frees every entry in it at once, whatever the tests did (a failed test, a child
// killed with SIGKILL). A test run that was itself killed leaves its keyring behind: the next run
// withdraws every test keyring whose process is gone before it starts.
//
// A process started with KEYCHAIN_KEYRING already set (a parent test run, or the CI script) keeps it
// and owns nothing. It is C because only a constructor runs early enough; Swift has none.
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define KEY_SPEC_USER_KEYRING (-4)
#define KEYCTL_DESCRIBE 6
#define KEYCTL_UNLINK 9
#define KEYCTL_SEARCH 10
#define KEYCTL_READ 11
#define KEYCTL_INVALIDATE 21
#define PREFIX "swift-keychain-test-"

static char owned_name[64];

// Unlinks first: a link the kernel's garbage collector drops keeps 4 bytes of the user's quota.
static void withdraw(long id) {
    syscall(SYS_keyctl, KEYCTL_UNLINK, id, KEY_SPEC_USER_KEYRING);
    syscall(SYS_keyctl, KEYCTL_INVALIDATE, id);
}

static void invalidate_named(const char *name) {
    long id = syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, "keyring", name, 0);
    if (id > 0) withdraw(id);
}

static void remove_owned_keyring(void) { invalidate_named(owned_name); }

// Withdraws the test keyrings of runs whose process no longer exists.
static void remove_abandoned_keyrings(void) {
    int members[512];
    long length = syscall(SYS_keyctl, KEYCTL_READ, KEY_SPEC_USER_KEYRING, members, sizeof members);
    if (length <= 0) return;
    if ((size_t)length > sizeof members) length = sizeof members;
    for (long index = 0; index < length / (long)sizeof(int); index++) {
        char description[256];
        long described = syscall(SYS_keyctl, KEYCTL_DESCRIBE, members[index], description, sizeof description);
        if (described <= 0 || (size_t)described > sizeof description) continue;
        // "keyring;uid;gid;perm;swift-keychain-test-<pid>"
        if (strncmp(description, "keyring;", 8) != 0) continue;
        const char *name = strrchr(description, ';');
        if (name == NULL || strncmp(name + 1, PREFIX, strlen(PREFIX)) != 0) continue;
        long pid = strtol(name + 1 + strlen(PREFIX), NULL, 10);
        if (pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH) withdraw(members[index]);
    }
}

__attribute__((constructor)) static void swkc_test_keyring_start(void) {
    const char *given = getenv("KEYCHAIN_KEYRING");
    if (given != NULL && given[0] != '\0') return;
    remove_abandoned_keyrings();
    snprintf(owned_name, sizeof owned_name, PREFIX "%d", (int)getpid());
    setenv("KEYCHAIN_KEYRING", owned_name, 1);
    atexit(remove_owned_keyring);
}
