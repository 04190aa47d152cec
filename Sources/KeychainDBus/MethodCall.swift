internal import CGIO

/// One incoming method call; it is answered exactly once, by ``reply(_:)`` or ``fail(_:)``.
///
/// A handler may answer at once or keep the value and answer later (a deferred reply: a prompt, a
/// portal request waiting for an unlock); GDBus keeps the invocation, and so ``parameters``, until then.
package struct MethodCall {
    /// The `GDBusMethodInvocation`; replying consumes its reference.
    package let invocation: OpaquePointer
    /// The caller's unique bus name.
    package let sender: String
    package let path: String
    package let interface: String
    package let method: String
    /// The arguments, a tuple GDBus has checked against the introspection XML.
    package let parameters: OpaquePointer

    /// Answers with `values` (floating `GVariant`s) as the reply's arguments.
    package func reply(_ values: [OpaquePointer]) {
        g_dbus_method_invocation_return_value(invocation, Variant.tuple(values))
    }

    /// Answers with a D-Bus error.
    package func fail(_ failure: DBusFailure) {
        g_dbus_method_invocation_return_dbus_error(invocation, failure.name, failure.message)
    }

    /// A duplicate, owned by the caller, of the file descriptor the message carries at `index` (an `h`
    /// argument's value).
    /// - Returns: the descriptor, or `nil` when the message carries none at `index` or it cannot be duplicated.
    package func takeFileDescriptor(at index: Int32) -> Int32? {
        let message = g_dbus_method_invocation_get_message(invocation)
        guard let list = g_dbus_message_get_unix_fd_list(message), index >= 0, index < g_unix_fd_list_get_length(list)
        else { return nil }
        let fd = g_unix_fd_list_get(list, index, nil)
        return fd >= 0 ? fd : nil
    }
}
