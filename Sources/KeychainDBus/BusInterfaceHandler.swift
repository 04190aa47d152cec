package import CGIO

/// What a property read or write names.
package struct BusPropertyAccess {
    /// The caller's unique name (`nil` on a peer-to-peer connection).
    package let sender: String?
    package let path: String
    package let interface: String
    package let name: String
}

/// The D-Bus error a property read or write answers.
package struct BusPropertyFailure: Error {
    package let code: GDBusError
    package let message: String

    package init(code: GDBusError, message: String) {
        self.code = code
        self.message = message
    }
}

/// The method table of one exported interface: Swift handlers behind one GDBus vtable, which this
/// value owns. Exported with ``BusConnection/registerObject(_:interface:handler:)`` or returned by a
/// ``BusSubtreeHandler``'s dispatch.
///
/// Without property handlers GDBus hands `org.freedesktop.DBus.Properties` calls to ``methodCall``
/// as well (a handler for objects that do not exist answers them too).
package final class BusInterfaceHandler {
    /// Answers a method call, now or later (a ``MethodCall`` may be kept and answered once, later).
    package let methodCall: (MethodCall) -> Void
    /// Reads a property: its value (a floating `GVariant`) or the error to answer.
    package let getProperty: ((BusPropertyAccess) -> Result<OpaquePointer, BusPropertyFailure>)?
    /// Writes a property (GDBus has checked the value's type): `nil` on success, else the error to answer.
    package let setProperty: ((BusPropertyAccess, OpaquePointer) -> BusPropertyFailure?)?
    /// The vtable GDBus calls, with this object as its user data.
    let vtable: UnsafeMutablePointer<GDBusInterfaceVTable>
    /// The senders, paths and names of recent calls.
    private let strings = BusStringCache()

    package init(
        methodCall: @escaping (MethodCall) -> Void,
        getProperty: ((BusPropertyAccess) -> Result<OpaquePointer, BusPropertyFailure>)? = nil,
        setProperty: ((BusPropertyAccess, OpaquePointer) -> BusPropertyFailure?)? = nil
    ) {
        self.methodCall = methodCall
        self.getProperty = getProperty
        self.setProperty = setProperty
        vtable = .allocate(capacity: 1)
        vtable.initialize(to: Self.makeVTable(properties: getProperty != nil, writable: setProperty != nil))
    }

    deinit { vtable.deallocate() }

    private static func handler(_ data: UnsafeMutableRawPointer?) -> BusInterfaceHandler {
        Unmanaged<BusInterfaceHandler>.fromOpaque(data!).takeUnretainedValue()
    }

    private func access(
        _ sender: UnsafePointer<gchar>?, _ path: UnsafePointer<gchar>?, _ interface: UnsafePointer<gchar>?,
        _ name: UnsafePointer<gchar>?
    ) -> BusPropertyAccess {
        BusPropertyAccess(
            sender: sender.map(strings.string), path: strings.string(path!), interface: strings.string(interface!),
            name: strings.string(name!))
    }

    private static func makeVTable(properties: Bool, writable: Bool) -> GDBusInterfaceVTable {
        var table = GDBusInterfaceVTable()
        table.method_call = { _, sender, path, interface, method, parameters, invocation, data in
            guard let invocation, let parameters else { return }
            let handler = BusInterfaceHandler.handler(data)
            let strings = handler.strings
            let call = MethodCall(
                invocation: invocation, sender: sender.map(strings.string) ?? "", path: strings.string(path!),
                interface: strings.string(interface!), method: strings.string(method!), parameters: parameters)
            handler.methodCall(call)
        }
        if properties {
            table.get_property = { _, sender, path, interface, name, error, data in
                let handler = BusInterfaceHandler.handler(data)
                switch handler.getProperty!(handler.access(sender, path, interface, name)) {
                case .success(let value): return value
                case .failure(let failure):
                    g_set_error_literal(error, g_dbus_error_quark(), gint(failure.code.rawValue), failure.message)
                    return nil
                }
            }
        }
        if writable {
            table.set_property = { _, sender, path, interface, name, value, error, data in
                guard let value else { return 0 }
                let handler = BusInterfaceHandler.handler(data)
                guard let failure = handler.setProperty!(handler.access(sender, path, interface, name), value) else {
                    return 1
                }
                g_set_error_literal(error, g_dbus_error_quark(), gint(failure.code.rawValue), failure.message)
                return 0
            }
        }
        return table
    }
}
