/// The portable form of one synchronizable item, as ``SyncChange/payload`` carries it between devices
/// (docs/SYNC.md, "Payload", gives every byte):
///
/// ```
/// payload   = version (u8 = 1) ‖ kind (u8) ‖ ancestor count (u8) ‖ ancestor × count (28 bytes each)
///             ‖ record length (u32 BE) ‖ record ‖ has secret (u8: 0 or 1) [‖ secret length (u32 BE) ‖ secret]
/// kind      = 1 generic password, 2 internet password, 3 key, 4 certificate, 5 Secret Service item
/// ancestor  = SyncClock (milliseconds u64 BE ‖ counter u32 BE ‖ device 16 bytes), newest first, at most 16
/// record    = kinds 1–4: the item's attributes as an item record (docs/RECORD-FORMAT.md), access group included
///             kind 5: the item's metadata plaintext (label, attributes, dates, access list;
///             ``SecretItemCodec/encodeMetadata(_:)``), and the secret is its secret plaintext (content type
///             and value; ``SecretItemCodec/encodeSecret(_:)``), always present
/// ```
///
/// It never holds a class key, a wrapped key, the persistent reference or the item number: the receiver seals
/// what it applies under its own keys. The decoder checks every length against what remains and refuses an
/// unknown version or kind, a malformed record, trailing bytes, an item that is not synchronizable or is
/// `…ThisDeviceOnly`, and a Secret Service record that is not in its one canonical encoding. Kind 5 was added in
/// the same version: payloads of kinds 1–4 are unchanged, and a build from before it refuses kind 5 as malformed.
enum SyncPayload {
    static let version: UInt8 = 1
    /// The kind code of a Secret Service item: after the four item class codes (``ItemRow/code(_:)``).
    static let secretItemKind: UInt8 = 5

    /// A decoded payload of either kind.
    enum Decoded {
        case item(Content)
        case secretItem(SecretContent)

        /// The clocks of the versions this one descends from, newest first.
        var ancestors: [SyncClock] {
            switch self {
            case .item(let content): content.ancestors
            case .secretItem(let content): content.ancestors
            }
        }
    }

    /// A decoded Secret Service item.
    struct SecretContent {
        /// The clocks of the versions this one descends from, newest first.
        let ancestors: [SyncClock]
        /// Label, attributes, dates and access list; ``SecretItem/number`` is 0 (numbers are per device).
        let item: SecretItem
        let secret: SecretItemSecret

        /// Whether `other` holds the same item: equal label, attributes, access list, content type and secret
        /// (the dates aside).
        func sameContent(as other: SecretContent) -> Bool {
            item.label == other.item.label && item.attributes == other.item.attributes
                && item.access == other.item.access && secret.contentType == other.secret.contentType
                && secret.value.constantTimeEquals(other.secret.value)
        }
    }

    /// A decoded SecItem payload.
    struct Content {
        let itemClass: ItemClass
        /// The clocks of the versions this one descends from, newest first.
        let ancestors: [SyncClock]
        /// The attributes, normalized (``StoreSession/normalized(_:_:)``).
        let attributes: [String: AttributeValue]
        let secret: SecureBytes?

        /// The protection class of the attributes (always migratable once decoded).
        var protection: ProtectionClass { ProtectionClass(attribute: attributes[.accessible]) ?? .whenUnlocked }

        /// Whether `other` holds the same item: equal attributes apart from the dates, and equal secrets.
        func sameContent(as other: Content) -> Bool {
            var mine = attributes
            var theirs = other.attributes
            for name in [AttributeName.creationDate, .modificationDate] {
                mine.removeValue(for: name)
                theirs.removeValue(for: name)
            }
            guard itemClass == other.itemClass, mine == theirs else { return false }
            switch (secret, other.secret) {
            case (nil, nil): return true
            case (let mine?, let theirs?): return mine.constantTimeEquals(theirs)
            default: return false
            }
        }
    }

    /// Encodes an item.
    /// - Throws: `.param` when the attributes cannot be encoded as an item record.
    static func encode(
        _ itemClass: ItemClass, attributes: [String: AttributeValue], secret: SecureBytes?, ancestors: [SyncClock]
    ) throws(KeychainFailure) -> SecureBytes {
        frame(
            UInt8(ItemRow.code(itemClass)), ancestors: ancestors, record: try ItemCodec.encodeAttributes(attributes),
            secret: secret)
    }

