/// One open connection with its unwrapped keys: the item operations of a ``Keystore``.
///
/// Every method runs inside a transaction that ``Keystore`` opened; none commits.
/// It is `~Copyable` so that exactly one owner (the keystore's mutex) holds the connection.
/// Internal to KeychainCore: front ends reach items only through ``ItemGateway`` (issue 23, item 2).
struct StoreSession: ~Copyable {
    let database: Database
    /// The keybag entries and settings this connection holds.
    let keys: SessionKeys
    /// Seals and opens rows with the index key. Only transactions that refuse foreign keychains
    /// use it, and a keychain that is not foreign has one (``SessionKeys/codec``).
    var codec: ItemCodec { keys.codec! }
    /// The XOR of the `items` tags the current transaction changed, written to `meta` once before it commits.
    let pendingAccumulator = PendingAccumulator(.secItem)
    /// The same for Secret Service rows (`ss_items`), whose accumulator is `meta.ss_accumulator`.
    let pendingSecretItemAccumulator = PendingAccumulator(.secretService)
    /// Whether the Secret Service tables exist, remembered per connection (``SecretItemTables``).
    let secretItemTables = SecretItemTables()
    /// Secret Service metadata opened on this connection, by the sealed bytes it came from (``SecretMetadataCache``).
    let secretMetadata = SecretMetadataCache()
    /// Secret Service rows read since nothing changed (``SecretRowCache``).
    let secretRows = SecretRowCache()
    /// Attribute pairs searched by that several items share, since nothing changed (``SecretPairMemo``).
    let secretPairs = SecretPairMemo()
    /// The same for the sync journal's rows (`meta.sync_accumulator`, ``SyncSchema``).
    let pendingSyncAccumulator = PendingAccumulator(.sync)
    /// Whether the sync tables exist, and whether remote changes are being applied (``SyncTables``).
    let syncTables = SyncTables()

    /// Largest secret accepted, in bytes. Larger ones get `errSecDataTooLarge` (-25302).
    /// Apple's securityd logs secrets above 4 KiB and fails on multi-megabyte ones; we allow 1 MiB.
    static let maximumSecretBytes = 1 << 20

    // MARK: - Rows

    /// One row as stored, before decryption: ``ItemRow`` (which owns the columns, sealing and tag).
    typealias Row = ItemRow

    /// ``ItemRow/selectColumns``: what ``row(_:withSecret:)`` reads; append `, secret` to read the secret too.
    static var rowColumns: String { ItemRow.selectColumns }

    /// The row at the statement's cursor (``ItemRow/init(_:withSecret:)``).
    /// - Throws: `.decode` for an unknown class or protection class.
    static func row(_ statement: Statement, withSecret: Bool) throws(KeychainFailure) -> Row {
        try ItemRow(statement, withSecret: withSecret)
    }

    /// The rows a query selects by its indexed columns, in insertion order.
    func candidateRows(_ query: ItemQuery, withSecret: Bool) throws(KeychainFailure) -> [Row] {
        guard let statement = try candidateStatement(query, withSecret: withSecret, inPlace: false) else { return [] }
        defer { statement.finish() }
        var rows: [Row] = []
        while try statement.step() { rows.append(try Self.row(statement, withSecret: withSecret)) }
        return rows
    }

    /// The rows a query selects by its indexed columns, in insertion order, each read in place
    /// (``ItemRowCursor``) and handed to `body` while the statement's cursor is on it; `body` returns
    /// whether to go on. What a search reads: no column is copied that it does not use.
    func forEachCandidate(
        _ query: ItemQuery, withSecret: Bool, _ body: (ItemRowCursor) throws(KeychainFailure) -> Bool
    ) throws(KeychainFailure) {
        guard let statement = try candidateStatement(query, withSecret: withSecret, inPlace: true) else { return }
        // Its bindings are codes, a persistent reference and digests, all of which bind() sets again.
        defer { statement.finishKeepingBindings() }
        while try statement.step() {
            guard try body(try ItemRowCursor(statement)) else { return }
        }
    }

