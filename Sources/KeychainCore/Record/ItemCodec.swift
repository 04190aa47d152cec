/// What the index key computes for items, and the attributes' encoding inside the seal.
///
/// The keyed digests of the indexed columns (``Digests``) and of the primary key, the row tag
/// (``rowTag(_:)``), and the attributes as an item record (``encodeAttributes(_:)``). Sealing and
/// opening rows, their associated data and the tag's column order belong to ``ItemRow``.
struct ItemCodec {
    let keychainID: [UInt8]
    let indexKey: IndexKey

    /// The digest columns of an item.
    struct Digests: Equatable {
        var accessGroup: [UInt8]
        var primaryKey: [UInt8]
        var account: [UInt8]
        /// ``ItemCodec/nameAttribute(_:)``: `svce`, `srvr`, `klbl` or `issr`.
        var name: [UInt8]
    }

    /// The attribute whose digest is in the `name` column: the service, the server, a key's
    /// application label (what identities join on), a certificate's issuer.
    static func nameAttribute(_ itemClass: ItemClass) -> AttributeName {
        switch itemClass {
        case .genericPassword: .service
        case .internetPassword: .server
        case .key: .applicationLabel
        case .certificate: .issuer
        }
    }

    /// The attribute whose digest is in the `acct` column: the account, a key's application tag, a
    /// certificate's serial number.
    static func accountAttribute(_ itemClass: ItemClass) -> AttributeName {
        switch itemClass {
        case .genericPassword, .internetPassword: .account
        case .key: .applicationTag
        case .certificate: .serialNumber
        }
    }

    /// Access-group digests already computed: a process uses a handful of groups, and every search,
    /// add and update digests them again (3.4k instructions each; callgrind, keychain-bench read.data).
    let groupDigests = GroupDigestMemo()

    /// 16-byte keyed digest of one attribute value, for the indexed columns.
    func digest(_ attribute: AttributeName, _ value: AttributeValue) -> [UInt8] {
        if attribute == .accessGroup, case .string(let group) = value {
            if let known = groupDigests.digests[group] { return known }
            let digest = computeDigest(attribute, value)
            groupDigests.remember(group, digest)
            return digest
        }
        return computeDigest(attribute, value)
    }

    private func computeDigest(_ attribute: AttributeName, _ value: AttributeValue) -> [UInt8] {
        // The message `name ‖ 0 ‖ match bytes` is written in a temporary buffer (on the stack when small):
        // no array allocated, grown by appends and released per digest (about 600 instructions of the 3.6k
        // a digest took; issue 29).
        var name = attribute.rawValue
        let nameCount = name.utf8.count
        return withUnsafeTemporaryAllocation(byteCount: nameCount + 1 + value.matchByteCount, alignment: 1) {
            message in
            name.withUTF8 { message.copyMemory(from: UnsafeRawBufferPointer($0)) }
            message[nameCount] = 0
            value.writeMatchBytes(to: UnsafeMutableRawBufferPointer(rebasing: message[(nameCount + 1)...]))
            return Sodium.keyedHash(UnsafeRawBufferPointer(message), key: indexKey.bytes, length: 16)
        }
    }

    /// 32-byte keyed digest of the class and its whole primary key, in schema order.
    func primaryKeyDigest(_ itemClass: ItemClass, _ attributes: [String: AttributeValue]) -> [UInt8] {
        var message: [UInt8] = []
        message.reserveCapacity(128)
        message.append(contentsOf: itemClass.rawValue.utf8)
        for descriptor in itemClass.primaryKey {
            let value = attributes[descriptor.name] ?? descriptor.defaultValue
            message.append(contentsOf: descriptor.name.utf8)
            withUnsafeBytes(of: UInt32(value.matchByteCount).bigEndian) { message.append(contentsOf: $0) }
            value.appendMatchBytes(to: &message)
        }
        return Sodium.keyedHash(message, key: indexKey.bytes, length: 32)
    }

    func digests(_ itemClass: ItemClass, _ attributes: [String: AttributeValue]) -> Digests {
        let name = Self.nameAttribute(itemClass)
        let account = Self.accountAttribute(itemClass)
        return Digests(
            accessGroup: digest(.accessGroup, attributes[.accessGroup] ?? .string("")),
            primaryKey: primaryKeyDigest(itemClass, attributes),
            account: digest(account, attributes[account] ?? .string("")),
            name: digest(name, attributes[name] ?? .string("")))
    }

    /// 32-byte keyed tag of a whole row as stored, for the accumulator: `columns` are
    /// ``ItemRow/taggedValues`` (every column but rowid and tag, in ``ItemRow/taggedColumns`` order).
    /// The shared row tag (``RowTag``) under the index key.
    func rowTag(_ columns: [SQLValue]) -> [UInt8] {
        RowTag.tag(label: Self.rowLabel, key: indexKey.bytes, columns: columns)
    }

    static let rowLabel: [UInt8] = Array("swkc.row.v1".utf8)

    /// The attributes as an item record (``ItemRecordFormat``, `docs/RECORD-FORMAT.md`).
    /// - Throws: `.param` when they cannot be encoded (more than 255 attributes, or a value of 4 GiB).
    static func encodeAttributes(_ attributes: [String: AttributeValue]) throws(KeychainFailure) -> [UInt8] {
        guard let record = ItemRecordFormat.encode(attributes) else {
            throw KeychainFailure(.param, "an item's attributes are too many or too large to store")
        }
        return record
    }

