/// Secret Service items inside one transaction (``Keystore`` opens and commits it). See
/// ``SecretItemSchema`` for the tables and ``SecretItemCodec`` for the sealing.
extension StoreSession {
    /// One `ss_items` row as stored.
    struct SecretItemRow {
        let number: Int64
        let serial: Int64
        let attributeSet: [UInt8]
        let metadata: [UInt8]
        let wrappedKey: [UInt8]
        let secret: [UInt8]
        let tag: [UInt8]

        /// The row at the cursor of a statement that selected ``StoreSession/secretItemColumns`` in order.
        init(_ statement: Statement) {
            number = statement.int64(0)
            serial = statement.int64(1)
            attributeSet = statement.blob(2)
            metadata = statement.blob(3)
            wrappedKey = statement.blob(4)
            secret = statement.blob(5)
            tag = statement.blob(6)
        }
    }

    static let secretItemColumns = "id, serial, attribute_set, metadata, wrapped_key, secret, tag"

    /// The codec for this keychain's Secret Service rows (keys derived from the index key).
    func secretItemCodec() throws(KeychainFailure) -> SecretItemCodec {
        guard let codec = keys.secretItemCodec() else { throw keys.foreignFailure }
        return codec
    }

    /// Whether the Secret Service tables exist (they are made by the first Secret Service write).
    /// Looked up once per connection and remembered (``SecretItemTables``): an "absent" answer is
    /// looked up again once another connection has committed.
    func hasSecretItemTables() throws(KeychainFailure) -> Bool {
        try secretItemTables.exist(database, dataVersion: keys.dataVersion)
    }

    // MARK: - Reading (works while locked)

    /// Items whose attributes contain every pair of `query` (`[:]`: every item), by item number.
    func secretItems(matching query: [String: String]) throws(KeychainFailure) -> [SecretItem] {
        guard try hasSecretItemTables() else { return [] }
        let codec = try secretItemCodec()
        var digests: [[UInt8]] = []
        let totalChanges = database.totalChanges()
        if query.count == 1, let (name, value) = query.first {
            digests = [codec.pairDigest(name, value)]
        } else if !query.isEmpty {
            // The rarest pair drives the search, so that it costs O(its matches): each pair's first
            // matches are read up to 2 (cheap on the (digest, item) key). A pair without a match means no
            // item matches. A pair with one names the only candidate: its row is read by number and its
            // opened attributes decide, as they confirm every search's matches below (the other pairs'
            // digests need not be made or looked up). Otherwise every pair's matches are counted up to 64
            // and the rarest drives the search, whose other pairs' (digest, item) entries must exist. A
            // pair found common before, with nothing changed since, is neither digested nor read again
            // (``SecretPairMemo``): a search by an `id` among items that all share another pair reads the
            // `id` pair's one entry and the item's row.
            for (name, value) in query {
                if let digest = secretPairs.commonPair(
                    name, value, dataVersion: keys.dataVersion, totalChanges: totalChanges)
                {
                    digests.append(digest)
                    continue
                }
                let digest = codec.pairDigest(name, value)
                let matches = try firstMatches(digest)
                switch matches.count {
                case 0: return []
                case 1: return try onlyCandidate(matches.item, matching: query, codec)
                default:
                    secretPairs.keepCommonPair(
                        name, value, digest: digest, dataVersion: keys.dataVersion, totalChanges: totalChanges)
                    digests.append(digest)
                }
            }
            var probed: [(count: Int64, digest: [UInt8])] = []
            for digest in digests { probed.append((try matchCount(digest, upTo: 64), digest)) }
            digests = probed.sorted { $0.count < $1.count }.map { $0.digest }
        }
        // One text per number of pairs, built and prepared once (``Database/prepare(key:_:)``).
        let statement = try database.prepare(key: Self.searchStatementKey(pairs: digests.count)) {
            Self.searchSQL(pairs: digests.count)
        }
        try statement.bind(digests.map { .blob($0) })
        var items: [SecretItem] = []
        let rows = try secretItemRows(statement)
        // A client reads the items it found next (their `Label`, `Locked`, secret): a search of a few
        // items keeps their rows for those reads.
        let keeps = rows.count <= 8
        for row in rows {
            if keeps { secretRows.keep(row, dataVersion: keys.dataVersion, totalChanges: totalChanges) }
            let item = try openedMetadata(row, codec)
            // Confirms the digests: a 16-byte digest collision must not make a false match.
            if query.allSatisfy({ item.attributes[$0.key] == $0.value }) { items.append(item) }
        }
        return items
    }

