/// The plaintext of the messages in a backup's secretstream (docs/BACKUP-FORMAT.md).
///
/// Every message starts with a kind byte:
/// - `1` begin: `created (i64 BE, Unix seconds) ‖ device check (16)`; the first message, whose
///   associated data is the file header.
/// - `2` item: `class (u8) ‖ protection (u8) ‖ body`, for migratable items.
/// - `3` device-bound item: `class (u8) ‖ protection (u8) ‖ box`, for ThisDeviceOnly items; `box` is
///   XChaCha20-Poly1305 (`Sodium.seal`) of `body` under the device-binding key, with associated data
///   `"swkc.backup.device.v1" ‖ 3 ‖ class ‖ protection`.
/// - `4` end: `items ‖ migratable ‖ device-bound ‖ excluded` (four u64 BE), and from version 3
///   `‖ secret-service` (a fifth); the last message, tagged FINAL.
/// - `5` Secret Service item (version 3): `created (u64) ‖ modified (u64) ‖ label ‖ attribute count (u32) ‖
///   (name ‖ value)… ‖ content type length (u8) ‖ content type ‖ secret length (u32) ‖ secret`, where each
///   string is `length (u32) ‖ UTF-8` and the pairs are in ascending name order, names distinct.
/// - `6` collection (version 3): `label` (a string as above), the keychain's Secret Service collection
///   label; at most one.
/// - `7` sync identity (version 4): `item id (16) ‖ clock (28) ‖ ancestor count (u8, at most 16) ‖ ancestors
///   (28 each)`, the journal entry (``SyncJournalEntry``) of the kind 2 or 5 record right before it, so that a
///   restored item is the same item on every device of its sync group.
///
/// `body` = `ref length (u8) ‖ persistent ref ‖ attributes length (u32 BE) ‖ attributes ‖ secret length (u32 BE) ‖ secret`,
/// where `attributes` is the binary property list the engine itself seals items with (``ItemCodec``).
/// Item messages are built in and opened into `sodium_malloc` memory, so secrets never sit in Swift arrays.
enum BackupMessage {
    enum Kind: UInt8 {
        case begin = 1
        case item = 2
        case deviceBound = 3
        case end = 4
        case secretItem = 5
        case collection = 6
        case syncIdentity = 7
    }

    /// An item's sync identity (kind 7): its id in the sync group and the version it held.
    struct SyncIdentity: Equatable {
        var item: SyncItemID
        var clock: SyncClock
        /// Newest first, at most ``SyncSchema/maximumAncestors``.
        var ancestors: [SyncClock]
    }

    /// The item counts the end message carries.
    struct Counts: Equatable {
        var items: UInt64 = 0
        var migratable: UInt64 = 0
        var deviceBound: UInt64 = 0
        /// WhenPasscodeSetThisDeviceOnly items left out of the backup.
        var excluded: UInt64 = 0
        /// Secret Service items (kind 5; version 3 on). ``items`` counts them too.
        var secretService: UInt64 = 0
    }

    /// A decoded message.
    enum Parsed {
        case begin(deviceCheck: [UInt8])
        case item(StoredItem)
        case deviceBound(ItemClass, ProtectionClass, box: [UInt8])
        case end(Counts)
        /// A Secret Service item: its metadata (``SecretItem/number`` is 0, it has no number outside a
        /// keychain) and its secret.
        case secretItem(SecretItem, SecretItemSecret)
        /// The keychain's Secret Service collection label.
        case collection(label: String)
        /// The sync identity of the item record before it.
        case syncIdentity(SyncIdentity)
    }

    static let deviceBindingContext = Array("swkc.backup.device.v1".utf8)

    // MARK: - Building

    static func begin(created: AbsoluteTime, deviceCheck: [UInt8]) -> [UInt8] {
        [Kind.begin.rawValue] + BackupHeader.bigEndian(Int64(created.secondsSince1970)) + deviceCheck
    }

