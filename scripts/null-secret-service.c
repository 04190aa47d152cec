/*
 * A Secret Service that stores nothing: the floor of scripts/bench-secret-service.
 *
 * It answers, through GDBus as keychain-secret-service does, just the calls that secretstorage makes for
 * the benchmark's in-process workloads, with replies computed from the request and no store behind them:
 *   OpenSession("plain") only (secretstorage then falls back from DH to plain);
 *   Collection.SearchItems returns collection/login/<id> for the query's "id" attribute;
 *   Item.GetSecret returns "secret-<id>" for its path; Collection.CreateItem returns collection/login/0
 *   and no prompt; Item.Delete returns no prompt; Label and Locked read as "bench" and false.
 * What a client measures against it is the client, the bus and GDBus: the time no provider can go below on
 * this machine. Not part of the product; the benchmark compiles it with
 *   cc -O2 scripts/null-secret-service.c $(pkg-config --cflags --libs gio-2.0)
 *
 * With --items N --commit FILE (the bench's "floor, durable" column, issue 29) it also does, for each
 * CreateItem, what any provider that keeps items must do and clients expect, and still stores nothing:
 *   announces it as gnome-keyring and keychain-secret-service do: ItemCreated, then the collection's
 *   PropertiesChanged with Items (the N items, then one more per CreateItem: collection/login/0…) and
 *   Modified; Item.Delete announces ItemDeleted and Items one shorter;
 *   commits durably before replying: one 4 KiB pwrite over the start of FILE, then fdatasync (the least
 *   a store that keeps its promise writes; a SQLite commit in WAL mode writes its changed pages and a
 *   commit frame, then fsyncs).
 */
#include <fcntl.h>
#include <gio/gio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *introspection =
    "<node>"
    "<interface name='org.freedesktop.Secret.Service'>"
    " <method name='OpenSession'><arg direction='in' type='s'/><arg direction='in' type='v'/>"
    "  <arg direction='out' type='v'/><arg direction='out' type='o'/></method>"
    "</interface>"
    "<interface name='org.freedesktop.Secret.Collection'>"
    " <method name='SearchItems'><arg direction='in' type='a{ss}'/><arg direction='out' type='ao'/></method>"
    " <method name='CreateItem'><arg direction='in' type='a{sv}'/><arg direction='in' type='(oayays)'/>"
    "  <arg direction='in' type='b'/><arg direction='out' type='o'/><arg direction='out' type='o'/></method>"
    " <property name='Label' type='s' access='read'/><property name='Locked' type='b' access='read'/>"
    "</interface>"
    "<interface name='org.freedesktop.Secret.Item'>"
    " <method name='GetSecret'><arg direction='in' type='o'/><arg direction='out' type='(oayays)'/></method>"
    " <method name='Delete'><arg direction='out' type='o'/></method>"
    " <property name='Label' type='s' access='read'/><property name='Locked' type='b' access='read'/>"
    "</interface>"
    "</node>";

#define SESSION_PATH "/org/freedesktop/secrets/session/s1"
#define ITEM_PREFIX "/org/freedesktop/secrets/collection/login/"

#define COLLECTION_PATH "/org/freedesktop/secrets/collection/login"

static GDBusNodeInfo *node_info;
/* --items: the items announced in Items (-1: no announcements); --commit: the file committed to (-1: none). */
static long item_count = -1;
static int commit_fd = -1;

/* ItemCreated or ItemDeleted for item_path, then PropertiesChanged with Items (collection/login/0 up to
 * item_count - 1) and Modified, as keychain-secret-service sends them. */
static void announce(GDBusConnection *connection, const char *signal, const char *item_path) {
    g_dbus_connection_emit_signal(connection, NULL, COLLECTION_PATH, "org.freedesktop.Secret.Collection", signal,
                                  g_variant_new("(o)", item_path), NULL);
    GVariantBuilder items;
    g_variant_builder_init(&items, G_VARIANT_TYPE("ao"));
    char path[96];
    for (long index = 0; index < item_count; index++) {
        g_snprintf(path, sizeof path, ITEM_PREFIX "%ld", index);
        g_variant_builder_add(&items, "o", path);
    }
    GVariantBuilder changed;
    g_variant_builder_init(&changed, G_VARIANT_TYPE("a{sv}"));
    g_variant_builder_add(&changed, "{sv}", "Items", g_variant_builder_end(&items));
    g_variant_builder_add(&changed, "{sv}", "Modified", g_variant_new_uint64((guint64)(g_get_real_time() / 1000000)));
    g_dbus_connection_emit_signal(connection, NULL, COLLECTION_PATH, "org.freedesktop.DBus.Properties",
                                  "PropertiesChanged",
                                  g_variant_new("(sa{sv}as)", "org.freedesktop.Secret.Collection", &changed, NULL),
                                  NULL);
}

/* One durable commit: 4 KiB written over the start of the --commit file, then fdatasync. */
static void commit(void) {
    static char page[4096];
    if (pwrite(commit_fd, page, sizeof page, 0) != (ssize_t)sizeof page || fdatasync(commit_fd) != 0) {
        g_printerr("null-secret-service: cannot commit\n");
        exit(1);
    }
}