    /// The attributes of an item record, or of a legacy binary property list (what builds before the
    /// record format sealed, and backups they made), or `nil` when `bytes` is neither.
    static func decodeAttributes(_ bytes: [UInt8]) -> [String: AttributeValue]? {
        if ItemRecordFormat.isRecord(bytes) { return ItemRecordFormat.decode(bytes) }
        return decodeLegacyAttributes(bytes)
    }

    /// The access control (`accc`) of a sealed attributes record, without decoding the rest of an item
    /// record (a legacy property list is decoded whole).
    /// - Returns: ``AttributeLookup/present(_:)`` with it, ``AttributeLookup/absent`` when the item has none,
    ///   ``AttributeLookup/malformed`` when `bytes` is not well-formed.
    static func accessControl(_ bytes: [UInt8]) -> AttributeLookup {
        if ItemRecordFormat.isRecord(bytes) { return ItemRecordFormat.value(number: accessControlNumber, in: bytes) }
        guard let attributes = decodeLegacyAttributes(bytes) else { return .malformed }
        return AttributeLookup(attributes[.accessControl])
    }

    /// The access control (`accc`) and the trusted-application list (`tapp`, ``TrustedApplications``) of a
    /// sealed attributes record, in one pass and without decoding the rest (a legacy property list is
    /// decoded whole): what a releasing search needs of an item it does not return the attributes of.
    /// - Returns: each as ``accessControl(_:)`` returns it.
    static func accessEntries(_ bytes: [UInt8]) -> (accessControl: AttributeLookup, trusted: AttributeLookup) {
        if ItemRecordFormat.isRecord(bytes) {
            let found = ItemRecordFormat.values(
                number: accessControlNumber, name: AttributeName.trustedApplications.rawValue, in: bytes)
            return (found.number, found.named)
        }
        guard let attributes = decodeLegacyAttributes(bytes) else { return (.malformed, .malformed) }
        return (AttributeLookup(attributes[.accessControl]), AttributeLookup(attributes[.trustedApplications]))
    }

    /// The item record's number for `accc`.
    static let accessControlNumber = UInt8(ItemRecordFormat.attributeNames.firstIndex(of: .accessControl)!)

    /// Whether `bytes` is a legacy binary property list (`bplist00`) rather than an item record.
    static func isLegacyAttributes(_ bytes: [UInt8]) -> Bool { bytes.starts(with: legacyMagic) }

    static let legacyMagic: [UInt8] = Array("bplist00".utf8)

    /// Attributes sealed by builds before the record format: a binary property list of
    /// `[String: AttributeValue]` written by Foundation's `PropertyListEncoder` (a dictionary of
    /// one-key dictionaries `s` string, `d` data, `i` integer, `b` boolean, `t` date), read with libplist
    /// (``PropertyList``) only while old rows are converted and old backups restored.
    ///
    /// Each value is read as `AttributeValue`'s `Decodable` conformance read it with Foundation's
    /// `PropertyListDecoder` (tracker issue 23): the first of `s`, `d`, `i`, `b`, `t` present decides,
    /// and must have its type; other keys are ignored; a value with none of them is malformed. A date
    /// is the exact double the list holds, seconds since 2001-01-01 (`CFAbsoluteTime`).
    /// - Returns: the attributes, or `nil` when `bytes` is not such a list (not `bplist00`, truncated,
    ///   or any value malformed).
    /// - Important: when libplist (Debian libplist3, a dependency of the package) is not installed, the
    ///   process stops here with a message saying so, as it stops when libcrypto is missing: a legacy
    ///   item it cannot read must not pass for a damaged one.
    static func decodeLegacyAttributes(_ bytes: [UInt8]) -> [String: AttributeValue]? {
        guard isLegacyAttributes(bytes) else { return nil }
        let list: PropertyList
        do {
            list = try PropertyList(parsing: bytes)
        } catch {
            guard case .libraryMissing(let reason) = error else { return nil }
            fatalError(
                "libplist (Debian libplist3) is not installed: it is needed to read items written before the item record format: \(reason)"
            )
        }
        guard let entries = list.rootNode.entries else { return nil }
        var attributes: [String: AttributeValue] = [:]
        for (name, node) in entries {
            guard let value = legacyValue(node) else { return nil }
            attributes[name] = value
        }
        return attributes
    }

    /// One legacy value: `{s: string}`, `{d: data}`, `{i: integer}`, `{b: boolean}` or `{t: date}`.
    private static func legacyValue(_ node: PropertyList.Node) -> AttributeValue? {
        guard node.entries != nil else { return nil }
        if let value = node.value(forKey: "s") { return value.string.map { .string($0) } }
        if let value = node.value(forKey: "d") { return value.bytes.map { .data($0) } }
        if let value = node.value(forKey: "i") { return value.integer.map { .integer($0) } }
        if let value = node.value(forKey: "b") { return value.bool.map { .bool($0) } }
        if let value = node.value(forKey: "t") {
            return value.secondsSinceReferenceDate.map { .date(AbsoluteTime(secondsSinceReferenceDate: $0)) }
        }
        return nil
    }
}

/// The access-group digests of one ``ItemCodec`` (its index key never changes), at most 64.
/// Not `Sendable`: it lives inside the session's codec, under the keystore's mutex.
final class GroupDigestMemo {
    private(set) var digests: [String: [UInt8]] = [:]

    func remember(_ group: String, _ digest: [UInt8]) {
        if digests.count >= 64 { digests.removeAll(keepingCapacity: true) }
        digests[group] = digest
    }
}
