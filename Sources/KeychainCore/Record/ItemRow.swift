/// One row of the `items` table: the only place that knows the table's columns, how a row is read,
/// sealed and re-sealed, what associated data binds its ciphertexts, and which columns, in which
/// order, its keyed tag covers.
///
/// A row holds an item's identity in the clear (persistent reference, class code, protection class
/// code, synchronizable flag), its keyed digest columns (``ItemCodec/Digests``), its item key wrapped
/// by the protection class key, and the attributes and secret sealed under the item key
/// (XChaCha20-Poly1305). The associated data of the three ciphertexts is
/// `"swkc.item.v1" ‖ part ‖ keychain id ‖ persistref ‖ class ‖ pdmn ‖ sync ‖ agrp ‖ pk ‖ acct ‖ name`
/// (``associatedData(_:codec:)``), so editing any identity column, or moving a ciphertext to another
/// row, fails authentication. The row tag (``ItemCodec/rowTag(_:)``) covers ``taggedColumns`` in that
/// order; `docs/ARCHITECTURE.md` ("Key hierarchy", "Integrity") describes both.
///
/// The byte layout of all of this is fixed by the keychains already on disk; the golden test
/// (`Tests/KeychainCoreTests/GoldenKeychainTests.swift`) opens committed files to prove it.
struct ItemRow {
    /// SQLite's `rowid`; 0 for a row not yet inserted.
    let rowid: Int64
    /// `persistref`: the class's four-letter code and 16 random bytes.
    let persistentRef: [UInt8]
    /// `class`, stored as ``ItemRow/code(_:)``.
    let itemClass: ItemClass
    /// `pdmn`, stored as ``ProtectionClass/code``.
    let protection: ProtectionClass
    /// `sync`, stored as 0 or 1.
    let sync: Bool
    /// `agrp`, `pk`, `acct` and `name`.
    let digests: ItemCodec.Digests
    /// `wrapped_key`: the item key sealed under the class key.
    let wrappedKey: [UInt8]
    /// `attributes`: the item record (`docs/RECORD-FORMAT.md`) sealed under the item key.
    let attributes: [UInt8]
    /// `secret` sealed under the item key, or `nil` when it was not read.
    let secret: [UInt8]?
    /// `tag`: ``ItemCodec/rowTag(_:)`` of ``taggedColumns``.
    private(set) var tag: [UInt8]

    // MARK: - Columns

    /// A stored column of `items` that the row tag covers.
    enum Column: String, CaseIterable {
        case persistentRef = "persistref"
        case itemClass = "class"
        case protection = "pdmn"
        case sync
        case accessGroup = "agrp"
        case primaryKey = "pk"
        case account = "acct"
        case name
        case wrappedKey = "wrapped_key"
        case attributes
        case secret

        /// Whether SQLite stores the column as an integer (else a blob).
        var isInteger: Bool {
            switch self {
            case .itemClass, .protection, .sync: true
            case .persistentRef, .accessGroup, .primaryKey, .account, .name, .wrappedKey, .attributes, .secret: false
            }
        }
    }

    /// The columns the row tag covers, in the order it covers them: every column but `rowid` and `tag`.
    static let taggedColumns: [Column] = Column.allCases

    /// The columns ``init(_:withSecret:)`` reads, in order; `, secret` is appended to read the secret too.
    static let selectColumns =
        "rowid, persistref, class, pdmn, sync, agrp, pk, acct, name, wrapped_key, attributes, tag"

    /// `SELECT` of ``selectColumns`` (and the secret when `withSecret`) from `items`, followed by `clauses`
    /// (`WHERE …`, `ORDER BY …`; may be empty).
    static func select(withSecret: Bool, _ clauses: String) -> String {
        "SELECT \(selectColumns)\(withSecret ? ", secret" : "") FROM items" + (clauses.isEmpty ? "" : " " + clauses)
    }

    /// Inserts every tagged column and the tag: bind ``taggedValues`` then the tag.
    static let insertSQL =
        "INSERT INTO items (\(taggedColumns.map(\.rawValue).joined(separator: ", ")), tag) VALUES ("
        + Array(repeating: "?", count: taggedColumns.count + 1).joined(separator: ", ") + ")"