    /// The key of the search statement for `pairs` attribute pairs in the connection's cache of statements
    /// by key: negative, since the SecItem queries' keys (their shapes) are not.
    private static func searchStatementKey(pairs: Int) -> Int { -4 - pairs }

    /// The keys of the statements that read one item's row by number and count a pair's matches
    /// (negative, as ``searchStatementKey(pairs:)``).
    private static let pointReadStatementKey = -1
    private static let matchCountStatementKey = -2
    private static let firstMatchesStatementKey = -3

    /// The search for items having each of `pairs` attribute pairs (their digests bound in order, the
    /// rarest first); all items by number when `pairs` is 0.
    private static func searchSQL(pairs: Int) -> String {
        guard pairs > 0 else { return "SELECT \(secretItemColumns) FROM ss_items ORDER BY id" }
        let others = String(
            repeating: " AND EXISTS (SELECT 1 FROM ss_index y WHERE y.digest = ? AND y.item = x.item)",
            count: pairs - 1)
        // By the driver's item (the same number as i.id): its (digest, item) key is read in that order,
        // so SQLite sorts nothing (ORDER BY i.id made it build a temporary B-tree for every search).
        return "SELECT i.id, i.serial, i.attribute_set, i.metadata, i.wrapped_key, i.secret, i.tag"
            + " FROM ss_index x JOIN ss_items i ON i.id = x.item WHERE x.digest = ?" + others + " ORDER BY x.item"
    }

    /// The items having the attribute pair of `digest`, read up to 2: how many (0, 1 or 2) and the first.
    private func firstMatches(_ digest: [UInt8]) throws(KeychainFailure) -> (count: Int, item: Int64) {
        let statement = try database.prepare(key: Self.firstMatchesStatementKey) {
            "SELECT item FROM ss_index WHERE digest = ? LIMIT 2"
        }
        try statement.bind([.blob(digest)])
        defer { statement.finish() }
        guard try statement.step() else { return (0, 0) }
        let first = statement.int64(0)
        return (try statement.step() ? 2 : 1, first)
    }

    /// A search's result when one of its pairs has the single match `number`: that item when its opened
    /// attributes have every pair of `query` (the row read by number, and kept, as
    /// ``secretItemRow(_:)`` does), none otherwise.
    private func onlyCandidate(_ number: Int64, matching query: [String: String], _ codec: SecretItemCodec)
        throws(KeychainFailure) -> [SecretItem]
    {
        guard let row = try secretItemRow(number) else { return [] }
        let item = try openedMetadata(row, codec)
        return query.allSatisfy({ item.attributes[$0.key] == $0.value }) ? [item] : []
    }

    /// How many items have the attribute pair of `digest`, counted up to `bound` (one statement, the bound
    /// a parameter).
    private func matchCount(_ digest: [UInt8], upTo bound: Int64) throws(KeychainFailure) -> Int64 {
        try database.scalar(
            key: Self.matchCountStatementKey,
            { "SELECT count(*) FROM (SELECT 1 FROM ss_index WHERE digest = ? LIMIT ?)" },
            [.blob(digest), .integer(bound)])
    }

    /// One item's metadata, `nil` when there is no item with that number.
    func secretItem(_ number: Int64) throws(KeychainFailure) -> SecretItem? {
        guard let row = try secretItemRow(number) else { return nil }
        return try secretItem(row)
    }

    /// The metadata of a row already read.
    func secretItem(_ row: SecretItemRow) throws(KeychainFailure) -> SecretItem {
        try openedMetadata(row, secretItemCodec())
    }

    /// Item `number`'s row when ``secretRows`` holds it for the connection's data as it is; runs no SQL
    /// (``Keystore/unchangedRead(_:)``).
    func cachedSecretItemRow(_ number: Int64) -> SecretItemRow? {
        secretRows.row(number, dataVersion: keys.dataVersion, totalChanges: database.totalChanges())
    }

