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
 */
#include <gio/gio.h>
#include <string.h>

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

static GDBusNodeInfo *node_info;

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
        g_dbus_method_invocation_return_value(invocation, g_variant_new("(oo)", ITEM_PREFIX "0", "/"));
    } else if (strcmp(method, "Delete") == 0) {
        g_dbus_method_invocation_return_value(invocation, g_variant_new("(o)", "/"));
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

int main(void) {
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
