// pam_keychain.so: unlocks the user's login keychain with the login password, follows password changes,
// and locks the keychains at logout (tracker issue 25; docs/PAM.md).
//
// Login processes load this module, so it is C against libpam and libc only: everything that touches a
// keychain runs in keychain-pam-helper, a program started as the user, which reads the password from a
// pipe. The module never prompts, never blocks a login for longer than `timeout=` and never fails one:
// each phase returns PAM_SUCCESS when the helper did its work and PAM_IGNORE otherwise, after logging the
// cause with pam_syslog.
//
// Phases:
//   auth          keeps PAM_AUTHTOK (pam_set_data, locked memory wiped on free) for open_session; when the
//                 user already has a running session (a screen locker's stack), it unlocks at once.
//   open_session  unlocks (or, on a first login, creates) the login keychain with the kept password.
//   chauthtok     PAM_UPDATE_AUTHTOK: re-keys every keychain that opens with the old password; without
//                 the old one (root ran `passwd user`), records the change for the repair at next unlock.
//   close_session with lock_on_logout, locks every keychain when the user's last session ends.
// Options: only_if=service,...  timeout=seconds (default 5)  helper=path  lock_on_logout  debug.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#define PAM_SM_AUTH
#define PAM_SM_SESSION
#define PAM_SM_PASSWORD
#include <security/pam_ext.h>
#include <security/pam_modules.h>

#ifndef KEYCHAIN_HELPER
#define KEYCHAIN_HELPER "/usr/local/libexec/keychain-pam-helper"
#endif

#define EXPORT __attribute__((visibility("default")))
#define STASH_NAME "pam_keychain_authtok"
#define UNLOCKED_NAME "pam_keychain_unlocked"
#define MAX_TOKEN 4096
#define MAX_REPLY 1024
#define MAX_GROUPS 256

// The helper's message, version 1 (docs/PAM.md): version, operation, token count, then each token as a
// 4-byte big-endian length and its bytes.
enum { MESSAGE_VERSION = 1 };
enum operation { OP_UNLOCK = 1, OP_CHANGE = 2, OP_CHANGED_WITHOUT_OLD = 3, OP_LOCK_IF_LAST = 4 };

struct options {
    int debug;
    int lock_on_logout;
    int timeout_ms;
    const char *helper;
    const char *only_if;
};

// A password kept between auth and open_session: locked in memory, out of core dumps, wiped on free.
struct stash {
    size_t mapped;
    size_t length;
    char bytes[];
};

static void parse_options(pam_handle_t *pamh, int argc, const char **argv, struct options *options) {
    options->debug = 0;
    options->lock_on_logout = 0;
    options->timeout_ms = 5000;
    options->helper = KEYCHAIN_HELPER;
    options->only_if = NULL;
    for (int index = 0; index < argc; index++) {
        const char *arg = argv[index];
        if (strcmp(arg, "debug") == 0) {
            options->debug = 1;
        } else if (strcmp(arg, "lock_on_logout") == 0) {
            options->lock_on_logout = 1;
        } else if (strncmp(arg, "only_if=", 8) == 0) {
            options->only_if = arg + 8;
        } else if (strncmp(arg, "helper=", 7) == 0 && arg[7] == '/') {
            options->helper = arg + 7;
        } else if (strncmp(arg, "timeout=", 8) == 0) {
            char *end = NULL;
            errno = 0;
            long seconds = strtol(arg + 8, &end, 10);
            if (errno != 0 || end == arg + 8 || *end != '\0' || seconds < 1 || seconds > 60) {
                pam_syslog(pamh, LOG_ERR, "invalid option %s (seconds from 1 to 60); using 5", arg);
            } else {
                options->timeout_ms = (int)seconds * 1000;
            }
        } else {
            pam_syslog(pamh, LOG_ERR, "unknown option %s, ignored", arg);
        }
    }
}