    /// A read's metadata of `row`: opened once per sealed value on this connection (``SecretMetadataCache``).
    private func openedMetadata(_ row: SecretItemRow, _ codec: SecretItemCodec) throws(KeychainFailure) -> SecretItem {
        try secretMetadata.item(row.number, sealed: row.metadata, attributeSet: row.attributeSet) {
            () throws(KeychainFailure) -> SecretItem in
            try codec.openMetadata(row.metadata, number: row.number, attributeSet: row.attributeSet)
        }
    }

    /// Item `number`'s row, from ``secretRows`` when it was read since nothing changed.
    func secretItemRow(_ number: Int64) throws(KeychainFailure) -> SecretItemRow? {
        guard try hasSecretItemTables() else { return nil }
        let totalChanges = database.totalChanges()
        if let row = secretRows.row(number, dataVersion: keys.dataVersion, totalChanges: totalChanges) { return row }
        let statement = try database.prepare(key: Self.pointReadStatementKey) {
            "SELECT \(Self.secretItemColumns) FROM ss_items WHERE id = ?"
        }
        try statement.bind([.integer(number)])
        let row = try secretItemRows(statement).first
        if let row { secretRows.keep(row, dataVersion: keys.dataVersion, totalChanges: totalChanges) }
        return row
    }

    func secretItemRows(_ sql: String, _ values: [SQLValue]) throws(KeychainFailure) -> [SecretItemRow] {
        let statement = try database.prepare(sql)
        try statement.bind(values)
        return try secretItemRows(statement)
    }

    /// The rows `statement` (bound) returns; it is finished after.
    private func secretItemRows(_ statement: Statement) throws(KeychainFailure) -> [SecretItemRow] {
        defer { statement.finish() }
        var rows: [SecretItemRow] = []
        while try statement.step() { rows.append(SecretItemRow(statement)) }
        return rows
    }

    /// An item's secret.
    /// - Throws: `.itemNotFound`; `.interactionNotAllowed` while the keychain is locked; `.decode`.
    func secretItemSecret(_ number: Int64) throws(KeychainFailure) -> SecretItemSecret {
        guard let row = try secretItemRow(number) else { throw KeychainFailure(.itemNotFound) }
        let codec = try secretItemCodec()
        let itemKey = try secretItemKey(row, codec)
        return try codec.openSecret(row.secret, itemKey: itemKey, number: row.number)
    }

    /// ``Keystore/secretItem(_:secretIf:)`` inside the caller's transaction: one row read.
    func secretItem(_ number: Int64, secretIf allowed: (SecretItem) -> Bool) throws(KeychainFailure)
        -> (item: SecretItem, secret: SecretItemSecret?)?
    {
        guard let row = try secretItemRow(number) else { return nil }
        return try secretItem(row, secretIf: allowed)
    }

    /// ``secretItem(_:secretIf:)`` of a row already read.
    func secretItem(_ row: SecretItemRow, secretIf allowed: (SecretItem) -> Bool) throws(KeychainFailure)
        -> (item: SecretItem, secret: SecretItemSecret?)
    {
        let codec = try secretItemCodec()
        let item = try openedMetadata(row, codec)
        guard allowed(item) else { return (item, nil) }
        let itemKey = try secretItemKey(row, codec)
        return (item, try codec.openSecret(row.secret, itemKey: itemKey, number: row.number))
    }

    private func secretItemKey(_ row: SecretItemRow, _ codec: SecretItemCodec) throws(KeychainFailure) -> ItemKey {
        let classKey = try classKey(SecretItemSchema.protection)
        let ad = codec.associatedData(.key, number: row.number, attributeSet: [])
        guard let key = Sodium.openSecret(row.wrappedKey, key: classKey.bytes, associatedData: ad) else {
            throw KeychainFailure(.decode, "a Secret Service item's key does not authenticate")
        }
        return ItemKey(key)
    }