    /// The cached statement selecting a query's candidates, bound, or `nil` when nothing can match (an
    /// empty group scope). `inPlace` selects ``ItemRowCursor``'s columns, else ``ItemRow``'s.
    private func candidateStatement(_ query: ItemQuery, withSecret: Bool, inPlace: Bool) throws(KeychainFailure)
        -> Statement?
    {
        // The statement depends only on which clauses are present (and how many groups): a bit each,
        // so the cached statement is found by an integer instead of building and hashing the SQL text.
        var groups: [String] = []
        if case .groups(let named) = query.scope.coverage {
            if named.isEmpty { return nil }
            groups = named
        }
        // Class, persistent reference, name, account, sync, protection, then the groups: one allocation.
        var values: [SQLValue] = []
        values.reserveCapacity(6 + groups.count)
        values.append(.integer(ItemRow.code(query.itemClass)))
        var shape = withSecret ? 1 : 0
        if inPlace { shape |= 1 << 6 }
        if let ref = query.persistentRef {
            shape |= 1 << 1
            values.append(.blob(Array(ref)))
        }
        let nameAttribute = ItemCodec.nameAttribute(query.itemClass)
        if let name = query.filters[nameAttribute] {
            shape |= 1 << 2
            values.append(.blob(codec.digest(nameAttribute, name)))
        }
        let accountAttribute = ItemCodec.accountAttribute(query.itemClass)
        if let account = query.filters[accountAttribute] {
            shape |= 1 << 3
            values.append(.blob(codec.digest(accountAttribute, account)))
        }
        switch query.synchronizable {
        case .no, .yes:
            shape |= 1 << 4
            values.append(.integer(query.synchronizable == .yes ? 1 : 0))
        case .any: break
        }
        if let protection = query.protection {
            shape |= 1 << 5
            values.append(.integer(protection.code))
        }
        for group in groups { values.append(.blob(codec.digest(.accessGroup, .string(group)))) }
        shape |= groups.count << 7
        let sql = { [shape] () -> String in
            var sql = "WHERE class = ?"
            if shape & (1 << 1) != 0 { sql += " AND persistref = ?" }
            if shape & (1 << 2) != 0 { sql += " AND name = ?" }
            if shape & (1 << 3) != 0 { sql += " AND acct = ?" }
            if shape & (1 << 4) != 0 { sql += " AND sync = ?" }
            if shape & (1 << 5) != 0 { sql += " AND pdmn = ?" }
            let groups = shape >> 7
            if groups > 0 {
                sql += " AND agrp IN (" + Array(repeating: "?", count: groups).joined(separator: ", ") + ")"
            }
            sql += " ORDER BY rowid"
            let withSecret = shape & 1 != 0
            return shape & (1 << 6) != 0
                ? ItemRowCursor.select(withSecret: withSecret, sql) : ItemRow.select(withSecret: withSecret, sql)
        }
        let statement = try database.prepare(key: shape, sql)
        try statement.bind(values)
        return statement
    }

    // MARK: - Opening items

    /// The class key for `protection`, or `errSecInteractionNotAllowed` when it is locked.
    func classKey(_ protection: ProtectionClass) throws(KeychainFailure) -> ClassKey {
        guard let key = keys.classKey(protection) else { throw KeychainFailure(.interactionNotAllowed) }
        return key
    }

    /// ``ItemRow/associatedData(_:codec:)`` of `row` with this keychain's codec.
    func associatedData(_ part: SealedPart, _ row: Row) -> [UInt8] {
        row.associatedData(part, codec: codec)
    }

    func itemKey(_ row: Row) throws(KeychainFailure) -> ItemKey {
        try itemKey(row, associatedData: associatedData(.key, row))
    }

    /// `associatedData` must be ``associatedData(_:_:)`` of `.key` for `row`.
    func itemKey(_ row: Row, associatedData: [UInt8]) throws(KeychainFailure) -> ItemKey {
        let classKey = try classKey(row.protection)
        guard let key = row.openItemKey(classKey: classKey, associatedData: associatedData) else {
            if isOrphaned(row) { throw Self.orphanedFailure }
            throw KeychainFailure(.decode, "an item's key does not authenticate")
        }
        return key
    }