    /// Encodes a Secret Service item (its number is not carried).
    static func encodeSecretItem(_ item: SecretItem, _ secret: SecretItemSecret, ancestors: [SyncClock]) -> SecureBytes
    {
        frame(
            secretItemKind, ancestors: ancestors, record: SecretItemCodec.encodeMetadata(item),
            secret: SecretItemCodec.encodeSecret(secret))
    }

    /// Decodes a payload of either kind.
    /// - Throws: `.decode` naming what is malformed (never its content).
    /// Whether `payload` is of a format version after this build's or of a kind it does not know: a newer build
    /// made it. Such a change is kept sealed and applied by a later build (``StoreSession/applySyncChanges(_:now:)``),
    /// never refused as malformed.
    static func isFromNewerBuild(_ payload: SecureBytes) -> Bool {
        payload.withUnsafeBytes { bytes in
            guard bytes.count >= 2 else { return false }
            if bytes[0] > version { return true }
            return bytes[0] == version && bytes[1] != secretItemKind && ItemRow.itemClass(code: Int64(bytes[1])) == nil
        }
    }

    static func decodeAny(_ payload: SecureBytes) throws(KeychainFailure) -> Decoded {
        let decoded: Decoded? = payload.withUnsafeBytes { bytes in
            var reader = ByteReader(bytes)
            guard reader.byte() == version, let kind = reader.byte(), let count = reader.byte(),
                Int(count) <= SyncSchema.maximumAncestors
            else { return nil }
            var ancestors: [SyncClock] = []
            for _ in 0..<count {
                guard let clock = reader.bytes(SyncClock.encodedSize).flatMap({ SyncClock(encoded: $0) }) else {
                    return nil
                }
                ancestors.append(clock)
            }
            guard let length = reader.bigEndian(UInt32.self), let record = reader.bytes(Int(length)),
                let flag = reader.byte(), flag <= 1
            else { return nil }
            var secret: SecureBytes?
            if flag == 1 {
                guard let count = reader.bigEndian(UInt32.self), let bytes = reader.bytes(Int(count)) else {
                    return nil
                }
                secret = SecureBytes(copying: bytes)
            }
            guard reader.isAtEnd else { return nil }
            if kind == secretItemKind {
                let record = Array(record)
                guard let item = SecretItemCodec.decodeMetadata(record, number: 0),
                    SecretItemCodec.encodeMetadata(item) == record, let plain = secret,
                    let opened = SecretItemCodec.decodeSecret(plain),
                    SecretItemCodec.encodeSecret(opened).constantTimeEquals(plain)
                else { return nil }
                return .secretItem(SecretContent(ancestors: ancestors, item: item, secret: opened))
            }
            guard let itemClass = ItemRow.itemClass(code: Int64(kind)), let decoded = ItemRecordFormat.decode(record)
            else { return nil }
            let attributes = StoreSession.normalized(itemClass, decoded)
            guard case .bool(true)? = attributes[.synchronizable],
                let protection = ProtectionClass(attribute: attributes[.accessible]), protection.isMigratable
            else { return nil }
            return .item(Content(itemClass: itemClass, ancestors: ancestors, attributes: attributes, secret: secret))
        }
        guard let decoded else { throw KeychainFailure(.decode, "a sync change's payload is malformed") }
        return decoded
    }

    /// Decodes a SecItem payload (what a conflict copy holds).
    /// - Throws: `.decode` naming what is malformed, or for a payload of another kind.
    static func decode(_ payload: SecureBytes) throws(KeychainFailure) -> Content {
        switch try decodeAny(payload) {
        case .item(let content): return content
        case .secretItem: throw KeychainFailure(.decode, "a sync change's payload is not a SecItem item")
        }
    }

    /// `version ‖ kind ‖ ancestors ‖ record ‖ secret`, as the type's documentation gives them.
    private static func frame(_ kind: UInt8, ancestors: [SyncClock], record: [UInt8], secret: SecureBytes?)
        -> SecureBytes
    {
        let clocks = SyncJournalEntry.encode(Array(ancestors.prefix(SyncSchema.maximumAncestors)))
        var header: [UInt8] = [version, kind, UInt8(clocks.count / SyncClock.encodedSize)]
        header += clocks
        header += bigEndian(UInt32(record.count))
        header += record
        header.append(secret == nil ? 0 : 1)
        if let secret { header += bigEndian(UInt32(secret.count)) }
        let secretCount = secret?.count ?? 0
        return SecureBytes(count: header.count + secretCount) { buffer in
            buffer.copyBytes(from: header)
            if let secret, secretCount > 0 {
                secret.withUnsafeBytes { bytes in
                    UnsafeMutableRawBufferPointer(rebasing: buffer[header.count...]).copyBytes(from: bytes)
                }
            }
        }
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
}