    /// Item numbers and serials written after `serial`, and the latest serial.
    func secretItemChanges(after serial: Int64) throws(KeychainFailure) -> SecretItemChanges {
        guard try hasSecretItemTables() else { return SecretItemChanges(written: [], latestSerial: 0) }
        var written: [(number: Int64, serial: Int64)] = []
        let statement = try database.prepare("SELECT id, serial FROM ss_items WHERE serial > ? ORDER BY serial")
        try statement.bind([.integer(serial)])
        defer { statement.finish() }
        while try statement.step() { written.append((statement.int64(0), statement.int64(1))) }
        return SecretItemChanges(
            written: written, latestSerial: try Meta.integer(database, SecretItemSchema.serialMeta))
    }

    /// Every item number, ascending.
    func secretItemNumbers() throws(KeychainFailure) -> [Int64] {
        guard try hasSecretItemTables() else { return [] }
        let statement = try database.prepare("SELECT id FROM ss_items ORDER BY id")
        try statement.bind([])
        defer { statement.finish() }
        var numbers: [Int64] = []
        while try statement.step() { numbers.append(statement.int64(0)) }
        return numbers
    }

    // MARK: - Writing (each needs the keychain unlocked)

    /// Creates an item, or with `replace` replaces the label, secret and modified time of the first
    /// item (lowest number) whose attribute set equals `attributes` exactly. A new item is sealed with
    /// `access` (its creator as owner) in the same write, so no kill leaves it without an owner; a
    /// replaced item keeps its list.
    /// - Returns: the item's number and whether an existing item was replaced.
    /// - Throws: `.interactionNotAllowed` while locked; `.dataTooLarge` for a secret over
    ///   ``StoreSession/maximumSecretBytes``; `.diskFull`, `.io`.
    func createSecretItem(
        label: String, attributes: [String: String], secret: SecretItemSecret, replace: Bool, now: UInt64,
        access: SecretItemAccess? = nil
    ) throws(KeychainFailure) -> (number: Int64, replaced: Bool) {
        _ = try classKey(SecretItemSchema.protection)
        try checkSecretSize(secret)
        try ensureSecretItemTables()
        let codec = try secretItemCodec()
        let attributeSet = codec.setDigest(attributes)
        if replace {
            for row in try secretItemRows(
                "SELECT \(Self.secretItemColumns) FROM ss_items WHERE attribute_set = ? ORDER BY id",
                [.blob(attributeSet)])
            {
                var item = try codec.openMetadata(row.metadata, number: row.number, attributeSet: row.attributeSet)
                guard item.attributes == attributes else { continue }
                item.label = label
                item.modified = now
                try writeSecretItem(item, secret: secret, replacing: row, codec)
                return (row.number, true)
            }
        }
        let number = try nextSecretItemNumber()
        let item = SecretItem(
            number: number, label: label, attributes: attributes, created: now, modified: now, access: access)
        try writeSecretItem(item, secret: secret, replacing: nil, codec)
        CrashPoint.reach(CrashPoint.secretItemWritten)
        return (number, false)
    }

    /// Replaces an item's secret (and its modified time).
    /// - Throws: `.itemNotFound`; `.interactionNotAllowed` while locked; `.dataTooLarge`.
    func setSecretItemSecret(_ number: Int64, _ secret: SecretItemSecret, now: UInt64) throws(KeychainFailure) {
        _ = try classKey(SecretItemSchema.protection)
        try checkSecretSize(secret)
        guard let row = try secretItemRow(number) else { throw KeychainFailure(.itemNotFound) }
        let codec = try secretItemCodec()
        var item = try codec.openMetadata(row.metadata, number: number, attributeSet: row.attributeSet)
        item.modified = now
        try writeSecretItem(item, secret: secret, replacing: row, codec)
    }

    /// Replaces an item's label and/or attributes (and its modified time); the secret is kept.
    /// - Throws: `.itemNotFound`; `.interactionNotAllowed` while locked.
    func updateSecretItem(_ number: Int64, label: String?, attributes: [String: String]?, now: UInt64)
        throws(KeychainFailure)
    {
        _ = try classKey(SecretItemSchema.protection)
        guard let row = try secretItemRow(number) else { throw KeychainFailure(.itemNotFound) }
        let codec = try secretItemCodec()
        var item = try codec.openMetadata(row.metadata, number: number, attributeSet: row.attributeSet)
        if let label { item.label = label }
        if let attributes { item.attributes = attributes }
        item.modified = now
        try writeSecretItem(item, secret: nil, replacing: row, codec)
    }