    /// The end message of a current-version backup (five counts).
    static func end(_ counts: Counts) -> [UInt8] {
        [Kind.end.rawValue] + BackupHeader.bigEndian(counts.items) + BackupHeader.bigEndian(counts.migratable)
            + BackupHeader.bigEndian(counts.deviceBound) + BackupHeader.bigEndian(counts.excluded)
            + BackupHeader.bigEndian(counts.secretService)
    }

    /// The collection message: the keychain's Secret Service collection label.
    static func collection(label: String) -> [UInt8] {
        var message = [Kind.collection.rawValue]
        appendString(label, to: &message)
        return message
    }

    /// A Secret Service item's message, in protected memory.
    static func secretItem(_ item: SecretItem, _ secret: SecretItemSecret) -> SecureBytes {
        var metadata = [Kind.secretItem.rawValue]
        metadata += BackupHeader.bigEndian(item.created) + BackupHeader.bigEndian(item.modified)
        appendString(item.label, to: &metadata)
        metadata += BackupHeader.bigEndian(UInt32(item.attributes.count))
        for name in item.attributes.keys.sorted() {
            appendString(name, to: &metadata)
            appendString(item.attributes[name] ?? "", to: &metadata)
        }
        let contentType = Array(secret.contentType.utf8.prefix(Int(UInt8.max)))
        metadata += [UInt8(contentType.count)] + contentType
        let value = secret.value
        metadata += BackupHeader.bigEndian(UInt32(value.count))
        return SecureBytes(count: metadata.count + value.count) { out in
            metadata.withUnsafeBytes {
                UnsafeMutableRawBufferPointer(rebasing: out[0..<metadata.count]).copyMemory(from: $0)
            }
            value.withUnsafeBytes { bytes in
                guard bytes.count > 0 else { return }
                UnsafeMutableRawBufferPointer(rebasing: out[metadata.count...]).copyMemory(from: bytes)
            }
        }
    }

    /// The sync identity message of the item record written right before it.
    static func syncIdentity(_ identity: SyncIdentity) -> [UInt8] {
        var message = [Kind.syncIdentity.rawValue] + identity.item.bytes + identity.clock.encoded
        let ancestors = identity.ancestors.prefix(SyncSchema.maximumAncestors)
        message.append(UInt8(ancestors.count))
        for clock in ancestors { message += clock.encoded }
        return message
    }

    private static func appendString(_ string: String, to bytes: inout [UInt8]) {
        bytes += BackupHeader.bigEndian(UInt32(string.utf8.count))
        bytes += string.utf8
    }

    /// A migratable item's message.
    /// - Throws: `.param` when the attributes cannot be encoded (``ItemCodec/encodeAttributes(_:)``).
    static func item(_ record: StoredItem) throws(KeychainFailure) -> SecureBytes {
        try body(
            record, prefix: [Kind.item.rawValue, UInt8(ItemRow.code(record.itemClass)), UInt8(record.protection.code)])
    }

    /// A ThisDeviceOnly item's message: its body sealed under the device-binding key.
    /// - Throws: `.param` when the attributes cannot be encoded (``ItemCodec/encodeAttributes(_:)``).
    static func deviceBound(_ record: StoredItem, bindingKey: SecureBytes) throws(KeychainFailure) -> [UInt8] {
        let prefix = [Kind.deviceBound.rawValue, UInt8(ItemRow.code(record.itemClass)), UInt8(record.protection.code)]
        let box = Sodium.seal(
            try body(record, prefix: []), key: bindingKey, associatedData: deviceBindingContext + prefix)
        return prefix + box
    }

    /// `prefix ‖ body` in protected memory.
    private static func body(_ record: StoredItem, prefix: [UInt8]) throws(KeychainFailure) -> SecureBytes {
        let reference = Array(record.persistentRef)
        let attributes = try ItemCodec.encodeAttributes(record.attributes)
        let secretCount = record.secret?.count ?? 0
        let count = prefix.count + 1 + reference.count + 4 + attributes.count + 4 + secretCount
        return SecureBytes(count: count) { out in
            var offset = 0
            func put(_ bytes: UnsafeRawBufferPointer) {
                guard bytes.count > 0 else { return }
                UnsafeMutableRawBufferPointer(rebasing: out[offset..<(offset + bytes.count)]).copyMemory(from: bytes)
                offset += bytes.count
            }
            func put(_ bytes: [UInt8]) { bytes.withUnsafeBytes { put($0) } }
            put(prefix)
            put([UInt8(reference.count)])
            put(reference)
            put(BackupHeader.bigEndian(UInt32(attributes.count)))
            put(attributes)
            put(BackupHeader.bigEndian(UInt32(secretCount)))
            record.secret?.withUnsafeBytes { put($0) }
        }
    }

