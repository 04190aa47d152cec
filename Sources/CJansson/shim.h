#ifndef CJANSSON_SHIM_H
#define CJANSSON_SHIM_H
#include <jansson.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

// jansson frees through a C function pointer (json_set_alloc_funcs); a free that wipes the whole block
// (malloc_usable_size) first leaves no decoded string, key or lexer buffer of a parsed secret behind.
static inline void cjansson_wiping_free(void *pointer) {
    if (pointer) {
        explicit_bzero(pointer, malloc_usable_size(pointer));
        free(pointer);
    }
}

// Installs malloc and cjansson_wiping_free as jansson's allocator pair for the whole process; taking the
// address of a static inline function and of malloc is done on the C side.
static inline void cjansson_use_wiping_allocator(void) { json_set_alloc_funcs(malloc, cjansson_wiping_free); }
#endif