    /// Deletes an item. - Returns: whether it existed.
    /// - Throws: `.interactionNotAllowed` while locked.
    func deleteSecretItem(_ number: Int64) throws(KeychainFailure) -> Bool {
        _ = try classKey(SecretItemSchema.protection)
        guard let row = try secretItemRow(number) else { return false }
        try journalSecretItemDeletion(number)
        try database.prepare("DELETE FROM ss_items WHERE id = ?").run([.integer(number)])
        try database.prepare("DELETE FROM ss_index WHERE item = ?").run([.integer(number)])
        try accumulate(row.tag, .secretService)
        _ = try nextSecretItemSerial()
        return true
    }

    // MARK: - Backup and restore

    /// Calls `body` with each item, by number, its metadata and secret opened, reading with a cursor
    /// so that memory does not grow with the number of items.
    /// - Returns: the number of items.
    /// - Throws: `.interactionNotAllowed` while the keychain is locked (a backup never leaves items
    ///   out silently); `.decode` when a row does not authenticate; whatever `body` throws.
    @discardableResult
    func forEachSecretItem(_ body: (SecretItem, SecretItemSecret) throws(KeychainFailure) -> Void)
        throws(KeychainFailure) -> Int
    {
        guard try hasSecretItemTables() else { return 0 }
        let codec = try secretItemCodec()
        let statement = try database.prepare("SELECT \(Self.secretItemColumns) FROM ss_items ORDER BY id")
        try statement.bind([])
        defer { statement.finish() }
        var count = 0
        while try statement.step() {
            let row = SecretItemRow(statement)
            let item = try codec.openMetadata(row.metadata, number: row.number, attributeSet: row.attributeSet)
            let secret = try codec.openSecret(row.secret, itemKey: try secretItemKey(row, codec), number: row.number)
            try body(item, secret)
            count += 1
        }
        return count
    }

    /// Stores an item from a backup with its own label, dates and secret, under a new number.
    ///
    /// An item numbered up to `existing` whose attribute set *equals* the item's (the identity
    /// `CreateItem` replaces by) is a conflict, settled by `policy`: `.skip` keeps it, `.replace` gives
    /// it the backup's label, dates and secret (keeping its number, so its object path), `.fail`
    /// stops. Items stored by the same restore (numbers above `existing`) are never conflicts: a
    /// keychain may hold several items with the same attributes, and they all come back.
    /// - Parameter existing: the highest item number before the restore (``secretItemHighWater()``).
    /// - Returns: what was done, and the number of the item stored or kept.
    /// - Throws: `.duplicateItem` for a conflict under `.fail`; `.interactionNotAllowed` while
    ///   locked; `.dataTooLarge` for a secret over 4 MiB; `.diskFull`, `.io`.
    func restoreSecretItem(
        _ item: SecretItem, _ secret: SecretItemSecret, policy: ConflictPolicy, existing: Int64
    ) throws(KeychainFailure) -> (RestoreOutcome, number: Int64) {
        _ = try classKey(SecretItemSchema.protection)
        try checkSecretSize(secret)
        try ensureSecretItemTables()
        let codec = try secretItemCodec()
        for row in try secretItemRows(
            "SELECT \(Self.secretItemColumns) FROM ss_items WHERE attribute_set = ? AND id <= ? ORDER BY id",
            [.blob(codec.setDigest(item.attributes)), .integer(existing)])
        {
            let existing = try codec.openMetadata(row.metadata, number: row.number, attributeSet: row.attributeSet)
            guard existing.attributes == item.attributes else { continue }
            switch policy {
            case .skip: return (.skipped, row.number)
            case .fail:
                throw KeychainFailure(
                    .duplicateItem, "a Secret Service item with the same attributes is already in the keychain")
            case .replace:
                let replacement = SecretItem(
                    number: row.number, label: item.label, attributes: item.attributes, created: item.created,
                    modified: item.modified)
                try writeSecretItem(replacement, secret: secret, replacing: row, codec)
                return (.replaced, row.number)
            }
        }
        let stored = SecretItem(
            number: try nextSecretItemNumber(), label: item.label, attributes: item.attributes, created: item.created,
            modified: item.modified)
        try writeSecretItem(stored, secret: secret, replacing: nil, codec)
        return (.inserted, stored.number)
    }