// Whether PAM_SERVICE is in only_if= (always true without the option).
static int service_allowed(pam_handle_t *pamh, const struct options *options) {
    if (options->only_if == NULL) return 1;
    const void *item = NULL;
    if (pam_get_item(pamh, PAM_SERVICE, &item) != PAM_SUCCESS || item == NULL) return 0;
    const char *service = item;
    size_t length = strlen(service);
    for (const char *cursor = options->only_if; *cursor != '\0';) {
        const char *comma = strchr(cursor, ',');
        size_t span = comma ? (size_t)(comma - cursor) : strlen(cursor);
        if (span == length && strncmp(cursor, service, length) == 0) return 1;
        if (comma == NULL) break;
        cursor = comma + 1;
    }
    if (options->debug) pam_syslog(pamh, LOG_DEBUG, "service %s is not in only_if=, nothing to do", service);
    return 0;
}

static void wipe_stash(pam_handle_t *pamh, void *data, int error_status) {
    (void)pamh;
    (void)error_status;
    struct stash *stash = data;
    if (stash == NULL) return;
    size_t mapped = stash->mapped;
    explicit_bzero(stash, mapped);
    munlock(stash, mapped);
    munmap(stash, mapped);
}

static struct stash *make_stash(const char *password) {
    size_t length = strlen(password);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t mapped = (sizeof(struct stash) + length + 1 + page - 1) / page * page;
    void *memory = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return NULL;
    // Best effort: a locked-memory limit of 0 must not stop the login.
    (void)mlock(memory, mapped);
    (void)madvise(memory, mapped, MADV_DONTDUMP);
    struct stash *stash = memory;
    stash->mapped = mapped;
    stash->length = length;
    memcpy(stash->bytes, password, length + 1);
    return stash;
}

static void cleanup_flag(pam_handle_t *pamh, void *data, int error_status) {
    (void)pamh;
    (void)error_status;
    free(data);
}

static long remaining_ms(const struct timespec *deadline) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (deadline->tv_sec - now.tv_sec) * 1000 + (deadline->tv_nsec - now.tv_nsec) / 1000000;
}

// Copies one variable the helper needs into its environment: from the PAM environment, else (only when
// this process already runs as the user, so that no one else's environment can steer the helper) from
// the process environment.
static int add_variable(pam_handle_t *pamh, char **envp, int *count, const char *name, int same_user) {
    const char *value = pam_getenv(pamh, name);
    if (value == NULL && same_user) value = getenv(name);
    if (value == NULL) return 0;
    if (asprintf(&envp[*count], "%s=%s", name, value) < 0) return -1;
    (*count)++;
    return 0;
}

static void free_environment(char **envp) {
    for (char **entry = envp; *entry != NULL; entry++) free(*entry);
}

// Builds the message in `message` (zeroed by the caller); returns its length, or 0 when a token is too long.
static size_t encode_message(unsigned char *message, size_t capacity, enum operation operation, const char **tokens,
                             int token_count) {
    size_t length = 0;
    message[length++] = MESSAGE_VERSION;
    message[length++] = (unsigned char)operation;
    message[length++] = (unsigned char)token_count;
    for (int index = 0; index < token_count; index++) {
        size_t size = strlen(tokens[index]);
        if (size > MAX_TOKEN || length + 4 + size > capacity) return 0;
        message[length++] = (unsigned char)(size >> 24);
        message[length++] = (unsigned char)(size >> 16);
        message[length++] = (unsigned char)(size >> 8);
        message[length++] = (unsigned char)size;
        memcpy(message + length, tokens[index], size);
        length += size;
    }
    return length;
}