    // MARK: - Parsing

    /// Decodes one message's plaintext, as the backup's format `version` defines it.
    /// - Throws: `.decode` when it is malformed, or is a kind `version` does not have.
    static func parse(_ plaintext: SecureBytes, version: UInt16) throws(KeychainFailure) -> Parsed {
        try plaintext.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws(KeychainFailure) -> Parsed in
            var reader = ByteReader(bytes)
            guard let kind = Kind(rawValue: try reader.read(UInt8.self)) else { throw malformed }
            let hasSecretService = version >= BackupHeader.secretServiceVersion
            switch kind {
            case .begin:
                _ = try reader.read(Int64.self)
                let check = try reader.readBytes(16)
                try reader.expectEnd()
                return .begin(deviceCheck: check)
            case .end:
                var counts = Counts(
                    items: try reader.read(UInt64.self), migratable: try reader.read(UInt64.self),
                    deviceBound: try reader.read(UInt64.self), excluded: try reader.read(UInt64.self))
                if hasSecretService { counts.secretService = try reader.read(UInt64.self) }
                try reader.expectEnd()
                return .end(counts)
            case .secretItem:
                guard hasSecretService else { throw malformed }
                return try parseSecretItem(&reader)
            case .collection:
                guard hasSecretService else { throw malformed }
                let label = try reader.readString()
                try reader.expectEnd()
                return .collection(label: label)
            case .syncIdentity:
                guard version >= BackupHeader.syncIdentityVersion else { throw malformed }
                return .syncIdentity(try parseSyncIdentity(&reader))
            case .item:
                let (itemClass, protection) = try classes(&reader)
                guard protection.isMigratable else { throw malformed }
                return .item(try parseBody(&reader, itemClass, protection))
            case .deviceBound:
                let (itemClass, protection) = try classes(&reader)
                guard !protection.isMigratable else { throw malformed }
                return .deviceBound(itemClass, protection, box: try reader.readBytes(reader.remaining))
            }
        }
    }

    /// Opens a device-bound item with this installation's binding key.
    /// - Returns: `nil` when the box does not open (another installation's backup).
    static func openDeviceBound(
        _ itemClass: ItemClass, _ protection: ProtectionClass, box: [UInt8], bindingKey: SecureBytes
    ) throws(KeychainFailure) -> StoredItem? {
        let prefix = [Kind.deviceBound.rawValue, UInt8(ItemRow.code(itemClass)), UInt8(protection.code)]
        guard let body = Sodium.openSecret(box, key: bindingKey, associatedData: deviceBindingContext + prefix) else {
            return nil
        }
        return try body.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws(KeychainFailure) -> StoredItem in
            var reader = ByteReader(bytes)
            return try parseBody(&reader, itemClass, protection)
        }
    }

    private static var malformed: KeychainFailure {
        KeychainFailure(.decode, "the backup holds a malformed record")
    }

    private static func parseSyncIdentity(_ reader: inout ByteReader) throws(KeychainFailure) -> SyncIdentity {
        guard let item = SyncItemID(bytes: try reader.readBytes(SyncItemID.byteCount)),
            let clock = SyncClock(encoded: try reader.readBytes(SyncClock.encodedSize))
        else { throw malformed }
        let count = Int(try reader.read(UInt8.self))
        guard count <= SyncSchema.maximumAncestors else { throw malformed }
        var ancestors: [SyncClock] = []
        for _ in 0..<count {
            guard let ancestor = SyncClock(encoded: try reader.readBytes(SyncClock.encodedSize)) else {
                throw malformed
            }
            ancestors.append(ancestor)
        }
        try reader.expectEnd()
        return SyncIdentity(item: item, clock: clock, ancestors: ancestors)
    }

    private static func parseSecretItem(_ reader: inout ByteReader) throws(KeychainFailure) -> Parsed {
        let created = try reader.read(UInt64.self)
        let modified = try reader.read(UInt64.self)
        let label = try reader.readString()
        let count = Int(try reader.read(UInt32.self))
        // Each pair takes at least 8 bytes: a count beyond that is a damaged record, not an allocation.
        guard count <= reader.remaining / 8 else { throw malformed }
        var attributes: [String: String] = [:]
        var previous: String?
        for _ in 0..<count {
            let name = try reader.readString()
            // Ascending and distinct: one encoding per item, and no pair silently dropped.
            if let previous, !(previous < name) { throw malformed }
            attributes[name] = try reader.readString()
            previous = name
        }
        let contentTypeBytes = try reader.readBytes(Int(try reader.read(UInt8.self)))
        guard let contentType = String(validating: contentTypeBytes, as: UTF8.self) else { throw malformed }
        let value = try reader.readSecret(Int(try reader.read(UInt32.self)))
        try reader.expectEnd()
        return .secretItem(
            SecretItem(number: 0, label: label, attributes: attributes, created: created, modified: modified),
            SecretItemSecret(value: value, contentType: contentType))
    }

    private static func classes(_ reader: inout ByteReader) throws(KeychainFailure) -> (ItemClass, ProtectionClass) {
        guard let itemClass = ItemRow.itemClass(code: Int64(try reader.read(UInt8.self))),
            let protection = ProtectionClass(code: Int64(try reader.read(UInt8.self)))
        else { throw malformed }
        return (itemClass, protection)
    }

    private static func parseBody(
        _ reader: inout ByteReader, _ itemClass: ItemClass, _ protection: ProtectionClass
    ) throws(KeychainFailure) -> StoredItem {
        let reference = try reader.readBytes(Int(try reader.read(UInt8.self)))
        let attributeBytes = try reader.readBytes(Int(try reader.read(UInt32.self)))
        guard let attributes = ItemCodec.decodeAttributes(attributeBytes),
            case .string(let raw)? = attributes[.accessible], raw == protection.rawValue
        else { throw malformed }
        let secret = try reader.readSecret(Int(try reader.read(UInt32.self)))
        try reader.expectEnd()
        return StoredItem(itemClass: itemClass, attributes: attributes, persistentRef: reference, secret: secret)
    }
}