    /// The highest item number in use (0 when there is none).
    func secretItemHighWater() throws(KeychainFailure) -> Int64 {
        guard try hasSecretItemTables() else { return 0 }
        return try database.scalar("SELECT coalesce(max(id), 0) FROM ss_items")
    }

    // MARK: - Integrity

    /// Checks every Secret Service row's tag, the XOR of all tags against `meta.ss_accumulator`, and
    /// that `ss_index` holds exactly the digests of each item's attributes.
    /// - Returns: the number of Secret Service items checked.
    /// - Throws: `.decode` naming what does not match.
    func verifySecretItems() throws(KeychainFailure) -> Int {
        guard try hasSecretItemTables() else { return 0 }
        let codec = try secretItemCodec()
        var accumulator = IntegrityAccumulator()
        var expectedIndex = 0
        let rows = try secretItemRows("SELECT \(Self.secretItemColumns) FROM ss_items ORDER BY id", [])
        for row in rows {
            let tag = codec.rowTag(
                number: row.number, serial: row.serial, attributeSet: row.attributeSet, metadata: row.metadata,
                wrappedKey: row.wrappedKey, secret: row.secret)
            guard tag == row.tag else {
                throw KeychainFailure(.decode, "Secret Service item \(row.number) was modified outside the keychain")
            }
            accumulator.add(tag)
            let item = try codec.openMetadata(row.metadata, number: row.number, attributeSet: row.attributeSet)
            guard codec.setDigest(item.attributes) == row.attributeSet else {
                throw KeychainFailure(.decode, "Secret Service item \(row.number) has a wrong attribute-set digest")
            }
            for (name, value) in item.attributes {
                let present: Int64
                present = try database.scalar(
                    "SELECT count(*) FROM ss_index WHERE digest = ? AND item = ?",
                    [.blob(codec.pairDigest(name, value)), .integer(row.number)])
                guard present == 1 else {
                    throw KeychainFailure(
                        .decode, "Secret Service item \(row.number) is missing from the attribute index")
                }
            }
            expectedIndex += item.attributes.count
        }
        let indexRows: Int64
        indexRows = try database.scalar("SELECT count(*) FROM ss_index")
        guard indexRows == expectedIndex else {
            throw KeychainFailure(.decode, "the Secret Service attribute index holds entries for no item")
        }
        guard accumulator.matches(try Meta.blob(database, RowKind.secretService.accumulatorMeta)) else {
            throw KeychainFailure(
                .decode,
                "the keychain's Secret Service items do not match their integrity record: a row was replayed, removed or added"
            )
        }
        return rows.count
    }

    // MARK: - Private

    private func checkSecretSize(_ secret: SecretItemSecret) throws(KeychainFailure) {
        guard secret.value.count <= Self.maximumSecretBytes * 4 else {
            throw KeychainFailure(
                .dataTooLarge, "Secret Service secrets are limited to \(Self.maximumSecretBytes * 4) bytes")
        }
    }

    private func ensureSecretItemTables() throws(KeychainFailure) {
        guard try !hasSecretItemTables() else { return }
        try database.execute(SecretItemSchema.create)
        secretItemTables.created()
    }