// Runs the helper as `user` with the message on its standard input and waits at most the timeout for it.
// Its standard output and error (one line saying what it did) end up in `reply`.
// Returns its exit status (0 done, 1 wrong password, other values failures), or -1 when it could not be
// run or did not finish in time (then it is killed; every change it makes is atomic). Logs each failure.
static int run_helper(pam_handle_t *pamh, const struct options *options, const char *user, enum operation operation,
                      const char **tokens, int token_count, char *reply, size_t reply_capacity) {
    int status = -1;
    int input[2] = {-1, -1}, output[2] = {-1, -1};
    pid_t pid = -1;
    char *envp[16] = {NULL};
    int env_count = 0;
    gid_t groups[MAX_GROUPS];
    int group_count = MAX_GROUPS;
    unsigned char *message = NULL;
    size_t message_capacity = 3 + 2 * (4 + MAX_TOKEN);
    size_t message_length = 0;
    reply[0] = '\0';

    struct passwd entry, *pw = NULL;
    char pwbuffer[4096];
    if (getpwnam_r(user, &entry, pwbuffer, sizeof pwbuffer, &pw) != 0 || pw == NULL) {
        pam_syslog(pamh, LOG_ERR, "user %s not found in the password database", user);
        goto out;
    }
    int as_root = geteuid() == 0;
    int same_user = getuid() == pw->pw_uid && geteuid() == pw->pw_uid;
    if (!as_root && !same_user) {
        pam_syslog(pamh, LOG_ERR, "running as uid %d, cannot start the helper as %s (uid %d)", (int)geteuid(), user,
                   (int)pw->pw_uid);
        goto out;
    }
    if (as_root && getgrouplist(user, pw->pw_gid, groups, &group_count) < 0) {
        pam_syslog(pamh, LOG_ERR, "%s is in more than %d groups; the helper gets the primary group only", user,
                   MAX_GROUPS);
        groups[0] = pw->pw_gid;
        group_count = 1;
    }
    if (access(options->helper, X_OK) != 0) {
        pam_syslog(pamh, LOG_ERR, "helper %s cannot be run: %s", options->helper, strerror(errno));
        goto out;
    }

    // Everything the child needs is made before fork: a login process may have threads, and the child
    // may only call async-signal-safe functions.
    if (asprintf(&envp[env_count], "HOME=%s", pw->pw_dir) < 0) goto nomem;
    env_count++;
    if (asprintf(&envp[env_count], "USER=%s", pw->pw_name) < 0) goto nomem;
    env_count++;
    if (asprintf(&envp[env_count], "LOGNAME=%s", pw->pw_name) < 0) goto nomem;
    env_count++;
    if ((envp[env_count] = strdup("PATH=/usr/local/bin:/usr/bin:/bin")) == NULL) goto nomem;
    env_count++;
    static const char *const passed[] = {"XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR",
                                         "XDG_SESSION_ID", "KEYCHAIN_KEYRING", "KEYCHAIN_KDF", "KEYCHAIN_CRASH_POINT",
                                         "KEYCHAIN_PAM_HANG", "KEYCHAIN_LOGIND_USERS"};
    for (size_t index = 0; index < sizeof passed / sizeof passed[0]; index++) {
        if (add_variable(pamh, envp, &env_count, passed[index], same_user) < 0) goto nomem;
    }
    message = mmap(NULL, message_capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (message == MAP_FAILED) {
        message = NULL;
        goto nomem;
    }
    (void)mlock(message, message_capacity);
    message_length = encode_message(message, message_capacity, operation, tokens, token_count);
    if (message_length == 0) {
        pam_syslog(pamh, LOG_ERR, "a password is longer than %d bytes; nothing done", MAX_TOKEN);
        goto out;
    }

    // A socket pair rather than pipe(2): send(MSG_NOSIGNAL) cannot raise SIGPIPE in the login process when
    // the helper dies before reading.
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, input) != 0 || pipe2(output, O_CLOEXEC) != 0) {
        pam_syslog(pamh, LOG_ERR, "cannot make the helper's pipes: %s", strerror(errno));
        goto out;
    }
    char *const argv[] = {(char *)options->helper, NULL};
    pid = fork();
    if (pid < 0) {
        pam_syslog(pamh, LOG_ERR, "cannot start the helper: fork: %s", strerror(errno));
        goto out;
    }
    if (pid == 0) {
        // The child: async-signal-safe calls only, then exec.
        if (dup2(input[1], STDIN_FILENO) < 0 || dup2(output[1], STDOUT_FILENO) < 0 ||
            dup2(output[1], STDERR_FILENO) < 0)
            _exit(127);
        (void)close_range(3, ~0U, 0);
        sigset_t none;
        sigemptyset(&none);
        (void)sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);
        if (as_root) {
            if (setgroups((size_t)group_count, groups) != 0 || setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0)
                _exit(126);
            if (getuid() != pw->pw_uid || geteuid() != pw->pw_uid || (pw->pw_uid != 0 && setuid(0) == 0)) _exit(126);
        }
        if (chdir(pw->pw_dir) != 0 && chdir("/") != 0) _exit(126);
        execve(options->helper, argv, envp);
        _exit(127);
    }
    close(input[1]);
    input[1] = -1;
    close(output[1]);
    output[1] = -1;

    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += options->timeout_ms / 1000;
    deadline.tv_nsec += (long)(options->timeout_ms % 1000) * 1000000;
    if (deadline.tv_nsec >= 1000000000) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000;
    }
    // The message is a few kilobytes at most, far less than the socket's buffer: this does not block.
    if (send(input[0], message, message_length, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)message_length) {
        pam_syslog(pamh, LOG_ERR, "cannot hand the password to the helper: %s", strerror(errno));
    }
    shutdown(input[0], SHUT_WR);

    size_t used = 0;
    int timed_out = 0;
    for (;;) {
        long wait = remaining_ms(&deadline);
        if (wait <= 0) {
            timed_out = 1;
            break;
        }
        struct pollfd poller = {.fd = output[0], .events = POLLIN};
        int ready = poll(&poller, 1, (int)wait);
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) {
            timed_out = ready == 0;
            break;
        }
        char chunk[256];
        ssize_t got = read(output[0], chunk, sizeof chunk);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        size_t take = (size_t)got < reply_capacity - 1 - used ? (size_t)got : reply_capacity - 1 - used;
        memcpy(reply + used, chunk, take);
        used += take;
    }
    reply[used] = '\0';
    while (used > 0 && (reply[used - 1] == '\n' || reply[used - 1] == '\r')) reply[--used] = '\0';
    for (char *cursor = reply; *cursor != '\0'; cursor++) {
        if (*cursor == '\n' || (unsigned char)*cursor < 0x20) *cursor = ' ';
    }

    int wstatus = 0;
    pid_t waited = 0;
    while (!timed_out) {
        waited = waitpid(pid, &wstatus, WNOHANG);
        if (waited != 0 || remaining_ms(&deadline) <= 0) break;
        struct timespec pause = {0, 10 * 1000000};
        nanosleep(&pause, NULL);
    }
    if (timed_out || waited == 0) {
        // Safe to kill at any moment: the helper's every change is one transaction.
        kill(pid, SIGKILL);
        while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {}
        pam_syslog(pamh, LOG_ERR, "the helper did not finish within %d s; stopped it (the keychain is unchanged%s)",
                   options->timeout_ms / 1000, operation == OP_CHANGE ? " or fully re-keyed" : "");
        goto out;
    }
    if (waited < 0) {
        // SIGCHLD ignored by the application: the child was reaped for us; the reply still says what it did.
        status = strncmp(reply, "ok", 2) == 0 ? 0 : 3;
    } else if (WIFEXITED(wstatus)) {
        status = WEXITSTATUS(wstatus);
    } else {
        pam_syslog(pamh, LOG_ERR, "the helper was killed by signal %d", WTERMSIG(wstatus));
        status = -1;
    }
    if (status == 126) pam_syslog(pamh, LOG_ERR, "the helper could not switch to user %s", user);
    if (status == 127) pam_syslog(pamh, LOG_ERR, "the helper %s could not be started", options->helper);
    goto out;

