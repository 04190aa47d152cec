internal import CGIO

/// One signal as delivered to a ``BusConnection/subscribe(sender:interface:member:path:arg0:_:)`` handler.
package struct BusSignal {
    /// The sender's unique name (`nil` on a peer-to-peer connection).
    package let sender: String?
    package let path: String
    package let interface: String
    package let member: String
    /// The arguments, a tuple owned by GDBus and valid during the handler only.
    package let parameters: OpaquePointer
}

/// A signal subscription, ended by ``cancel()`` or when released.
///
/// The handler is kept by GDBus's user data (released by GDBus once the subscription is gone), so it
/// may capture its owner `unowned` as long as the owner cancels, or releases, the subscription before it goes.
package final class BusSignalSubscription {
    /// The handler GDBus holds while subscribed.
    final class Handler {
        let body: (BusSignal) -> Void
        init(_ body: @escaping (BusSignal) -> Void) { self.body = body }
    }

    private let connection: BusConnection
    private var id: guint

    init(_ connection: BusConnection, id: guint) {
        self.connection = connection
        self.id = id
    }

    deinit { cancel() }

    /// Ends the subscription: no signal reaches the handler after this returns. Idempotent.
    package func cancel() {
        guard id != 0 else { return }
        g_dbus_connection_signal_unsubscribe(connection.pointer, id)
        id = 0
    }
}