    /// The item key of `row`, or `nil` when the row is orphaned (``isOrphaned(_:)``) and cannot open.
    ///
    /// Searches, updates, deletes and backups skip such rows rather than fail on them, so that the
    /// rest of the keychain stays usable; a call whose only matches were skipped answers
    /// ``orphanedFailure`` (never "not found": the item exists). `associatedData` is
    /// ``associatedData(_:_:)`` of `.key` for `row`.
    func itemKeyUnlessOrphaned(_ row: Row, associatedData: [UInt8]) throws(KeychainFailure) -> ItemKey? {
        do {
            return try itemKey(row, associatedData: associatedData)
        } catch  where error.status == .decode && isOrphaned(row) {
            return nil
        }
    }

    /// ``itemKeyUnlessOrphaned(_:associatedData:)`` of a row read in place.
    func itemKeyUnlessOrphaned(_ row: ItemRowCursor, associatedData: [UInt8]) throws(KeychainFailure) -> ItemKey? {
        let classKey = try classKey(row.protection)
        if let key = row.openItemKey(classKey: classKey, associatedData: associatedData) { return key }
        if keys.orphanedEntries.contains(.classKey(row.protection)) { return nil }
        throw KeychainFailure(.decode, "an item's key does not authenticate")
    }

    static var orphanedFailure: KeychainFailure {
        KeychainFailure(.decode, orphanedMessage, reason: .orphanedItem)
    }

    /// Whether the row's class key was set aside when the keychain was adopted by another device
    /// key (``Keystore/unlock(password:)``): a `…ThisDeviceOnly` item from before the adoption.
    /// Only meaningful once its key has failed to open.
    func isOrphaned(_ row: Row) -> Bool { keys.orphanedEntries.contains(.classKey(row.protection)) }

    static let orphanedMessage =
        "this ThisDeviceOnly item is bound to the device key of another installation (or of a lost one) and cannot be read here; delete it and add it again"

    func openAttributes(_ row: Row, itemKey: ItemKey) throws(KeychainFailure) -> [String: AttributeValue] {
        try openAttributes(row, itemKey: itemKey, associatedData: associatedData(.attributes, row))
    }

    /// `associatedData` must be ``associatedData(_:_:)`` of `.attributes` for `row`.
    func openAttributes(_ row: Row, itemKey: ItemKey, associatedData: [UInt8]) throws(KeychainFailure)
        -> [String: AttributeValue]
    {
        guard let attributes = row.openAttributes(itemKey: itemKey, associatedData: associatedData) else {
            throw KeychainFailure(.decode, "an item's attributes do not authenticate")
        }
        return attributes
    }

    func openSecret(_ row: Row, itemKey: ItemKey) throws(KeychainFailure) -> SecureBytes {
        try openSecret(row, itemKey: itemKey, associatedData: associatedData(.secret, row))
    }

    /// `associatedData` must be ``associatedData(_:_:)`` of `.secret` for `row`.
    func openSecret(_ row: Row, itemKey: ItemKey, associatedData: [UInt8]) throws(KeychainFailure) -> SecureBytes {
        guard let secret = row.openSecret(itemKey: itemKey, associatedData: associatedData) else {
            throw KeychainFailure(.decode, "an item's secret does not authenticate")
        }
        return secret
    }

    /// Whether the row's decrypted attributes satisfy the filters the SQL could not check.
    static func satisfies(_ attributes: [String: AttributeValue], _ query: ItemQuery) -> Bool {
        for (name, wanted) in query.filters {
            let stored =
                attributes[name]
                ?? query.itemClass.descriptor(name).flatMap {
                    $0.isPrimaryKey ? $0.defaultValue : nil
                }
            guard let stored, stored.matches(wanted) else { return false }
        }
        return true
    }

    /// Whether every filter was already decided by an indexed column.
    static func isCoveredByIndex(_ query: ItemQuery) -> Bool {
        let name = ItemCodec.nameAttribute(query.itemClass)
        let account = ItemCodec.accountAttribute(query.itemClass)
        return query.filters.keys.allSatisfy { $0 == account.rawValue || $0 == name.rawValue }
    }