    /// Writes `item` (a new row when `replacing` is `nil`), re-indexing its attributes. With `secret`
    /// `nil` the stored secret and item key are kept.
    func writeSecretItem(
        _ item: SecretItem, secret: SecretItemSecret?, replacing old: SecretItemRow?, _ codec: SecretItemCodec
    ) throws(KeychainFailure) {
        let attributeSet = codec.setDigest(item.attributes)
        let metadata = codec.sealMetadata(item, attributeSet: attributeSet)
        var wrappedKey: [UInt8]
        var sealedSecret: [UInt8]
        if let secret {
            let classKey = try classKey(SecretItemSchema.protection)
            let itemKey = ItemKey.random()
            wrappedKey = Sodium.seal(
                itemKey.bytes, key: classKey.bytes,
                associatedData: codec.associatedData(.key, number: item.number, attributeSet: []))
            sealedSecret = codec.sealSecret(secret, itemKey: itemKey, number: item.number)
        } else {
            guard let old else { throw KeychainFailure(.param, "a new Secret Service item needs a secret") }
            wrappedKey = old.wrappedKey
            sealedSecret = old.secret
        }
        let serial = try nextSecretItemSerial()
        let tag = codec.rowTag(
            number: item.number, serial: serial, attributeSet: attributeSet, metadata: metadata, wrappedKey: wrappedKey,
            secret: sealedSecret)
        let columns: [SQLValue] = [
            .integer(serial), .blob(attributeSet), .blob(metadata), .blob(wrappedKey), .blob(sealedSecret), .blob(tag),
        ]
        if let old {
            try database.prepare(
                "UPDATE ss_items SET serial = ?, attribute_set = ?, metadata = ?, wrapped_key = ?, secret = ?, tag = ? WHERE id = ?"
            ).run(columns + [.integer(item.number)])
            if old.attributeSet != attributeSet {
                try database.prepare("DELETE FROM ss_index WHERE item = ?").run([.integer(item.number)])
                try index(item, codec)
            }
        } else {
            try database.prepare(
                "INSERT INTO ss_items (id, serial, attribute_set, metadata, wrapped_key, secret, tag) VALUES (?, ?, ?, ?, ?, ?, ?)"
            ).run([.integer(item.number)] + columns)
            try index(item, codec)
        }
        try accumulate(old.map { IntegrityAccumulator.delta(from: $0.tag, to: tag) } ?? tag, .secretService)
        try journalSecretItemWrite(item.number, isNew: old == nil)
    }

    /// Stores a Secret Service item received from another device (``applySyncChanges(_:now:)``): over item
    /// `number` when it is given and exists (keeping its number, so its object path), else as a new item. Label,
    /// attributes, dates, access list and secret are the received ones.
    /// - Returns: the item's number.
    /// - Throws: `.interactionNotAllowed` while locked; `.dataTooLarge` for a secret over the limit; `.diskFull`, `.io`.
    func storeSyncedSecretItem(_ content: SyncPayload.SecretContent, over number: Int64?) throws(KeychainFailure)
        -> Int64
    {
        _ = try classKey(SecretItemSchema.protection)
        try checkSecretSize(content.secret)
        try ensureSecretItemTables()
        let codec = try secretItemCodec()
        let row = try number.flatMap { (number) throws(KeychainFailure) in try secretItemRow(number) }
        let received = content.item
        let itemNumber: Int64
        if let row { itemNumber = row.number } else { itemNumber = try nextSecretItemNumber() }
        let item = SecretItem(
            number: itemNumber, label: received.label, attributes: received.attributes,
            created: received.created, modified: received.modified, access: received.access)
        try writeSecretItem(item, secret: content.secret, replacing: row, codec)
        return item.number
    }

    /// The next item number: above every number ever used (`sqlite_sequence`), so never reused.
    private func nextSecretItemNumber() throws(KeychainFailure) -> Int64 {
        max(
            try database.scalar("SELECT coalesce(max(seq), 0) FROM sqlite_sequence WHERE name = 'ss_items'"),
            try database.scalar("SELECT coalesce(max(id), 0) FROM ss_items")) + 1
    }

    private func index(_ item: SecretItem, _ codec: SecretItemCodec) throws(KeychainFailure) {
        let insert = try database.prepare("INSERT OR IGNORE INTO ss_index (digest, item) VALUES (?, ?)")
        for (name, value) in item.attributes {
            try insert.run([.blob(codec.pairDigest(name, value)), .integer(item.number)])
        }
    }

    private func nextSecretItemSerial() throws(KeychainFailure) -> Int64 {
        let serial = try Meta.integer(database, SecretItemSchema.serialMeta) + 1
        try Meta.set(database, SecretItemSchema.serialMeta, integer: serial)
        return serial
    }
}
