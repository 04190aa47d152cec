#ifndef CPLIST_SHIM_H
#define CPLIST_SHIM_H
// libplist 2.2 (Debian libplist-dev; the library is libplist3's libplist-2.0.so.3): Apple property lists,
// XML and binary, for the two things the engine reads in that format: an entitlements file
// ($KEYCHAIN_ENTITLEMENTS) and the attributes of a legacy item record (builds before the record format).
// The library is not linked: it is opened with dlopen at its first use (cplist_load), so that a process
// that never meets either (every command-line tool, nearly always) does not load it at start-up
// (docs/PERFORMANCE.md, "Size and start-up of the installed tools"; tracker issue 23).
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <plist/plist.h>

// Every libplist function the project calls (Swift calls them as `functions.plist_free(…)`).
#define CPLIST_FUNCTIONS(X) \
    X(plist_from_memory) X(plist_free) X(plist_get_node_type) X(plist_dict_new_iter) X(plist_dict_next_item) \
    X(plist_dict_get_item) X(plist_array_get_size) X(plist_array_get_item) X(plist_get_string_ptr) \
    X(plist_get_data_ptr) X(plist_get_uint_val) X(plist_get_bool_val) X(plist_to_bin) X(plist_to_bin_free)

// The loaded functions, with the header's names and types.
struct cplist_functions {
#define CPLIST_FIELD(name) __typeof__(&name) _Nonnull name;
    CPLIST_FUNCTIONS(CPLIST_FIELD)
#undef CPLIST_FIELD
};

// What cplist_load found: one per process (a function-local static; only KeychainCore includes this).
struct cplist_state {
    struct cplist_functions functions;
    int loaded;
    char failure[256];  // why loading failed (dlerror's text), for the error message
};

static inline struct cplist_state *cplist_state(void) {
    static struct cplist_state state;
    return &state;
}

// Opens libplist and resolves every function, once (pthread_once in cplist_load).
static inline void cplist_open(void) {
    struct cplist_state *state = cplist_state();
    void *library = dlopen("libplist-2.0.so.3", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *error = dlerror();
        strncpy(state->failure, error ? error : "libplist-2.0.so.3", sizeof state->failure - 1);
        return;
    }
#define CPLIST_RESOLVE(name) \
    *(void **)&state->functions.name = dlsym(library, #name); \
    if (state->functions.name == NULL) { \
        strncpy(state->failure, "libplist-2.0.so.3 has no " #name, sizeof state->failure - 1); \
        return; \
    }
    CPLIST_FUNCTIONS(CPLIST_RESOLVE)
#undef CPLIST_RESOLVE
    state->loaded = 1;
}

// libplist's functions, loaded once per process (thread-safe); NULL when the library or a function is
// missing (libplist3 not installed), and then cplist_failure() says why. The library stays loaded until exit.
static inline const struct cplist_functions *cplist_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, cplist_open);
    return cplist_state()->loaded ? &cplist_state()->functions : NULL;
}

static inline const char *_Nonnull cplist_failure(void) { return cplist_state()->failure; }

// A date node's value, seconds since 2001-01-01 00:00:00 UTC, exactly (CFAbsoluteTime; Foundation's
// timeIntervalSinceReferenceDate). libplist 2.2 keeps the double the file holds, but its only getter,
// plist_get_date_val, truncates it to whole microseconds in two int32_t. The binary plist libplist writes
// for the node alone holds that double as the file did: the root object first, right after the 8-byte
// header, as a date marker (0x33) and 8 big-endian bytes. Returns 0 when `node` is not a date.
static inline int cplist_date_seconds(const struct cplist_functions *_Nonnull plist, plist_t node, double *seconds) {
    char *binary = NULL;
    uint32_t length = 0;
    int found = 0;
    if (plist->plist_get_node_type(node) != PLIST_DATE) return 0;
    plist->plist_to_bin(node, &binary, &length);
    if (binary != NULL && length >= 17 && (uint8_t)binary[8] == 0x33) {
        uint64_t bits = 0;
        for (int index = 9; index < 17; index++) bits = (bits << 8) | (uint8_t)binary[index];
        memcpy(seconds, &bits, sizeof *seconds);
        found = 1;
    }
    if (binary != NULL) plist->plist_to_bin_free(binary);
    return found;
}

#endif
