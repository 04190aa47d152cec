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
    /// read once (``Statement/blobBytes(_:)``: its bytes where SQLite holds them) and written once into an
    /// array of the data's length by ``AssociatedData/itemBytes(_:keychainID:persistentRef:classCode:protectionCode:sync:accessGroup:primaryKey:account:name:)``,
    /// which also writes a whole row's.
    func associatedData(_ part: SealedPart, codec: ItemCodec) -> [UInt8] {
        let digest = Column.digests.lowerBound
        return AssociatedData.itemBytes(
            part, keychainID: codec.keychainID, persistentRef: statement.blobBytes(Column.persistentRef),
            classCode: ItemRow.code(itemClass), protectionCode: protection.code, sync: sync,
            accessGroup: statement.blobBytes(digest), primaryKey: statement.blobBytes(digest + 1),
            account: statement.blobBytes(digest + 2), name: statement.blobBytes(digest + 3))
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
