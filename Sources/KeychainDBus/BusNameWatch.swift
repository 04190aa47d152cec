internal import CGIO

/// A watch on a bus name (`g_bus_watch_name_on_connection`): `appeared` runs when the name gets an owner
/// (at once, from the main context, if it has one now) and `vanished` when it has none (at once if it has
/// none now), each time it changes, until ``cancel()`` or until the watch is released.
///
/// The handlers are kept by GDBus's user data, released by GDBus once the watch is gone (GIO's
/// `g_bus_unwatch_name`: no handler runs after it returns), so they may capture their owner `unowned` as
/// long as the owner cancels, or releases, the watch before it goes. Handlers run on the thread-default
/// main context of the thread that made the watch; not `Sendable`.
package final class BusNameWatch {
    /// The handlers GDBus holds while watching.
    final class Handlers {
        let appeared: (_ owner: String) -> Void
        let vanished: () -> Void
        init(appeared: @escaping (String) -> Void, vanished: @escaping () -> Void) {
            self.appeared = appeared
            self.vanished = vanished
        }
    }

    private var id: guint

    /// Watches `name` on `connection` (``BusConnection/watchName(_:appeared:vanished:)``).
    init(_ connection: BusConnection, name: String, handlers: Handlers) {
        let box = Unmanaged.passRetained(handlers)
        id = g_bus_watch_name_on_connection(
            connection.pointer, name, G_BUS_NAME_WATCHER_FLAGS_NONE,
            { _, _, owner, data in
                Unmanaged<Handlers>.fromOpaque(data!).takeUnretainedValue().appeared(
                    owner.map { String(cString: $0) } ?? "")
            },
            { _, _, data in Unmanaged<Handlers>.fromOpaque(data!).takeUnretainedValue().vanished() },
            box.toOpaque(), { data in Unmanaged<Handlers>.fromOpaque(data!).release() })
    }

    deinit { cancel() }

    /// Ends the watch: no handler runs after this returns. Idempotent.
    package func cancel() {
        guard id != 0 else { return }
        g_bus_unwatch_name(id)
        id = 0
    }
}

extension BusConnection {
    /// Watches `name` (a well-known name) on this connection; see ``BusNameWatch``.
    /// - Parameters:
    ///   - name: the bus name.
    ///   - appeared: called with the name's unique owner when it has one (first at once, from the main
    ///     context, if it is owned now).
    ///   - vanished: called when it has no owner (first at once if it has none now).
    /// - Returns: the watch, ended by ``BusNameWatch/cancel()`` or when it is released.
    package func watchName(
        _ name: String, appeared: @escaping (_ owner: String) -> Void, vanished: @escaping () -> Void
    ) -> BusNameWatch {
        BusNameWatch(self, name: name, handlers: BusNameWatch.Handlers(appeared: appeared, vanished: vanished))
    }
}