    // MARK: - Operations

    /// Finds the items `query` matches, decrypting what `projection` asks for.
    /// - Throws: `.interactionNotAllowed` when a candidate's class key is locked, `.decode` when a
    ///   candidate fails authentication, or when every match was an orphaned `…ThisDeviceOnly` item
    ///   (which is skipped otherwise; see ``itemKeyUnlessOrphaned(_:associatedData:)``). An empty
    ///   result is returned as `[]`; callers map it.
    func search(_ query: ItemQuery, projection: ItemProjection) throws(KeychainFailure) -> [StoredItem] {
        let needsAttributes = projection.contains(.attributes) || !Self.isCoveredByIndex(query)
        // Only the access control and the trusted-application list: their entries are read from the record
        // without building the other attributes.
        let needsAccessControl = !needsAttributes && projection.contains(.accessControl)
        let withSecret = projection.contains(.secret)
        // The record handed out as it is: only when no filter needs the decoded attributes.
        let wantsRecord = projection.isSuperset(of: [.attributes, .record]) && Self.isCoveredByIndex(query)
        var results: [StoredItem] = []
        var skippedOrphans = false
        // Each row is opened where SQLite holds it, while the cursor is on it (``ItemRowCursor``).
        try forEachCandidate(query, withSecret: withSecret) { (row) throws(KeychainFailure) -> Bool in
            if let limit = query.limit, results.count >= limit { return false }
            // The three associated data of a row differ only in their part byte: build it once, relabel it.
            var ad = row.associatedData(.key, codec: codec)
            guard let key = try itemKeyUnlessOrphaned(row, associatedData: ad) else {
                skippedOrphans = true
                return true
            }
            var attributes: [String: AttributeValue] = [:]
            var record: [UInt8]?
            if wantsRecord {
                AssociatedData.relabel(&ad, .item, as: .attributes)
                guard let opened = row.openRecord(itemKey: key, associatedData: ad) else {
                    throw KeychainFailure(.decode, "an item's attributes do not authenticate")
                }
                if ItemRecordFormat.isRecord(opened) {
                    guard let entries = ItemRecordFormat.releaseEntries(in: opened) else {
                        throw KeychainFailure(.decode, "an item's attributes do not authenticate")
                    }
                    attributes = entries
                    record = opened
                } else {
                    guard let decoded = ItemCodec.decodeAttributes(opened) else {
                        throw KeychainFailure(.decode, "an item's attributes do not authenticate")
                    }
                    attributes = decoded
                }
            } else if needsAttributes {
                AssociatedData.relabel(&ad, .item, as: .attributes)
                guard let opened = row.openAttributes(itemKey: key, associatedData: ad) else {
                    throw KeychainFailure(.decode, "an item's attributes do not authenticate")
                }
                guard Self.satisfies(opened, query) else { return true }
                attributes = opened
            } else if needsAccessControl && key.accessEntries != [] {
                // Opened only when the item key was wrapped with an access entry, or before schema
                // version 3 said whether there is one (``AccessEntryFlags``).
                AssociatedData.relabel(&ad, .item, as: .attributes)
                let entries = row.openAccessEntries(itemKey: key, associatedData: ad)
                if entries.accessControl == .malformed || entries.trusted == .malformed {
                    throw KeychainFailure(.decode, "an item's attributes do not authenticate")
                }
                if case .present(let access) = entries.accessControl { attributes[.accessControl] = access }
                if case .present(let list) = entries.trusted { attributes[.trustedApplications] = list }
            }
            var secret: SecureBytes?
            if withSecret {
                AssociatedData.relabel(&ad, .item, as: .secret)
                guard let opened = row.openSecret(itemKey: key, associatedData: ad) else {
                    throw KeychainFailure(.decode, "an item's secret does not authenticate")
                }
                secret = opened
            }
            results.append(
                StoredItem(
                    itemClass: row.itemClass,
                    attributes: projection.contains(.attributes) || needsAccessControl ? attributes : [:],
                    persistentRef: row.persistentRef, secret: secret, record: record))
            // Stop at the limit without stepping to another row.
            return query.limit.map { results.count < $0 } ?? true
        }
        if results.isEmpty && skippedOrphans { throw Self.orphanedFailure }
        return results
    }

