/// The applications trusted to read a SecItem item's secret without asking, as macOS's
/// `security add-generic-password -T appPath` sets them (issue 27): the named entry `tapp` of the
/// item record, sealed with the item's other attributes, so that a changed list fails the item's
/// authentication (docs/RECORD-FORMAT.md, "Trusted applications").
///
/// An item without the entry (every item made before this, or with `-A`) has no list and is read by
/// any process, as before. An item with an empty list (`-T ""`) trusts no application: every read asks.
/// A process whose identity (``CallerIdentity/current``) is not on the list is asked through the
/// prompter when it releases the secret (``ItemGateway``'s releasing search); "Always Allow" adds it.
///
/// - Important: every reader opens the store in its own process, so the check is made by the reading
///   program itself: it restrains cooperating, unmodified programs (the library and its tools), not a
///   hostile program of the same user, which can read the keychain files and skip the check
///   (docs/SECURITY.md).
package struct TrustedApplications: Sendable, Equatable {
    /// The identities (``CallerIdentity/string``), in the order they were added, each once.
    package private(set) var identities: [String]

    /// A list of `identities` (duplicates kept once, in first-seen order).
    package init(_ identities: [String]) {
        self.identities = []
        for identity in identities { add(identity) }
    }

    /// Whether `identity` may read without asking.
    package func trusts(_ identity: String) -> Bool { identities.contains(identity) }

    /// Adds `identity` (the "Always Allow" answer); no change when it is there, is empty or is longer
    /// than a length field holds (65 535 bytes; no identity is: paths end at `PATH_MAX`).
    package mutating func add(_ identity: String) {
        guard !identity.isEmpty, identity.utf8.count <= 0xFFFF, identities.count < Self.maximumCount else { return }
        if !identities.contains(identity) { identities.append(identity) }
    }

    /// Removes `identity`.
    /// - Returns: whether it was on the list.
    package mutating func remove(_ identity: String) -> Bool {
        guard let index = identities.firstIndex(of: identity) else { return false }
        identities.remove(at: index)
        return true
    }

    // MARK: - Encoding

    /// The entry's value: version `0x01`, a big-endian u16 count, then per identity a big-endian u16
    /// length and that many bytes of UTF-8 (docs/RECORD-FORMAT.md).
    package var encoded: [UInt8] {
        var bytes: [UInt8] = [Self.version]
        bytes += [UInt8(identities.count >> 8), UInt8(identities.count & 0xFF)]
        for identity in identities {
            let utf8 = Array(identity.utf8)
            bytes += [UInt8(utf8.count >> 8), UInt8(utf8.count & 0xFF)] + utf8
        }
        return bytes
    }

    /// Decodes ``encoded``.
    /// - Returns: `nil` for a version other than 1, a length past the end, bytes after the last identity,
    ///   an empty identity, one that is not UTF-8, or one listed twice.
    package init?(encoded bytes: [UInt8]) {
        guard bytes.count >= 3, bytes[0] == Self.version else { return nil }
        let count = Int(bytes[1]) << 8 | Int(bytes[2])
        var offset = 3
        var identities: [String] = []
        for _ in 0..<count {
            guard offset + 2 <= bytes.count else { return nil }
            let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            offset += 2
            guard length > 0, offset + length <= bytes.count,
                let identity = String(validating: bytes[offset..<(offset + length)], as: UTF8.self),
                !identities.contains(identity)
            else { return nil }
            identities.append(identity)
            offset += length
        }
        guard offset == bytes.count else { return nil }
        self.identities = identities
    }

    /// The list an item's attributes hold.
    /// - Returns: `.absent` (no list: any application), `.present` with the list, or `.malformed` when
    ///   the entry is not a valid list (the item is then refused as `errSecDecode`).
    package static func of(_ attributes: [String: AttributeValue]) -> Lookup {
        guard let value = attributes[AttributeName.trustedApplications] else { return .absent }
        guard case .data(let data) = value, let list = TrustedApplications(encoded: data) else { return .malformed }
        return .present(list)
    }

    /// What an item's attributes say about its list.
    package enum Lookup: Sendable, Equatable {
        case absent
        case present(TrustedApplications)
        case malformed
    }

    private static let version: UInt8 = 1
    /// The most identities a list holds (its count field's range).
    package static let maximumCount = 0xFFFF
}

extension AttributeName {
    /// The trusted-application list (``TrustedApplications``): a named entry of the item record, not an
    /// Apple attribute (SecItem refuses it as `errSecNoSuchAttr`; only the gateway and `security` set it).
    package static let trustedApplications: AttributeName = "tapp"
}
