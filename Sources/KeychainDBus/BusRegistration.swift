internal import CGIO

/// An exported object or subtree (``BusConnection/registerObject(_:interface:handler:)``,
/// ``BusConnection/registerSubtree(_:handler:)``), unexported by ``cancel()`` or when released.
package final class BusRegistration {
    private let connection: BusConnection
    private var id: guint
    private let subtree: Bool

    init(_ connection: BusConnection, id: guint, subtree: Bool) {
        self.connection = connection
        self.id = id
        self.subtree = subtree
    }

    deinit { cancel() }

    /// Unexports the object or subtree; later calls on it get GDBus's `UnknownMethod`. Idempotent.
    package func cancel() {
        guard id != 0 else { return }
        if subtree {
            g_dbus_connection_unregister_subtree(connection.pointer, id)
        } else {
            g_dbus_connection_unregister_object(connection.pointer, id)
        }
        id = 0
    }
}