nomem:
    pam_syslog(pamh, LOG_CRIT, "out of memory");
out:
    if (input[0] >= 0) close(input[0]);
    if (input[1] >= 0) close(input[1]);
    if (output[0] >= 0) close(output[0]);
    if (output[1] >= 0) close(output[1]);
    if (message != NULL) {
        explicit_bzero(message, message_capacity);
        munlock(message, message_capacity);
        munmap(message, message_capacity);
    }
    free_environment(envp);
    return status;
}

static const char *user_name(pam_handle_t *pamh) {
    const char *user = NULL;
    if (pam_get_user(pamh, &user, NULL) != PAM_SUCCESS || user == NULL || *user == '\0') {
        pam_syslog(pamh, LOG_ERR, "no user name; nothing done");
        return NULL;
    }
    return user;
}

// Unlocks (or creates) the login keychain with `password`; logs the helper's reply.
static int unlock_with(pam_handle_t *pamh, const struct options *options, const char *user, const char *password) {
    char reply[MAX_REPLY];
    const char *tokens[] = {password};
    int status = run_helper(pamh, options, user, OP_UNLOCK, tokens, 1, reply, sizeof reply);
    if (status == 0) {
        pam_syslog(pamh, LOG_INFO, "%s: %s", user, reply);
        return PAM_SUCCESS;
    }
    if (status > 0) pam_syslog(pamh, LOG_ERR, "%s: the login keychain was not unlocked: %s", user, reply);
    return PAM_IGNORE;
}