    /// Replaces every column that follows from the item's content (all tagged columns after `class`)
    /// and the tag: bind ``taggedValues`` without its first two, the tag, then the rowid.
    static let rewriteSQL =
        "UPDATE items SET " + taggedColumns.dropFirst(2).map { "\($0.rawValue) = ?" }.joined(separator: ", ")
        + ", tag = ? WHERE rowid = ?"

    /// The row at the statement's cursor, selected by ``select(withSecret:_:)``.
    /// - Throws: `.decode` for an unknown class or protection class code.
    init(_ statement: Statement, withSecret: Bool) throws(KeychainFailure) {
        guard let itemClass = Self.itemClass(code: statement.int64(2)),
            let protection = ProtectionClass(code: statement.int64(3))
        else { throw KeychainFailure(.decode, "an item row has an unknown class or protection class") }
        self.init(
            rowid: statement.int64(0), persistentRef: statement.blob(1), itemClass: itemClass,
            protection: protection, sync: statement.int64(4) != 0,
            digests: ItemCodec.Digests(
                accessGroup: statement.blob(5), primaryKey: statement.blob(6), account: statement.blob(7),
                name: statement.blob(8)),
            wrappedKey: statement.blob(9), attributes: statement.blob(10),
            secret: withSecret ? statement.blob(12) : nil, tag: statement.blob(11))
    }

    init(
        rowid: Int64, persistentRef: [UInt8], itemClass: ItemClass, protection: ProtectionClass, sync: Bool,
        digests: ItemCodec.Digests, wrappedKey: [UInt8], attributes: [UInt8], secret: [UInt8]?, tag: [UInt8]
    ) {
        self.rowid = rowid
        self.persistentRef = persistentRef
        self.itemClass = itemClass
        self.protection = protection
        self.sync = sync
        self.digests = digests
        self.wrappedKey = wrappedKey
        self.attributes = attributes
        self.secret = secret
        self.tag = tag
    }

    /// The values of ``taggedColumns``, in order, as stored (a secret that was not read counts as empty).
    var taggedValues: [SQLValue] {
        Self.taggedColumns.map { column in
            switch column {
            case .persistentRef: .blob(persistentRef)
            case .itemClass: .integer(Self.code(itemClass))
            case .protection: .integer(protection.code)
            case .sync: .integer(sync ? 1 : 0)
            case .accessGroup: .blob(digests.accessGroup)
            case .primaryKey: .blob(digests.primaryKey)
            case .account: .blob(digests.account)
            case .name: .blob(digests.name)
            case .wrappedKey: .blob(wrappedKey)
            case .attributes: .blob(attributes)
            case .secret: .blob(secret ?? [])
            }
        }
    }

    /// The values of ``taggedColumns`` exactly as SQLite holds them at the cursor of a statement that
    /// selected them in order from column `first`: what ``Keystore/verifyIntegrity()`` re-tags, without
    /// interpreting the class or protection class (an unknown code is then reported as a modified row).
    static func storedTaggedValues(_ statement: Statement, first: Int32 = 0) -> [SQLValue] {
        taggedColumns.enumerated().map { offset, column in
            let index = first + Int32(offset)
            return column.isInteger ? .integer(statement.int64(index)) : .blob(statement.blob(index))
        }
    }

    // MARK: - Class codes

    /// The `class` column's code for `itemClass`. Permanent: stored in every row, in the associated
    /// data and in backups.
    static func code(_ itemClass: ItemClass) -> Int64 {
        switch itemClass {
        case .genericPassword: 1
        case .internetPassword: 2
        case .key: 3
        case .certificate: 4
        }
    }

    /// The item class stored as `code`, or `nil` for a code this build does not know.
    static func itemClass(code: Int64) -> ItemClass? {
        ItemClass.allCases.first { Self.code($0) == code }
    }

    // MARK: - Sealing

    /// The associated data of one of the row's three ciphertexts (``AssociatedData``, domain `.item`):
    /// the persistent reference, class, protection class, `sync` flag and the four digest columns. The
    /// three differ only in their part, so a caller opening several relabels one copy
    /// (``AssociatedData/relabel(_:_:as:)``).
    func associatedData(_ part: SealedPart, codec: ItemCodec) -> [UInt8] {
        AssociatedData.itemBytes(
            part, keychainID: codec.keychainID, persistentRef: persistentRef, classCode: Self.code(itemClass),
            protectionCode: protection.code, sync: sync, accessGroup: digests.accessGroup,
            primaryKey: digests.primaryKey, account: digests.account, name: digests.name)
    }

