internal import KeychainDBus

/// The application id that xdg-desktop-portal names in a Secret portal call: a Flatpak app id
/// (`org.example.App`) or, for a Snap, `snap.<name>`, as the frontend reports them.
///
/// The backend never takes the id from the caller's own words: only the portal frontend calls the
/// backend (``SecretPortal`` refuses every other connection), and the frontend reads the id from the
/// sandbox (`/.flatpak-info`, the Snap's cgroup), so a sandboxed app cannot claim another's id.
package struct PortalAppID: Hashable, Sendable, CustomStringConvertible {
    package let rawValue: String

    /// The longest id accepted, in bytes (D-Bus names and Flatpak ids are at most 255).
    package static let maximumBytes = 255

    /// Accepts an id of at most 255 bytes made of dot-separated, non-empty elements of
    /// `[A-Za-z0-9_-]` (Flatpak's app id rules, which also cover `snap.<name>`); `nil` for anything else,
    /// the empty id of an unsandboxed caller included (it has no portal secret: it uses the Secret
    /// Service directly).
    package init?(_ rawValue: String) {
        let bytes = Array(rawValue.utf8)
        guard !bytes.isEmpty, bytes.count <= Self.maximumBytes else { return nil }
        var elementLength = 0
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                guard elementLength > 0 else { return nil }
                elementLength = 0
                continue
            }
            guard isPathElementByte(byte) || byte == UInt8(ascii: "-") else { return nil }
            elementLength += 1
        }
        guard elementLength > 0 else { return nil }
        self.rawValue = rawValue
    }

    /// The access group the app's items belong to: `snap:<name>` for `snap.<name>`, `flatpak:<id>`
    /// for every other id (the design brief's names, shared with caller identity).
    package var accessGroup: String {
        if rawValue.hasPrefix("snap."), rawValue.utf8.count > 5 { return "snap:" + rawValue.dropFirst(5) }
        return "flatpak:" + rawValue
    }

    package var description: String { rawValue }
}
