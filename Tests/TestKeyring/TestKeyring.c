// Gives every test run a kernel keyring of its own, so that the test suites never touch the user's
// real "swift-keychain" keyring and leave nothing behind (tracker issue 12).
//
// This runs as a constructor, before the test runner starts any thread: it sets KEYCHAIN_KEYRING to
// "swift-keychain-test-<pid>", which the engine (ClassKeyStore.keyringName) and every child process
// the tests start (keychain-test-helper, keychain-stress, security) inherit. At exit that keyring,
// and every keyring a test made beside it ("swift-keychain-test-<pid>-<label>…", for tests that
// need one of their own), is unlinked and invalidated, which frees every entry in them at once,
// whatever the tests did (a failed test, a child killed with SIGKILL). A test run that was itself
// interrupted (Ctrl-C, SIGTERM, SIGHUP) removes them before it dies; one killed with SIGKILL leaves
// them behind, and the next run withdraws every test keyring whose process is gone before it starts.
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
#define KEYCTL_READ 11
#define KEYCTL_INVALIDATE 21
#define PREFIX "swift-keychain-test-"

static char owned_name[64];

// Unlinks first: a link the kernel's garbage collector drops keeps 4 bytes of the user's quota.
static void withdraw(long id) {
    syscall(SYS_keyctl, KEYCTL_UNLINK, id, KEY_SPEC_USER_KEYRING);
    syscall(SYS_keyctl, KEYCTL_INVALIDATE, id);
}

// Withdraws every test keyring in the user keyring for which `doomed(name)` holds.
static void remove_keyrings(int (*doomed)(const char *name)) {
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
        if (name != NULL && strncmp(name + 1, PREFIX, strlen(PREFIX)) == 0 && doomed(name + 1)) withdraw(members[index]);
    }
}

// This run's keyring, and the ones its tests made beside it ("<name>-<label>-…").
static int is_owned(const char *name) {
    size_t length = strlen(owned_name);
    return strncmp(name, owned_name, length) == 0 && (name[length] == '\0' || name[length] == '-');
}

// A keyring of a run whose process no longer exists.
static int is_abandoned(const char *name) {
    long pid = strtol(name + strlen(PREFIX), NULL, 10);
    return pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

static void remove_owned_keyrings(void) { remove_keyrings(is_owned); }

// Removes the run's keyrings, then dies of the signal as it would have (SA_RESETHAND restored the default).
static void remove_then_die(int signal_number) {
    remove_owned_keyrings();
    raise(signal_number);
}

__attribute__((constructor)) static void swkc_test_keyring_start(void) {
    // Tests never seal to the machine's TPM (/dev/tpmrm0) by accident: the TPM suites give their child
    // processes KEYCHAIN_TCTI naming a swtpm of their own (tracker issue 28).
    setenv("KEYCHAIN_TCTI", "none", 1);
    const char *given = getenv("KEYCHAIN_KEYRING");
    if (given != NULL && given[0] != '\0') return;
    remove_keyrings(is_abandoned);
    snprintf(owned_name, sizeof owned_name, PREFIX "%d", (int)getpid());
    setenv("KEYCHAIN_KEYRING", owned_name, 1);
    atexit(remove_owned_keyrings);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = remove_then_die;
    action.sa_flags = SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    const int signals[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t index = 0; index < sizeof signals / sizeof signals[0]; index++) {
        struct sigaction previous;
        // Keep a handler the runner installed; only the default (die) is replaced.
        if (sigaction(signals[index], NULL, &previous) == 0 && previous.sa_handler == SIG_DFL) {
            sigaction(signals[index], &action, NULL);
        }
    }
}
