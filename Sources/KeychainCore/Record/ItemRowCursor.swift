/// One row of the `items` table read in place at a statement's cursor: what a search opens, with its
/// blob columns handed to libsodium where SQLite holds them instead of copied into arrays first.
///
/// ``ItemRow`` copies all of a row's thirteen columns into eight arrays, which a write needs (it rebinds
/// them, re-tags the row, keeps its sealed secret); a read needs only the associated data, built straight
/// from the identity columns, the ciphertexts it opens, and the persistent reference it returns. It does
/// not read `rowid` or `tag` at all (a search neither writes the row nor checks its tag; the tag is
/// ``Keystore/verifyIntegrity()``'s). The byte layout it reads is ``ItemRow``'s; the associated data is
/// the same bytes as ``ItemRow/associatedData(_:codec:)`` (`ItemRowTests`).
///
/// Valid only until the statement steps again or is reset: it is never stored, only passed to the body of
/// ``StoreSession/forEachCandidate(_:withSecret:_:)``.
struct ItemRowCursor {
    let statement: Statement
    let itemClass: ItemClass
    let protection: ProtectionClass
    let sync: Bool

    /// The columns ``init(_:)`` reads, in order; `, secret` is appended to read the secret too (column 10).
    static let selectColumns = "persistref, class, pdmn, sync, agrp, pk, acct, name, wrapped_key, attributes"

    /// `SELECT` of ``selectColumns`` (and the secret when `withSecret`) from `items`, followed by `clauses`.
    static func select(withSecret: Bool, _ clauses: String) -> String {
        "SELECT \(selectColumns)\(withSecret ? ", secret" : "") FROM items " + clauses
    }

    private enum Column {
        static let persistentRef: Int32 = 0
        static let itemClass: Int32 = 1
        static let protection: Int32 = 2
        static let sync: Int32 = 3
        /// `agrp`, `pk`, `acct`, `name`: the digests, in the order the associated data binds them.
        static let digests: ClosedRange<Int32> = 4...7
        static let wrappedKey: Int32 = 8
        static let attributes: Int32 = 9
        static let secret: Int32 = 10
    }

    /// The row at the statement's cursor, selected by ``select(withSecret:_:)``.
    /// - Throws: `.decode` for an unknown class or protection class code (as ``ItemRow/init(_:withSecret:)``).
    init(_ statement: Statement) throws(KeychainFailure) {
        guard let itemClass = ItemRow.itemClass(code: statement.int64(Column.itemClass)),
            let protection = ProtectionClass(code: statement.int64(Column.protection))
        else { throw KeychainFailure(.decode, "an item row has an unknown class or protection class") }
        self.statement = statement
        self.itemClass = itemClass
        self.protection = protection
        self.sync = statement.int64(Column.sync) != 0
    }

    /// The persistent reference, copied once into the bytes a result returns.
    var persistentRef: [UInt8] { statement.withBlob(Column.persistentRef) { Array($0) } }

    /// ``ItemRow/associatedData(_:codec:)`` of this row, built from the columns in place: each blob column
    /// read once (``Statement/blobBytes(_:)``: its bytes where SQLite holds them, then its length) and the
    /// data written once into an array of its length (as ``AssociatedData/itemBytes(_:keychainID:persistentRef:classCode:protectionCode:sync:digests:)``
    /// writes a whole row's), instead of appended field by field after a pass for the lengths.
    func associatedData(_ part: SealedPart, codec: ItemCodec) -> [UInt8] {
        let label = AssociatedData.Domain.item.label
        let keychainID = codec.keychainID
        let persistentRef = statement.blobBytes(Column.persistentRef)
        let group = statement.blobBytes(Column.digests.lowerBound)
        let primaryKey = statement.blobBytes(Column.digests.lowerBound + 1)
        let account = statement.blobBytes(Column.digests.lowerBound + 2)
        let name = statement.blobBytes(Column.digests.lowerBound + 3)
        let count =
            label.count + 1 + keychainID.count + persistentRef.count + 3 + group.count + primaryKey.count
            + account.count + name.count
        let codes: (UInt8, UInt8, UInt8) = (
            UInt8(truncatingIfNeeded: ItemRow.code(itemClass)), UInt8(truncatingIfNeeded: protection.code), sync ? 1 : 0
        )
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            // Inlined, so that each field costs what a copy written out in place would.
            @inline(__always) func write(_ bytes: UnsafeRawBufferPointer) {
                if let start = bytes.baseAddress {
                    UnsafeMutableRawPointer(base + offset).copyMemory(from: start, byteCount: bytes.count)
                }
                offset += bytes.count
            }
            label.withUnsafeBytes(write)
            (base + offset).initialize(to: part.rawValue)
            offset += 1
            keychainID.withUnsafeBytes(write)
            write(persistentRef)
            (base + offset).initialize(to: codes.0)
            (base + offset + 1).initialize(to: codes.1)
            (base + offset + 2).initialize(to: codes.2)
            offset += 3
            write(group)
            write(primaryKey)
            write(account)
            write(name)
            initialized = offset
        }
    }

    /// The item key, unwrapped with `classKey`, or `nil` when it does not authenticate.
    func openItemKey(classKey: ClassKey, associatedData: [UInt8]) -> ItemKey? {
        statement.withBlob(Column.wrappedKey) {
            Sodium.openSecret($0, key: classKey.bytes, associatedData: associatedData).flatMap(ItemKey.init(unwrapped:))
        }
    }

    /// As ``ItemRow/openAttributes(itemKey:associatedData:)``.
    func openAttributes(itemKey: ItemKey, associatedData: [UInt8]) -> [String: AttributeValue]? {
        statement.withBlob(Column.attributes) {
            Sodium.open($0, key: itemKey.bytes, associatedData: associatedData).flatMap(ItemCodec.decodeAttributes)
        }
    }

    /// The attributes opened but not decoded (an item record, or a legacy property list), or `nil` when
    /// they do not authenticate.
    func openRecord(itemKey: ItemKey, associatedData: [UInt8]) -> [UInt8]? {
        statement.withBlob(Column.attributes) { Sodium.open($0, key: itemKey.bytes, associatedData: associatedData) }
    }

    /// As ``ItemRow/openAccessEntries(itemKey:associatedData:)``.
    func openAccessEntries(itemKey: ItemKey, associatedData: [UInt8])
        -> (accessControl: AttributeLookup, trusted: AttributeLookup)
    {
        statement.withBlob(Column.attributes) {
            Sodium.open($0, key: itemKey.bytes, associatedData: associatedData).map(ItemCodec.accessEntries)
        } ?? (.malformed, .malformed)
    }

    /// The secret, opened with the item key, or `nil` when it does not authenticate. Only for a row
    /// selected with the secret.
    func openSecret(itemKey: ItemKey, associatedData: [UInt8]) -> SecureBytes? {
        statement.withBlob(Column.secret) { Sodium.openSecret($0, key: itemKey.bytes, associatedData: associatedData) }
    }
}