    /// Adds one item. `attributes` must already be validated; missing primary-key attributes take
    /// their defaults, `pdmn` the class's default (``ItemClass/defaultProtection``: WhenUnlocked, Always
    /// for certificates), `sync` false, and `cdat`/`mdat` are set now.
    /// - Returns: the stored item's persistent reference.
    /// - Throws: `.duplicateItem` when an item with the same primary key exists; `.dataTooLarge`;
    ///   `.interactionNotAllowed` when the class key is locked; `.diskFull`.
    func add(
        _ itemClass: ItemClass, attributes input: [String: AttributeValue], secret: SecureBytes?,
        now: AbsoluteTime = .now
    ) throws(KeychainFailure) -> [UInt8] {
        var attributes = Self.normalized(itemClass, input)
        attributes[.creationDate] = .date(now)
        attributes[.modificationDate] = .date(now)
        let persistentRef = Array(itemClass.rawValue.utf8) + Sodium.randomBytes(16)
        try insert(itemClass, attributes: attributes, secret: secret, persistentRef: persistentRef)
        return persistentRef
    }

    /// Fills defaults: every primary-key attribute, `pdmn` and `sync`.
    static func normalized(_ itemClass: ItemClass, _ input: [String: AttributeValue]) -> [String: AttributeValue] {
        var attributes = input
        for descriptor in itemClass.primaryKey where attributes[descriptor.name] == nil {
            attributes[descriptor.name] = descriptor.defaultValue
        }
        if attributes[.accessible] == nil { attributes[.accessible] = itemClass.defaultProtection.attribute }
        if case .integer(let flag)? = attributes[.synchronizable] { attributes[.synchronizable] = .bool(flag != 0) }
        return attributes
    }

    /// Seals a row for `attributes` (already normalized) under the class key of their protection class.
    /// - Throws: `.dataTooLarge`; `.param` for an unknown protection class, a synchronizable `…ThisDeviceOnly`
    ///   item (rule 20), or attributes that cannot be encoded; `.authFailed` for a WhenPasscodeSet item in a keychain without a password;
    ///   `.interactionNotAllowed` when the class key is locked.
    func sealRow(
        _ itemClass: ItemClass, attributes: [String: AttributeValue], secret: SecureBytes?, persistentRef: [UInt8]
    ) throws(KeychainFailure) -> ItemRow {
        if let secret, secret.count > Self.maximumSecretBytes {
            throw KeychainFailure(.dataTooLarge, "secrets are limited to \(Self.maximumSecretBytes) bytes")
        }
        guard let protection = ProtectionClass(attribute: attributes[.accessible]) else {
            throw KeychainFailure(.param, "unknown protection class")
        }
        // Apple: "No items can be stored in this class on devices without a passcode." iOS 9+ answers
        // errSecAuthFailed (UIDevice-PasscodeStatus PR #9); iOS 8 answered errSecDecode.
        if protection == .whenPasscodeSetThisDeviceOnly && keys.password == nil {
            throw KeychainFailure(.authFailed, "WhenPasscodeSet items need a keychain password")
        }
        var sync = false
        if case .bool(let flag)? = attributes[.synchronizable] { sync = flag }
        // docs/APPLE-SEMANTICS.md rule 20: a synchronizable item may not be …ThisDeviceOnly (kSecAttrSynchronizable).
        try ItemGateway.checkSynchronizable(sync, protection: protection)
        return try ItemRow.seal(
            itemClass, attributes: attributes, secret: secret, persistentRef: persistentRef, protection: protection,
            sync: sync, classKey: try classKey(protection), codec: codec)
    }