/// Reading a message's plaintext (``ByteReader``), every shortfall a `.decode` failure.
extension ByteReader {
    private static var short: KeychainFailure { KeychainFailure(.decode, "the backup holds a truncated record") }

    fileprivate mutating func read<T: FixedWidthInteger>(_: T.Type) throws(KeychainFailure) -> T {
        guard let value = bigEndian(T.self) else { throw Self.short }
        return value
    }

    fileprivate mutating func readBytes(_ count: Int) throws(KeychainFailure) -> [UInt8] {
        guard let bytes = bytes(count) else { throw Self.short }
        return Array(bytes)
    }

    /// A `length (u32) ‖ UTF-8` string. - Throws: `.decode` when it is short or not UTF-8.
    fileprivate mutating func readString() throws(KeychainFailure) -> String {
        guard let length = bigEndian(UInt32.self), let bytes = bytes(Int(length)) else { throw Self.short }
        guard let string = Self.string(bytes) else {
            throw KeychainFailure(.decode, "the backup holds a record with text that is not UTF-8")
        }
        return string
    }

    /// Copies `count` bytes into protected memory without passing through a Swift array.
    fileprivate mutating func readSecret(_ count: Int) throws(KeychainFailure) -> SecureBytes {
        guard let bytes = bytes(count) else { throw Self.short }
        return SecureBytes(copying: bytes)
    }

    fileprivate func expectEnd() throws(KeychainFailure) {
        guard isAtEnd else { throw KeychainFailure(.decode, "the backup holds a record with trailing bytes") }
    }
}
