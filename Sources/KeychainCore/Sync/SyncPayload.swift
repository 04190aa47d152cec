/// The portable form of one synchronizable item, as ``SyncChange/payload`` carries it between devices
/// (docs/SYNC.md, "Payload", gives every byte):
///
/// ```
/// payload   = version (u8 = 1) ‖ class (u8) ‖ ancestor count (u8) ‖ ancestor × count (28 bytes each)
///             ‖ record length (u32 BE) ‖ record ‖ has secret (u8: 0 or 1) [‖ secret length (u32 BE) ‖ secret]
/// class     = 1 generic password, 2 internet password, 3 key, 4 certificate
/// ancestor  = SyncClock (milliseconds u64 BE ‖ counter u32 BE ‖ device 16 bytes), newest first, at most 16
/// record    = the item's attributes as an item record (docs/RECORD-FORMAT.md), access group included
/// ```
///
/// It never holds a class key, a wrapped key or the persistent reference: the receiver seals what it applies
/// under its own keys. The decoder checks every length against what remains and refuses an unknown version or
/// class, a malformed record, trailing bytes, and an item that is not synchronizable or is `…ThisDeviceOnly`.
enum SyncPayload {
    static let version: UInt8 = 1

    /// A decoded payload.
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
        let record = try ItemCodec.encodeAttributes(attributes)
        let clocks = SyncJournalEntry.encode(Array(ancestors.prefix(SyncSchema.maximumAncestors)))
        var header: [UInt8] = [version, UInt8(ItemRow.code(itemClass)), UInt8(clocks.count / SyncClock.encodedSize)]
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

    /// Decodes a payload.
    /// - Throws: `.decode` naming what is malformed (never its content).
    static func decode(_ payload: SecureBytes) throws(KeychainFailure) -> Content {
        let content: Content? = payload.withUnsafeBytes { bytes in
            var reader = ByteReader(bytes)
            guard reader.byte() == version, let code = reader.byte(),
                let itemClass = ItemRow.itemClass(code: Int64(code)),
                let count = reader.byte(), Int(count) <= SyncSchema.maximumAncestors
            else { return nil }
            var ancestors: [SyncClock] = []
            for _ in 0..<count {
                guard let clock = reader.bytes(SyncClock.encodedSize).flatMap({ SyncClock(encoded: $0) }) else {
                    return nil
                }
                ancestors.append(clock)
            }
            guard let length = reader.bigEndian(UInt32.self), let record = reader.bytes(Int(length)),
                let decoded = ItemRecordFormat.decode(record), let flag = reader.byte(), flag <= 1
            else { return nil }
            var secret: SecureBytes?
            if flag == 1 {
                guard let count = reader.bigEndian(UInt32.self), let bytes = reader.bytes(Int(count)) else {
                    return nil
                }
                secret = SecureBytes(copying: bytes)
            }
            guard reader.isAtEnd else { return nil }
            let attributes = StoreSession.normalized(itemClass, decoded)
            guard case .bool(true)? = attributes[.synchronizable],
                let protection = ProtectionClass(attribute: attributes[.accessible]), protection.isMigratable
            else { return nil }
            return Content(itemClass: itemClass, ancestors: ancestors, attributes: attributes, secret: secret)
        }
        guard let content else { throw KeychainFailure(.decode, "a sync change's payload is malformed") }
        return content
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
}
