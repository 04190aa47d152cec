#ifndef CGIO_SHIM_H
#define CGIO_SHIM_H
#include <gio/gio.h>
#include <glib-unix.h>
// File descriptors passed over D-Bus (GetConnectionCredentials' ProcessFD); gio.h leaves this header out.
#include <gio/gunixfdlist.h>
#include <malloc.h>

// G_VARIANT_TYPE is a macro (a checked cast of a type string), which Swift cannot import.
static inline const GVariantType *cgio_variant_type(const gchar *type_string) {
    return G_VARIANT_TYPE(type_string);
}

// G_SOURCE_REMOVE / G_SOURCE_CONTINUE are macros; Swift sees them as untyped.
static inline gboolean cgio_source_remove(void) { return G_SOURCE_REMOVE; }
static inline gboolean cgio_source_continue(void) { return G_SOURCE_CONTINUE; }

// mallopt is glibc's (malloc.h), which Swift's Glibc module does not export. A fixed mmap threshold
// gives every buffer of `bytes` or more its own mapping, returned to the kernel when freed; glibc's
// default raises the threshold after each large free, so a daemon's later large buffers stay resident.
static inline void cgio_malloc_map_buffers_from(int bytes) { (void)mallopt(M_MMAP_THRESHOLD, bytes); }
#endif
