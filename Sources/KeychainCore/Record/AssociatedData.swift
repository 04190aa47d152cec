/// The associated data that binds a sealed row's ciphertexts to their row, built from named parts for
/// every item kind (``RowKind``): a domain label, the ``SealedPart``, the keychain id, then the kind's
/// identity fields in a fixed order. Editing an identity column, or moving a ciphertext to another row,
/// part or keychain, then fails authentication.
///
/// The bytes are fixed by the keychains already on disk (`docs/RECORD-FORMAT.md`, "Associated data";
/// the golden test opens committed files): `label ‖ part (u8) ‖ keychain id ‖ fields`, each field as
/// ``Field`` says. A caller opening several parts of one row builds the data once and moves it to
/// another part with ``relabel(_:_:as:)``, never by writing at an offset itself.
enum AssociatedData {
    /// Whose row the data binds: each domain has its own label, so no ciphertext of one kind opens as
    /// the other's.
    enum Domain {
        /// A SecItem row (`items`, ``ItemRow``): `swkc.item.v1`.
        case item
        /// A Secret Service row (`ss_items`, ``SecretItemCodec``): `swkc.ss.v1`.
        case secretService

        var label: [UInt8] {
            switch self {
            case .item: Self.itemLabel
            case .secretService: Self.secretServiceLabel
            }
        }

        private static let itemLabel: [UInt8] = Array("swkc.item.v1".utf8)
        private static let secretServiceLabel: [UInt8] = Array("swkc.ss.v1".utf8)
    }

    /// One identity field, appended in the order given.
    enum Field {
        /// A SecItem's persistent reference, as stored (20 bytes).
        case persistentRef([UInt8])
        /// A one-byte code: a SecItem's class (``ItemRow/code(_:)``) or protection class (``ProtectionClass/code``).
        case code(Int64)
        /// A one-byte flag, 0 or 1: a SecItem's `sync`.
        case flag(Bool)
        /// A keyed digest column as stored: `agrp`, `pk`, `acct`, `name`; a Secret Service item's attribute-set digest.
        case digest([UInt8])
        /// A Secret Service item's number, 8 bytes big-endian.
        case number(Int64)

        var count: Int {
            switch self {
            case .persistentRef(let bytes), .digest(let bytes): bytes.count
            case .code, .flag: 1
            case .number: 8
            }
        }

        func append(to bytes: inout [UInt8]) {
            switch self {
            case .persistentRef(let value), .digest(let value): bytes += value
            case .code(let code): bytes.append(UInt8(truncatingIfNeeded: code))
            case .flag(let flag): bytes.append(flag ? 1 : 0)
            case .number(let number): withUnsafeBytes(of: number.bigEndian) { bytes.append(contentsOf: $0) }
            }
        }
    }

    /// `domain`'s label, `part`, the keychain id, then `fields` in order.
    static func bytes(_ domain: Domain, _ part: SealedPart, keychainID: [UInt8], _ fields: [Field]) -> [UInt8] {
        let label = domain.label
        var bytes: [UInt8] = []
        bytes.reserveCapacity(label.count + 1 + keychainID.count + fields.reduce(0) { $0 + $1.count })
        bytes += label
        bytes.append(part.rawValue)
        bytes += keychainID
        for field in fields { field.append(to: &bytes) }
        return bytes
    }

    /// ``bytes(_:_:keychainID:_:)`` of a SecItem row: `.item`, `part`, the keychain id, then the row's
    /// persistent reference, class code, protection code, `sync` flag and its four digests (access group,
    /// primary key, account, name), the fields ``ItemRow/associatedData(_:codec:)`` names, in that order.
    /// Written straight into one buffer of its length: the array of ``Field``s and the appends cost about
    /// 700 instructions per row (callgrind, keychain-bench update.durable, issue 29). The columns come from
    /// the row's arrays (``ItemRow``) or from SQLite's buffers in place (``ItemRowCursor``).
    static func itemBytes<Reference: RowBytes, Digest: RowBytes>(
        _ part: SealedPart, keychainID: [UInt8], persistentRef: Reference, classCode: Int64, protectionCode: Int64,
        sync: Bool, accessGroup: Digest, primaryKey: Digest, account: Digest, name: Digest
    ) -> [UInt8] {
        let label = Domain.item.label
        let count =
            label.count + 1 + keychainID.count + persistentRef.count + 3 + accessGroup.count + primaryKey.count
            + account.count + name.count
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            @inline(__always) func put<Bytes: RowBytes>(_ bytes: Bytes) {
                bytes.withRowBytes { source in
                    if let start = source.baseAddress {
                        UnsafeMutableRawPointer(base + offset).copyMemory(from: start, byteCount: source.count)
                    }
                }
                offset += bytes.count
            }
            @inline(__always) func put(_ byte: UInt8) {
                (base + offset).initialize(to: byte)
                offset += 1
            }
            put(label)
            put(part.rawValue)
            put(keychainID)
            put(persistentRef)
            put(UInt8(truncatingIfNeeded: classCode))
            put(UInt8(truncatingIfNeeded: protectionCode))
            put(sync ? 1 : 0)
            put(accessGroup)
            put(primaryKey)
            put(account)
            put(name)
            initialized = offset
        }
    }

    /// Moves associated data made by ``bytes(_:_:keychainID:_:)`` for `domain` to another part of the
    /// same row (the parts differ only in the part byte).
    static func relabel(_ bytes: inout [UInt8], _ domain: Domain, as part: SealedPart) {
        bytes[domain.label.count] = part.rawValue
    }
}