    /// A new row for an item: its digests from `attributes`, a fresh item key wrapped by `classKey`,
    /// the attributes (as an item record) and the secret sealed under it, and its tag.
    /// - Parameters:
    ///   - secret: the secret; `nil` stores an empty one.
    /// - Throws: `.param` when the attributes cannot be encoded (``ItemCodec/encodeAttributes(_:)``).
    static func seal(
        _ itemClass: ItemClass, attributes: [String: AttributeValue], secret: SecureBytes?, persistentRef: [UInt8],
        protection: ProtectionClass, sync: Bool, classKey: ClassKey, codec: ItemCodec
    ) throws(KeychainFailure) -> ItemRow {
        // Not inserted yet (rowid 0); a rewrite binds the old row's rowid (``rewriteSQL``).
        let identity = ItemRow(
            rowid: 0, persistentRef: persistentRef, itemClass: itemClass, protection: protection, sync: sync,
            digests: codec.digests(itemClass, attributes), wrappedKey: [], attributes: [], secret: nil, tag: [])
        let itemKey = ItemKey.random()
        var ad = identity.associatedData(.key, codec: codec)
        let wrapped = itemKey.wrapped(
            accessEntries: AccessEntryFlags(attributes), classKey: classKey, associatedData: ad)
        AssociatedData.relabel(&ad, .item, as: .attributes)
        let sealedAttributes = Sodium.seal(
            try ItemCodec.encodeAttributes(attributes), key: itemKey.bytes, associatedData: ad)
        AssociatedData.relabel(&ad, .item, as: .secret)
        let sealedSecret = Sodium.seal(secret ?? SecureBytes(count: 0) { _ in }, key: itemKey.bytes, associatedData: ad)
        return identity.replacing(wrappedKey: wrapped, attributes: sealedAttributes, secret: sealedSecret, codec: codec)
    }

    /// This row with new attributes, already encoded as `record` (and a new secret, when given), sealed
    /// under its existing item key with fresh nonces, and its new tag; every other column is kept (the
    /// wrapped key too, unless `wrappedKey` replaces it). Only valid when the attributes leave the row's
    /// identity (and so its associated data) unchanged.
    /// - Parameters:
    ///   - secret: the new secret, or `nil` to keep the sealed one (which must have been read).
    ///   - wrappedKey: the item key wrapped again with the new attributes' ``AccessEntryFlags``, or `nil`
    ///     when they are the ones already wrapped with it.
    ///   - attributesAssociatedData: ``associatedData(_:codec:)`` of `.attributes` when the caller already
    ///     made it (else it is made here).
    /// - Throws: `.decode` when the secret is kept but was not read.
    func resealed(
        record: [UInt8], secret: SecureBytes?, itemKey: ItemKey, wrappedKey newWrappedKey: [UInt8]? = nil,
        codec: ItemCodec, attributesAssociatedData: [UInt8]? = nil
    ) throws(KeychainFailure) -> ItemRow {
        var ad = attributesAssociatedData ?? associatedData(.attributes, codec: codec)
        let sealedAttributes = Sodium.seal(record, key: itemKey.bytes, associatedData: ad)
        let sealedSecret: [UInt8]
        if let secret {
            AssociatedData.relabel(&ad, .item, as: .secret)
            sealedSecret = Sodium.seal(secret, key: itemKey.bytes, associatedData: ad)
        } else {
            guard let kept = self.secret else { throw KeychainFailure(.decode, "an item's secret was not read") }
            sealedSecret = kept
        }
        return replacing(
            wrappedKey: newWrappedKey ?? wrappedKey, attributes: sealedAttributes, secret: sealedSecret, codec: codec)
    }

    /// This row with new ciphertexts and the tag that covers them.
    private func replacing(wrappedKey: [UInt8], attributes: [UInt8], secret: [UInt8], codec: ItemCodec) -> ItemRow {
        var row = ItemRow(
            rowid: rowid, persistentRef: persistentRef, itemClass: itemClass, protection: protection, sync: sync,
            digests: digests, wrappedKey: wrappedKey, attributes: attributes, secret: secret, tag: [])
        row.tag = row.computedTag(codec: codec)
        return row
    }