    func insert(
        _ itemClass: ItemClass, attributes: [String: AttributeValue], secret: SecureBytes?, persistentRef: [UInt8]
    ) throws(KeychainFailure) {
        let row = try sealRow(itemClass, attributes: attributes, secret: secret, persistentRef: persistentRef)
        try database.prepare(ItemRow.insertSQL).run(row.taggedValues + [.blob(row.tag)])
        try accumulate(row.tag, .secItem)
        if row.syncs { try journalLocalWrite(old: nil, new: (row.persistentRef, true)) }
    }

    /// Applies `changes` (and a new secret, when given) to every item `query` matches.
    /// - Returns: the number of items updated (0 when nothing matched).
    /// - Throws: `.duplicateItem` when a change would give an item the primary key of another.
    func update(
        _ query: ItemQuery, changes: [String: AttributeValue], secret: SecureBytes?, now: AbsoluteTime = .now
    ) throws(KeychainFailure) -> Int {
        // The stored secret is read only when it is kept (no new one given).
        let rows = try candidateRows(query, withSecret: secret == nil)
        var updated = 0
        var skippedOrphans = false
        for row in rows {
            // The three associated data of a row differ only in their part byte: build it once, relabel it.
            var ad = associatedData(.key, row)
            guard let key = try itemKeyUnlessOrphaned(row, associatedData: ad) else {
                skippedOrphans = true
                continue
            }
            AssociatedData.relabel(&ad, .item, as: .attributes)
            guard let record = row.openRecord(itemKey: key, associatedData: ad) else {
                throw KeychainFailure(.decode, "an item's attributes do not authenticate")
            }
            // No attribute changes (a new secret alone): `mdat` set in the record's bytes when that is what
            // the general path below would seal (``touchedRecord(_:_:query:now:)``).
            if changes.isEmpty, let touched = Self.touchedRecord(record, row.itemClass, query: query, now: now) {
                try reseal(
                    row, itemKey: key, record: touched.record, accessEntries: touched.accessEntries, secret: secret,
                    attributesAssociatedData: ad)
                updated += 1
                continue
            }
            guard let stored = ItemCodec.decodeAttributes(record) else {
                throw KeychainFailure(.decode, "an item's attributes do not authenticate")
            }
            guard Self.satisfies(stored, query) else { continue }
            try apply(changes: changes, to: row, itemKey: key, stored: stored, secret: secret, now: now)
            updated += 1
        }
        if updated == 0 && skippedOrphans { throw Self.orphanedFailure }
        return updated
    }

    /// Applies `changes` over one row's `stored` attributes, and the new secret when given (else the
    /// stored one is kept): the one step of both ``update(_:changes:secret:now:)`` and
    /// ``upsert(_:attributes:secret:groups:now:)``. Missing primary-key attributes take their
    /// defaults and `mdat` becomes `now`. The row keeps its item key and columns when its identity
    /// does not change (``keepsRowIdentity(_:_:_:)``: ``reseal(_:itemKey:attributes:secret:)``), and
    /// is rewritten whole under a fresh item key otherwise (``rewrite(_:attributes:secret:)``).
    /// - Throws: `.duplicateItem` when the change gives the item another item's primary key;
    ///   `.dataTooLarge`; `.decode` when the stored secret fails authentication.
    func apply(
        changes: [String: AttributeValue], to row: Row, itemKey key: ItemKey, stored: [String: AttributeValue],
        secret: SecureBytes?, now: AbsoluteTime
    ) throws(KeychainFailure) {
        var attributes = stored
        for (name, value) in changes { attributes[name] = value }
        attributes = Self.normalized(row.itemClass, attributes)
        attributes[.modificationDate] = .date(now)
        if Self.keepsRowIdentity(row.itemClass, stored, attributes) {
            try reseal(row, itemKey: key, attributes: attributes, secret: secret)
        } else {
            let kept: SecureBytes
            if let secret { kept = secret } else { kept = try openSecret(row, itemKey: key) }
            try rewrite(row, attributes: attributes, secret: kept)
        }
    }

