package import CGIO

/// One `GDBusConnection`, referenced for this value's life, and the calls on it that every D-Bus
/// object of the provider's process shares: exporting objects and subtrees, subscribing to signals,
/// emitting signals.
///
/// The Secret Service provider, the Secret portal backend, the session agent, the daemon and the
/// migration client all reach GDBus through this target (``BusNodeInfo``, ``BusInterfaceHandler``,
/// ``BusSubtreeHandler``, ``BusRegistration``, ``BusSignalSubscription``, ``BusNameWatch``,
/// ``MethodCall``, ``Variant``, ``MainLoopTimer``, ``MainLoopSignal``), so none of them holds
/// `Unmanaged` user data, a C vtable or a raw subscription or source id of its own.
///
/// Threading: GDBus runs every handler given here on the thread-default main context of the thread
/// that registered or subscribed; a connection and what hangs off it are used only there (not `Sendable`).
package final class BusConnection {
    /// The `GDBusConnection`.
    package let pointer: OpaquePointer

    /// References `connection` (a `GDBusConnection`) until this value goes.
    package init(_ connection: OpaquePointer) {
        pointer = connection
        g_object_ref(UnsafeMutableRawPointer(connection))
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(pointer)) }

    /// Exports one interface at `path`; calls reach `handler` until the registration is cancelled or released.
    /// - Parameters:
    ///   - path: the object path.
    ///   - interface: the interface's introspection data (from a ``BusNodeInfo``, which must outlive the export).
    ///   - handler: the interface's method and property handlers.
    /// - Returns: the export, undone by ``BusRegistration/cancel()`` or when it is released.
    /// - Throws: ``BusRegistrationError`` with the path and GDBus's message when it refuses (a path
    ///   exported already, or not an object path).
    package func registerObject(
        _ path: String, interface: UnsafeMutablePointer<GDBusInterfaceInfo>, handler: BusInterfaceHandler
    ) throws(BusRegistrationError) -> BusRegistration {
        var error: UnsafeMutablePointer<GError>?
        let box = Unmanaged.passRetained(handler)
        let id = g_dbus_connection_register_object(
            pointer, path, interface, handler.vtable, box.toOpaque(),
            { data in Unmanaged<BusInterfaceHandler>.fromOpaque(data!).release() }, &error)
        guard id != 0 else {
            box.release()
            throw BusRegistrationError(path: path, message: Self.consume(error))
        }
        return BusRegistration(self, id: id, subtree: false)
    }

    /// Exports a subtree rooted at `path`, dispatched to children GDBus has not enumerated as well
    /// (`G_DBUS_SUBTREE_FLAGS_DISPATCH_TO_UNENUMERATED_NODES`), so that an object need not be listed to be called.
    /// - Returns: the export, undone by ``BusRegistration/cancel()`` or when it is released.
    /// - Throws: ``BusRegistrationError`` with the path and GDBus's message when it refuses.
    package func registerSubtree(_ path: String, handler: BusSubtreeHandler) throws(BusRegistrationError)
        -> BusRegistration
    {
        var error: UnsafeMutablePointer<GError>?
        let box = Unmanaged.passRetained(handler)
        let id = g_dbus_connection_register_subtree(
            pointer, path, handler.vtable, G_DBUS_SUBTREE_FLAGS_DISPATCH_TO_UNENUMERATED_NODES, box.toOpaque(),
            { data in Unmanaged<BusSubtreeHandler>.fromOpaque(data!).release() }, &error)
        guard id != 0 else {
            box.release()
            throw BusRegistrationError(path: path, message: Self.consume(error))
        }
        return BusRegistration(self, id: id, subtree: true)
    }

    /// Subscribes `handler` to the signals that match every non-nil filter.
    /// - Parameters:
    ///   - sender: the sending bus name (a well-known name matches its current owner); `nil`: any.
    ///   - interface, member, path: the signal's; `nil`: any.
    ///   - arg0: the first argument, when it is a string; `nil`: any.
    ///   - handler: called on this thread's main context for each matching signal.
    /// - Returns: the subscription, ended by ``BusSignalSubscription/cancel()`` or when it is released.
    package func subscribe(
        sender: String?, interface: String?, member: String?, path: String?, arg0: String? = nil,
        _ handler: @escaping (BusSignal) -> Void
    ) -> BusSignalSubscription {
        let box = Unmanaged.passRetained(BusSignalSubscription.Handler(handler))
        let id = g_dbus_connection_signal_subscribe(
            pointer, sender, interface, member, path, arg0, G_DBUS_SIGNAL_FLAGS_NONE,
            { _, sender, path, interface, member, parameters, data in
                guard let path, let interface, let member, let parameters else { return }
                let signal = BusSignal(
                    sender: sender.map { String(cString: $0) }, path: String(cString: path),
                    interface: String(cString: interface), member: String(cString: member), parameters: parameters)
                Unmanaged<BusSignalSubscription.Handler>.fromOpaque(data!).takeUnretainedValue().body(signal)
            }, box.toOpaque(), { data in Unmanaged<BusSignalSubscription.Handler>.fromOpaque(data!).release() })
        return BusSignalSubscription(self, id: id)
    }

    /// Subscribes `handler` to clients leaving the bus: the bus daemon's `NameOwnerChanged` for a unique
    /// name with an empty new owner. `handler` gets the unique name that left.
    /// - Returns: the subscription, ended by ``BusSignalSubscription/cancel()`` or when it is released.
    package func subscribeToClientsLeaving(_ handler: @escaping (String) -> Void) -> BusSignalSubscription {
        subscribe(
            sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged",
            path: "/org/freedesktop/DBus"
        ) { signal in
            guard Variant.isOfType(signal.parameters, "(sss)") else { return }
            let name = Variant.withChild(signal.parameters, 0, Variant.readString)
            let newOwner = Variant.withChild(signal.parameters, 2, Variant.readString)
            guard newOwner.isEmpty, name.hasPrefix(":") else { return }
            handler(name)
        }
    }

    /// Emits a signal to every subscriber; `arguments` are floating values, sunk by the call.
    package func emit(_ path: String, _ interface: String, _ signal: String, _ arguments: [OpaquePointer]) {
        g_dbus_connection_emit_signal(pointer, nil, path, interface, signal, Variant.tuple(arguments), nil)
    }

    /// Writes every queued message out (before a slow step, so that a reply is not held back by it).
    package func flush() { g_dbus_connection_flush_sync(pointer, nil, nil) }

    /// A `GError`'s message, freeing it; "unknown error" when there is none.
    package static func consume(_ error: UnsafeMutablePointer<GError>?) -> String {
        guard let error else { return "unknown error" }
        defer { g_error_free(error) }
        return String(cString: error.pointee.message)
    }
}