    /// ``ItemCodec/rowTag(_:)`` of ``taggedValues``, written straight from the fields: the same message,
    /// column by column in ``taggedColumns`` order (``RowTag/Message``), without making the values.
    func computedTag(codec: ItemCodec) -> [UInt8] {
        let secret = self.secret ?? []
        var message = RowTag.Message(
            label: ItemCodec.rowLabel,
            columnBytes: 4 * Self.taggedColumns.count + 3 * 8 + persistentRef.count + digests.accessGroup.count
                + digests.primaryKey.count + digests.account.count + digests.name.count + wrappedKey.count
                + attributes.count + secret.count)
        for column in Self.taggedColumns {
            switch column {
            case .persistentRef: message.appendColumn(persistentRef)
            case .itemClass: message.appendColumn(Self.code(itemClass))
            case .protection: message.appendColumn(protection.code)
            case .sync: message.appendColumn(Int64(sync ? 1 : 0))
            case .accessGroup: message.appendColumn(digests.accessGroup)
            case .primaryKey: message.appendColumn(digests.primaryKey)
            case .account: message.appendColumn(digests.account)
            case .name: message.appendColumn(digests.name)
            case .wrappedKey: message.appendColumn(wrappedKey)
            case .attributes: message.appendColumn(attributes)
            case .secret: message.appendColumn(secret)
            }
        }
        return message.tag(key: codec.indexKey.bytes)
    }

    // MARK: - Opening

    /// The item key, unwrapped with `classKey`, or `nil` when it does not authenticate.
    func openItemKey(classKey: ClassKey, associatedData: [UInt8]) -> ItemKey? {
        Sodium.openSecret(wrappedKey, key: classKey.bytes, associatedData: associatedData).flatMap(
            ItemKey.init(unwrapped:))
    }

    /// The attributes opened but not decoded (an item record, or a legacy property list), or `nil` when
    /// they do not authenticate. `associatedData` is ``associatedData(_:codec:)`` of `.attributes`.
    func openRecord(itemKey: ItemKey, associatedData: [UInt8]) -> [UInt8]? {
        Sodium.open(attributes, key: itemKey.bytes, associatedData: associatedData)
    }

    /// The attributes, opened with the item key and decoded (an item record, or a legacy property
    /// list), or `nil` when they do not authenticate or decode. `associatedData` is
    /// ``associatedData(_:codec:)`` of `.attributes`.
    ///
    /// The digest columns are not recomputed: they are in the associated data the attributes were
    /// sealed with, and ``seal(_:attributes:secret:persistentRef:protection:sync:classKey:codec:rowid:)``
    /// computes them from these same attributes, so a row whose index does not match its content cannot
    /// authenticate. Only a holder of the class key could seal such a row, and that key comes from the
    /// same keybag as the index key. (Recomputing cost 4 keyed BLAKE2b per item, ~26k instructions: a
    /// fifth of an enumeration; keychain-bench issue 7.)
    func openAttributes(itemKey: ItemKey, associatedData: [UInt8]) -> [String: AttributeValue]? {
        Sodium.open(attributes, key: itemKey.bytes, associatedData: associatedData).flatMap(ItemCodec.decodeAttributes)
    }

    /// Only the access control (`accc`) and the trusted-application list (`tapp`) of the attributes,
    /// without decoding the rest of an item record: ``AttributeLookup/absent`` for each the item has
    /// not, both ``AttributeLookup/malformed`` when the attributes do not authenticate or decode.
    func openAccessEntries(itemKey: ItemKey, associatedData: [UInt8])
        -> (accessControl: AttributeLookup, trusted: AttributeLookup)
    {
        Sodium.open(attributes, key: itemKey.bytes, associatedData: associatedData).map(ItemCodec.accessEntries)
            ?? (.malformed, .malformed)
    }

    /// The secret, opened with the item key, or `nil` when it was not read or does not authenticate.
    /// `associatedData` is ``associatedData(_:codec:)`` of `.secret`.
    func openSecret(itemKey: ItemKey, associatedData: [UInt8]) -> SecureBytes? {
        secret.flatMap { Sodium.openSecret($0, key: itemKey.bytes, associatedData: associatedData) }
    }
}
