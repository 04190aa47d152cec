/// A freedesktop Secret Service item's metadata, as stored in a keychain file: everything but the
/// secret. Readable while the keychain is locked (see ``SecretItemCodec``).
///
/// Secret Service API, "Collections and Items": an item has a label, a map of string attributes and
/// created/modified times; its object path names it for its whole life, here by ``number``.
package struct SecretItem: Sendable, Equatable {
    /// The item's number in its keychain: assigned on creation, never changed and never reused
    /// (SQLite `AUTOINCREMENT`), so object paths made from it survive restarts and other processes.
    package let number: Int64
    /// `Label`.
    package var label: String
    /// `Attributes`: exact, case-sensitive names and values.
    package var attributes: [String: String]
    /// `Created`, seconds since the Unix epoch.
    package var created: UInt64
    /// `Modified`, seconds since the Unix epoch.
    package var modified: UInt64
    /// Who may use the secret without asking; `nil` for an item made before access lists.
    package var access: SecretItemAccess?

    package init(
        number: Int64, label: String, attributes: [String: String], created: UInt64, modified: UInt64,
        access: SecretItemAccess? = nil
    ) {
        self.number = number
        self.label = label
        self.attributes = attributes
        self.created = created
        self.modified = modified
        self.access = access
    }
}

/// A Secret Service item's secret and its content type (the `value` and `content_type` of the spec's
/// Secret struct). The value stays in zeroising memory.
package struct SecretItemSecret: Sendable {
    /// The secret's bytes.
    package var value: SecureBytes
    /// A MIME type such as `text/plain; charset=utf8`; may be empty; at most 255 bytes.
    package var contentType: String

    package init(value: SecureBytes, contentType: String) {
        self.value = value
        self.contentType = contentType
    }
}

/// What changed in a keychain's Secret Service items since a serial number (``Keystore/secretItemChanges(after:)``).
package struct SecretItemChanges: Sendable, Equatable {
    /// Items written (created or changed) after the serial given, with the serial of their last write.
    package var written: [(number: Int64, serial: Int64)]
    /// The serial of the keychain's latest Secret Service write (0 when there was none).
    package var latestSerial: Int64

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.latestSerial == rhs.latestSerial && lhs.written.map(\.number) == rhs.written.map(\.number)
            && lhs.written.map(\.serial) == rhs.written.map(\.serial)
    }
}