// Whether the user already has a running session: logind keeps /run/systemd/users/<uid> while it does.
static int has_running_session(const char *user) {
    struct passwd entry, *pw = NULL;
    char buffer[4096];
    if (getpwnam_r(user, &entry, buffer, sizeof buffer, &pw) != 0 || pw == NULL) return 0;
    char path[64];
    snprintf(path, sizeof path, "/run/systemd/users/%u", (unsigned)pw->pw_uid);
    struct stat info;
    return stat(path, &info) == 0;
}

// auth: keeps PAM_AUTHTOK for open_session (and unlocks at once when a session is running). Never
// prompts and never authenticates anyone: always PAM_IGNORE.
EXPORT int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    (void)flags;
    struct options options;
    parse_options(pamh, argc, argv, &options);
    if (!service_allowed(pamh, &options)) return PAM_IGNORE;
    const char *user = user_name(pamh);
    if (user == NULL) return PAM_IGNORE;
    const void *item = NULL;
    if (pam_get_item(pamh, PAM_AUTHTOK, &item) != PAM_SUCCESS || item == NULL || *(const char *)item == '\0') {
        pam_syslog(pamh, LOG_NOTICE,
                   "%s: no password from the modules before (fingerprint, FIDO2, smart card or autologin?); the "
                   "keychain stays locked until its first use asks for its password",
                   user);
        return PAM_IGNORE;
    }
    const char *password = item;
    if (has_running_session(user)) {
        if (unlock_with(pamh, &options, user, password) == PAM_SUCCESS) {
            int *flag = malloc(sizeof *flag);
            if (flag != NULL && pam_set_data(pamh, UNLOCKED_NAME, flag, cleanup_flag) != PAM_SUCCESS) free(flag);
        }
        return PAM_IGNORE;
    }
    struct stash *stash = make_stash(password);
    if (stash == NULL) {
        pam_syslog(pamh, LOG_ERR, "%s: cannot keep the password for the session: %s", user, strerror(errno));
        return PAM_IGNORE;
    }
    if (pam_set_data(pamh, STASH_NAME, stash, wipe_stash) != PAM_SUCCESS) {
        pam_syslog(pamh, LOG_ERR, "%s: cannot keep the password for the session (pam_set_data)", user);
        wipe_stash(pamh, stash, 0);
        return PAM_IGNORE;
    }
    if (options.debug) pam_syslog(pamh, LOG_DEBUG, "%s: password kept for open_session", user);
    return PAM_IGNORE;
}

EXPORT int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    (void)pamh;
    (void)flags;
    (void)argc;
    (void)argv;
    return PAM_IGNORE;
}