    /// Whether an update from `old` to `new` attributes leaves every value the row's index columns and
    /// associated data are made of unchanged: the access group, `sync`, the protection class and the
    /// whole primary key (which includes the account and the service or server). Then
    /// ``reseal(_:itemKey:attributes:secret:)`` can keep the row's item key and columns.
    static func keepsRowIdentity(
        _ itemClass: ItemClass, _ old: [String: AttributeValue], _ new: [String: AttributeValue]
    ) -> Bool {
        guard old[.accessible] == new[.accessible], old[.accessGroup] == new[.accessGroup],
            old[.synchronizable] == new[.synchronizable]
        else { return false }
        for descriptor in itemClass.primaryKey where old[descriptor.name] != new[descriptor.name] { return false }
        return true
    }

    /// Updates one row in place under its existing item key: seals the new attributes (and the new
    /// secret, when given) with fresh nonces and rewrites only those columns and the tag. The item key,
    /// the persistent reference and every index column stay as they are, so SQLite touches no index; the
    /// key's wrapping too, unless the change adds or removes an access entry (``AccessEntryFlags``, wrapped
    /// with the key) or the key was wrapped before schema version 3. Only valid when
    /// ``keepsRowIdentity(_:_:_:)`` holds: the associated data (made of those columns) is then the same, so
    /// the row still authenticates.
    ///
    /// Keeping the item key is sound: XChaCha20-Poly1305's 192-bit random nonces make reuse of a key
    /// for many seals safe, and the key is no more exposed than before (it is only ever unwrapped with
    /// the class key, which opens every item of the class anyway). A fresh key would cost a random key,
    /// a wrap and, since the old secret is re-sealed under it, an open of the secret; and changing any
    /// column bound into the associated data (the class, the group, a digest) needs the full
    /// ``rewrite(_:attributes:secret:)``.
    /// - Parameters:
    ///   - row: the row as read, with its sealed secret when `secret` is `nil` (it is kept as it is).
    ///   - itemKey: the row's item key.
    ///   - secret: the new secret, or `nil` to keep the stored one.
    /// - Throws: `.dataTooLarge`; `.param` when the attributes cannot be encoded; SQLite failures.
    func reseal(_ row: Row, itemKey: ItemKey, attributes: [String: AttributeValue], secret: SecureBytes?)
        throws(KeychainFailure)
    {
        try Self.checkSecretSize(secret)
        // The access entries are sealed with the item key (``AccessEntryFlags``).
        let accessEntries = AccessEntryFlags(attributes)
        try reseal(
            row, itemKey: itemKey, record: try ItemCodec.encodeAttributes(attributes), accessEntries: accessEntries,
            secret: secret, attributesAssociatedData: associatedData(.attributes, row))
    }

    /// As ``reseal(_:itemKey:attributes:secret:)``, with the attributes already encoded as `record`, whose
    /// access entries are `accessEntries`; `attributesAssociatedData` is ``associatedData(_:_:)`` of
    /// `.attributes` for `row`.
    /// - Throws: `.dataTooLarge`; SQLite failures.
    func reseal(
        _ row: Row, itemKey: ItemKey, record: [UInt8], accessEntries: AccessEntryFlags, secret: SecureBytes?,
        attributesAssociatedData: [UInt8]
    ) throws(KeychainFailure) {
        try Self.checkSecretSize(secret)
        // When the change adds or removes an access entry, or the key was wrapped without them, the key is
        // wrapped again with the new ones.
        var wrappedKey: [UInt8]?
        if itemKey.accessEntries != accessEntries {
            var keyAssociatedData = attributesAssociatedData
            AssociatedData.relabel(&keyAssociatedData, .item, as: .key)
            wrappedKey = itemKey.wrapped(
                accessEntries: accessEntries, classKey: try classKey(row.protection),
                associatedData: keyAssociatedData)
        }
        let resealed = try row.resealed(
            record: record, secret: secret, itemKey: itemKey, wrappedKey: wrappedKey, codec: codec,
            attributesAssociatedData: attributesAssociatedData)
        if let wrappedKey {
            try database.prepare(.updateKeyAttributesAndSecret).run([
                .blob(wrappedKey), .blob(resealed.attributes), .blob(resealed.secret ?? []), .blob(resealed.tag),
                .integer(row.rowid),
            ])
        } else if secret != nil {
            try database.prepare(.updateAttributesAndSecret).run([
                .blob(resealed.attributes), .blob(resealed.secret ?? []), .blob(resealed.tag), .integer(row.rowid),
            ])
        } else {
            try database.prepare(.updateAttributes).run([
                .blob(resealed.attributes), .blob(resealed.tag), .integer(row.rowid),
            ])
        }
        try accumulate(IntegrityAccumulator.delta(from: row.tag, to: resealed.tag), .secItem)
        if row.syncs { try journalLocalWrite(old: (row.persistentRef, true), new: (row.persistentRef, true)) }
    }

