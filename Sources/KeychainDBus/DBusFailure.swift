/// A D-Bus error reply (``MethodCall/fail(_:)``): an error name and its message.
///
/// The builders here are the bus's own `org.freedesktop.DBus.Error.*` names (D-Bus specification,
/// "Message Types": `ERROR`); a service adds its own names in an extension (the Secret Service's
/// `org.freedesktop.Secret.Error.*` are in `SecretService`).
package struct DBusFailure: Error {
    /// The error name, such as `org.freedesktop.DBus.Error.Failed`.
    package let name: String
    /// The text the caller gets with it (never a secret).
    package let message: String

    package init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    /// `org.freedesktop.DBus.Error.InvalidArgs`.
    package static func invalidArgs(_ message: String) -> Self {
        Self(name: "org.freedesktop.DBus.Error.InvalidArgs", message: message)
    }
    /// `org.freedesktop.DBus.Error.NotSupported`.
    package static func notSupported(_ message: String) -> Self {
        Self(name: "org.freedesktop.DBus.Error.NotSupported", message: message)
    }
    /// `org.freedesktop.DBus.Error.AccessDenied`.
    package static func accessDenied(_ message: String) -> Self {
        Self(name: "org.freedesktop.DBus.Error.AccessDenied", message: message)
    }
    /// `org.freedesktop.DBus.Error.Failed`.
    package static func failed(_ message: String) -> Self {
        Self(name: "org.freedesktop.DBus.Error.Failed", message: message)
    }
}