// open_session: unlocks the login keychain with the password auth kept, creating it on a first login.
// PAM_SUCCESS when unlocked or created, PAM_IGNORE otherwise (logged with the cause).
EXPORT int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    (void)flags;
    struct options options;
    parse_options(pamh, argc, argv, &options);
    if (!service_allowed(pamh, &options)) return PAM_IGNORE;
    const char *user = user_name(pamh);
    if (user == NULL) return PAM_IGNORE;
    const void *done = NULL;
    if (pam_get_data(pamh, UNLOCKED_NAME, &done) == PAM_SUCCESS && done != NULL) {
        if (options.debug) pam_syslog(pamh, LOG_DEBUG, "%s: already unlocked during auth", user);
        return PAM_SUCCESS;
    }
    const void *data = NULL;
    if (pam_get_data(pamh, STASH_NAME, &data) != PAM_SUCCESS || data == NULL) {
        pam_syslog(pamh, LOG_NOTICE,
                   "%s: no login password was kept by auth (no password login, or pam_keychain.so is missing from "
                   "the auth stack); the keychain stays locked until its first use asks for its password",
                   user);
        return PAM_IGNORE;
    }
    const struct stash *stash = data;
    int result = unlock_with(pamh, &options, user, stash->bytes);
    // Wipes the password now rather than at pam_end.
    pam_set_data(pamh, STASH_NAME, NULL, NULL);
    return result;
}

// close_session: with lock_on_logout, locks every keychain when this was the user's last session.
EXPORT int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    (void)flags;
    struct options options;
    parse_options(pamh, argc, argv, &options);
    if (!options.lock_on_logout || !service_allowed(pamh, &options)) return PAM_IGNORE;
    const char *user = user_name(pamh);
    if (user == NULL) return PAM_IGNORE;
    char reply[MAX_REPLY];
    int status = run_helper(pamh, &options, user, OP_LOCK_IF_LAST, NULL, 0, reply, sizeof reply);
    if (status == 0) {
        pam_syslog(pamh, LOG_INFO, "%s: %s", user, reply);
        return PAM_SUCCESS;
    }
    if (status > 0) pam_syslog(pamh, LOG_ERR, "%s: the keychains were not locked: %s", user, reply);
    return PAM_IGNORE;
}

// chauthtok: PAM_PRELIM_CHECK does nothing (PAM_IGNORE). PAM_UPDATE_AUTHTOK re-keys the keychains that
// open with the old password, or records the change when there is no old one: PAM_SUCCESS when done,
// PAM_IGNORE otherwise. It never makes the password change fail.
EXPORT int pam_sm_chauthtok(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    struct options options;
    parse_options(pamh, argc, argv, &options);
    if (!(flags & PAM_UPDATE_AUTHTOK) || !service_allowed(pamh, &options)) return PAM_IGNORE;
    const char *user = user_name(pamh);
    if (user == NULL) return PAM_IGNORE;
    const void *new_item = NULL, *old_item = NULL;
    if (pam_get_item(pamh, PAM_AUTHTOK, &new_item) != PAM_SUCCESS || new_item == NULL ||
        *(const char *)new_item == '\0') {
        pam_syslog(pamh, LOG_NOTICE, "%s: no new password from the modules before; the keychains keep theirs", user);
        return PAM_IGNORE;
    }
    (void)pam_get_item(pamh, PAM_OLDAUTHTOK, &old_item);
    char reply[MAX_REPLY];
    int status;
    if (old_item == NULL || *(const char *)old_item == '\0') {
        pam_syslog(pamh, LOG_NOTICE,
                   "%s: no old password was entered (root changed it?); recording the change so that the next "
                   "unlock with the old keychain password brings the keychain in line",
                   user);
        const char *tokens[] = {new_item};
        status = run_helper(pamh, &options, user, OP_CHANGED_WITHOUT_OLD, tokens, 1, reply, sizeof reply);
    } else {
        const char *tokens[] = {old_item, new_item};
        status = run_helper(pamh, &options, user, OP_CHANGE, tokens, 2, reply, sizeof reply);
    }
    if (status == 0) {
        pam_syslog(pamh, LOG_INFO, "%s: %s", user, reply);
        return PAM_SUCCESS;
    }
    if (status > 0) pam_syslog(pamh, LOG_ERR, "%s: the keychains were not re-keyed: %s", user, reply);
    return PAM_IGNORE;
}
