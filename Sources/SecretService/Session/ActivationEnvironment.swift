internal import CGIO
internal import KeychainDBus

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// The graphical session's environment, for the pinentry the provider starts (tracker issue 24,
/// item 4).
///
/// A provider started by D-Bus activation gets the bus daemon's activation environment, which often
/// lacks `DISPLAY` and `WAYLAND_DISPLAY`: the desktop exports them later, to the systemd user manager
/// and the bus (`dbus-update-activation-environment --systemd DISPLAY WAYLAND_DISPLAY`, which GNOME
/// and most compositors run at start). gnome-keyring's daemon takes the session's variables the same
/// way. So before each prompt the provider reads the systemd user manager's `Environment` property
/// (`org.freedesktop.systemd1.Manager` on the session bus) and takes from it the variables a
/// graphical pinentry needs. Where no systemd user manager answers (no systemd, a private bus), the
/// provider's own environment stays as it is.
enum ActivationEnvironment {
    /// The variables a graphical pinentry reads.
    static let graphicalVariables = ["DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY"]

    /// Reads the systemd user manager's environment on `connection` and sets, in this process, each
    /// of ``graphicalVariables`` it holds with a value that differs from this process's.
    ///
    /// Called on the provider's thread before a prompt starts (a change is rare: once per graphical
    /// login), so no pinentry is being spawned by this code while it sets them.
    /// - Returns: the names it set (empty when none changed or the manager does not answer).
    @discardableResult
    static func refresh(from connection: OpaquePointer) -> [String] {
        var error: UnsafeMutablePointer<GError>?
        guard
            let reply = g_dbus_connection_call_sync(
                connection, "org.freedesktop.systemd1", "/org/freedesktop/systemd1", "org.freedesktop.DBus.Properties",
                "Get",
                Variant.tuple([Variant.string("org.freedesktop.systemd1.Manager"), Variant.string("Environment")]),
                nil, G_DBUS_CALL_FLAGS_NO_AUTO_START, 1_000, nil, &error)
        else {
            if let error { g_error_free(error) }
            return []
        }
        defer { g_variant_unref(reply) }
        guard Variant.isOfType(reply, "(v)") else { return [] }
        let entries = Variant.withChild(reply, 0) { boxed -> [String] in
            guard let value = g_variant_get_variant(boxed) else { return [] }
            defer { g_variant_unref(value) }
            return Variant.isOfType(value, "as") ? Variant.readStrings(value) : []
        }
        return apply(entries)
    }

    /// Sets each of ``graphicalVariables`` that `entries` (`NAME=value` lines) holds with a non-empty
    /// value different from this process's. - Returns: the names it set.
    static func apply(_ entries: [String]) -> [String] {
        var changed: [String] = []
        for entry in entries {
            guard let equals = entry.firstIndex(of: "=") else { continue }
            let name = String(entry[..<equals])
            let value = String(entry[entry.index(after: equals)...])
            guard graphicalVariables.contains(name), !value.isEmpty else { continue }
            if let current = getenv(name).map({ String(cString: $0) }), current == value { continue }
            setenv(name, value, 1)
            changed.append(name)
        }
        return changed
    }
}