    /// `.dataTooLarge` for a secret over ``maximumSecretBytes``.
    private static func checkSecretSize(_ secret: SecureBytes?) throws(KeychainFailure) {
        if let secret, secret.count > maximumSecretBytes {
            throw KeychainFailure(.dataTooLarge, "secrets are limited to \(maximumSecretBytes) bytes")
        }
    }

    /// Re-seals one row in place with a fresh item key.
    func rewrite(_ row: Row, attributes: [String: AttributeValue], secret: SecureBytes) throws(KeychainFailure) {
        let sealed = try sealRow(
            row.itemClass, attributes: attributes, secret: secret, persistentRef: row.persistentRef)
        try database.prepare(ItemRow.rewriteSQL).run(
            Array(sealed.taggedValues.dropFirst(2)) + [.blob(sealed.tag), .integer(row.rowid)])
        try accumulate(IntegrityAccumulator.delta(from: row.tag, to: sealed.tag), .secItem)
        if row.syncs || sealed.syncs {
            try journalLocalWrite(old: (row.persistentRef, row.syncs), new: (sealed.persistentRef, sealed.syncs))
        }
    }

    /// Deletes every item `query` matches.
    /// - Returns: the number deleted.
    func delete(_ query: ItemQuery) throws(KeychainFailure) -> Int {
        let rows = try candidateRows(query, withSecret: false)
        let covered = Self.isCoveredByIndex(query)
        var deleted = 0
        var skippedOrphans = false
        for row in rows {
            if let key = try itemKeyUnlessOrphaned(row, associatedData: associatedData(.key, row)) {
                if !covered {
                    guard Self.satisfies(try openAttributes(row, itemKey: key), query) else { continue }
                }
            } else if !covered {
                skippedOrphans = true
                continue
            }
            // An orphaned row selected by indexed attributes alone is deleted: it can never be
            // opened here, and its message tells the user to delete it.
            try deleteRow(row.rowid, tag: row.tag)
            deleted += 1
        }
        if deleted == 0 && skippedOrphans { throw Self.orphanedFailure }
        return deleted
    }

    /// Deletes one row, whose stored tag is `tag`, and takes the tag out of the accumulator.
    func deleteRow(_ rowid: Int64, tag: [UInt8]) throws(KeychainFailure) {
        try journalDeletion(rowid: rowid)
        try database.prepare("DELETE FROM items WHERE rowid = ?").run([.integer(rowid)])
        try accumulate(tag, .secItem)
    }

    /// The rowid and tag of the row whose `column` (a unique blob column: `pk`, `persistref`) is `value`.
    func rowIDAndTag(column: String, _ value: [UInt8]) throws(KeychainFailure) -> (rowid: Int64, tag: [UInt8])? {
        do {
            let statement = try database.prepare("SELECT rowid, tag FROM items WHERE \(column) = ?")
            try statement.bind([.blob(value)])
            defer { statement.finish() }
            return try statement.step() ? (statement.int64(0), statement.blob(1)) : nil
        }
    }

    /// Deletes every item of one protection class (used when the password is removed).
    func deleteAll(_ protection: ProtectionClass) throws(KeychainFailure) {
        var doomed: [(rowid: Int64, tag: [UInt8])] = []
        do {
            let select = try database.prepare("SELECT rowid, tag FROM items WHERE pdmn = ?")
            try select.bind([.integer(protection.code)])
            defer { select.finish() }
            while try select.step() { doomed.append((select.int64(0), select.blob(1))) }
        }
        for row in doomed { try deleteRow(row.rowid, tag: row.tag) }
    }
}