static void call_method(GDBusConnection *connection, const char *sender, const char *path,
                        const char *interface, const char *method, GVariant *parameters,
                        GDBusMethodInvocation *invocation, gpointer user_data) {
    if (strcmp(method, "OpenSession") == 0) {
        const char *algorithm;
        g_variant_get_child(parameters, 0, "&s", &algorithm);
        if (strcmp(algorithm, "plain") != 0) {
            g_dbus_method_invocation_return_dbus_error(invocation, "org.freedesktop.DBus.Error.NotSupported",
                                                       "only plain");
            return;
        }
        g_dbus_method_invocation_return_value(invocation,
                                              g_variant_new("(vo)", g_variant_new_string(""), SESSION_PATH));
    } else if (strcmp(method, "SearchItems") == 0) {
        GVariant *attributes = g_variant_get_child_value(parameters, 0);
        const char *id = "0";
        g_variant_lookup(attributes, "id", "&s", &id);
        GVariantBuilder paths;
        g_variant_builder_init(&paths, G_VARIANT_TYPE("ao"));
        char *item = g_strconcat(ITEM_PREFIX, id, NULL);
        if (g_variant_is_object_path(item)) g_variant_builder_add(&paths, "o", item);
        g_free(item);
        g_variant_unref(attributes);
        g_dbus_method_invocation_return_value(invocation, g_variant_new("(ao)", &paths));
    } else if (strcmp(method, "GetSecret") == 0) {
        const char *id = strrchr(path, '/') + 1;
        char *secret = g_strconcat("secret-", id, NULL);
        GVariant *parameters_bytes = g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, "", 0, 1);
        GVariant *value = g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, secret, strlen(secret), 1);
        g_dbus_method_invocation_return_value(
            invocation, g_variant_new("((o@ay@ays))", SESSION_PATH, parameters_bytes, value, "text/plain"));
        g_free(secret);
    } else if (strcmp(method, "CreateItem") == 0) {
        if (commit_fd >= 0) commit();
        g_dbus_method_invocation_return_value(invocation, g_variant_new("(oo)", ITEM_PREFIX "0", "/"));
        if (item_count >= 0) {
            char created[96];
            g_snprintf(created, sizeof created, ITEM_PREFIX "%ld", item_count++);
            announce(connection, "ItemCreated", created);
        }
    } else if (strcmp(method, "Delete") == 0) {
        if (commit_fd >= 0) commit();
        g_dbus_method_invocation_return_value(invocation, g_variant_new("(o)", "/"));
        if (item_count > 0) {
            item_count--;
            announce(connection, "ItemDeleted", path);
        }
    } else {
        g_dbus_method_invocation_return_dbus_error(invocation, "org.freedesktop.DBus.Error.UnknownMethod", method);
    }
}

static GVariant *get_property(GDBusConnection *connection, const char *sender, const char *path,
                              const char *interface, const char *name, GError **error, gpointer user_data) {
    return strcmp(name, "Label") == 0 ? g_variant_new_string("bench") : g_variant_new_boolean(FALSE);
}

static const GDBusInterfaceVTable interface_vtable = {call_method, get_property, NULL, {0}};

static char **enumerate_items(GDBusConnection *connection, const char *sender, const char *path,
                              gpointer user_data) {
    return g_new0(char *, 1);
}

static GDBusInterfaceInfo **item_interfaces(GDBusConnection *connection, const char *sender, const char *path,
                                            const char *node, gpointer user_data) {
    GDBusInterfaceInfo **interfaces = g_new0(GDBusInterfaceInfo *, 2);
    if (node != NULL) interfaces[0] = g_dbus_interface_info_ref(node_info->interfaces[2]);
    return interfaces;
}

static const GDBusInterfaceVTable *dispatch_item(GDBusConnection *connection, const char *sender,
                                                 const char *path, const char *interface, const char *node,
                                                 gpointer *out_user_data, gpointer user_data) {
    return &interface_vtable;
}

static const GDBusSubtreeVTable item_subtree = {enumerate_items, item_interfaces, dispatch_item, {0}};

int main(int argc, char **argv) {
    for (int index = 1; index + 1 < argc; index += 2) {
        if (strcmp(argv[index], "--items") == 0) {
            item_count = strtol(argv[index + 1], NULL, 10);
        } else if (strcmp(argv[index], "--commit") == 0) {
            commit_fd = open(argv[index + 1], O_WRONLY | O_CREAT, 0600);
            if (commit_fd < 0) {
                g_printerr("null-secret-service: cannot open %s\n", argv[index + 1]);
                return 1;
            }
        } else {
            g_printerr("usage: null-secret-service [--items N] [--commit FILE]\n");
            return 1;
        }
    }
    node_info = g_dbus_node_info_new_for_xml(introspection, NULL);
    GError *error = NULL;
    GDBusConnection *connection = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &error);
    if (connection == NULL) {
        g_printerr("null-secret-service: %s\n", error->message);
        return 1;
    }
    g_dbus_connection_register_object(connection, "/org/freedesktop/secrets", node_info->interfaces[0],
                                      &interface_vtable, NULL, NULL, NULL);
    g_dbus_connection_register_object(connection, "/org/freedesktop/secrets/aliases/default",
                                      node_info->interfaces[1], &interface_vtable, NULL, NULL, NULL);
    g_dbus_connection_register_subtree(connection, "/org/freedesktop/secrets/collection/login", &item_subtree,
                                       G_DBUS_SUBTREE_FLAGS_DISPATCH_TO_UNENUMERATED_NODES, NULL, NULL, NULL);
    g_bus_own_name_on_connection(connection, "org.freedesktop.secrets", G_BUS_NAME_OWNER_FLAGS_NONE, NULL, NULL,
                                 NULL, NULL);
    g_main_loop_run(g_main_loop_new(NULL, FALSE));
    return 0;
}
