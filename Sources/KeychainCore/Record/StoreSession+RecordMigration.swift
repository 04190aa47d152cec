extension StoreSession {
    // MARK: - Internal

    /// What one batch of ``convertLegacyRecords(_:after:limit:)`` did.
    struct RecordBatch {
        /// The rowid of the last row examined (the next batch starts after it).
        var lastRowID: Int64
        /// Rows whose property list was converted to an item record.
        var converted = 0
        /// Rows that already held an item record (converted by an earlier, interrupted run).
        var alreadyCurrent = 0
        /// Rows that do not open (orphaned `…ThisDeviceOnly` items, damaged rows): left as they are.
        var unopenable = 0
        /// No row of the class is left after this batch.
        var isLast = false
    }

    /// The `meta` entry holding the protection classes that may still have legacy records: bit `code`
    /// for each class code (1…7), as an 8-byte big-endian integer; absent or 0 when there are none.
    static let legacyRecordsMeta = "legacy_records"

    /// Upgrades a schema version 1 keychain to the current version (``Schema/version``), in the caller's
    /// write transaction: records
    /// in ``legacyRecordsMeta`` which protection classes hold (property-list) rows, and sets
    /// `user_version` to ``Schema/version``. Does nothing when another process already did it.
    /// - Returns: the classes marked (bit `code` per class), or `nil` when the file was already past version 1.
    /// - Throws: `.invalidKeychain`, `.io` or `.diskFull` for SQLite failures.
    func markLegacyRecords() throws(KeychainFailure) -> Int64? {
        do {
            guard try database.scalar("PRAGMA user_version") == Schema.legacyRecordVersion else { return nil }
            var mask: Int64 = 0
            let classes = try database.prepare("SELECT DISTINCT pdmn FROM items")
            try classes.bind([])
            defer { classes.finish() }
            while try classes.step() {
                let code = classes.int64(0)
                if (1...7).contains(code) { mask |= 1 << code }
            }
            try Meta.set(database, Self.legacyRecordsMeta, integer: mask)
            try database.execute("PRAGMA user_version = \(Schema.version)")
            return mask
        }
    }

    /// The classes that may still hold legacy records (see ``legacyRecordsMeta``).
    func legacyRecordClasses() throws(KeychainFailure) -> Int64 {
        try Meta.integer(database, Self.legacyRecordsMeta)
    }

    /// Converts up to `limit` rows of `protection` after `rowid` from property lists to item records,
    /// in the caller's write transaction; when the class has no rows left, clears its bit in
    /// ``legacyRecordsMeta``.
    ///
    /// Each row keeps its item key, wrapped key, secret and every index column: only the `attributes`
    /// ciphertext (sealed again under the same item key and associated data, with a fresh nonce) and the
    /// row's tag change, and the accumulator takes the tag's change. A row's plaintext tells the formats
    /// apart (`bplist00` or the record's version byte), so a batch interrupted by a crash is simply done
    /// again. The class key must be available (the caller checks ``SessionKeys/classKey(_:)``).
    /// - Throws: `.interactionNotAllowed` when the class key is locked; SQLite failures.
    func convertLegacyRecords(_ protection: ProtectionClass, after rowid: Int64, limit: Int) throws(KeychainFailure)
        -> RecordBatch
    {
        var rows: [Row] = []
        let select: Statement
        select = try database.prepare(
            ItemRow.select(withSecret: true, "WHERE pdmn = ? AND rowid > ? ORDER BY rowid LIMIT ?"))
        try select.bind([.integer(protection.code), .integer(rowid), .integer(Int64(limit))])
        defer { select.finish() }
        while true {
            let more: Bool
            more = try select.step()
            guard more else { break }
            rows.append(try Self.row(select, withSecret: true))
        }
        var batch = RecordBatch(lastRowID: rows.last?.rowid ?? rowid, isLast: rows.count < limit)
        for row in rows {
            var ad = associatedData(.key, row)
            guard let key = try? itemKey(row, associatedData: ad) else {
                batch.unopenable += 1
                continue
            }
            AssociatedData.relabel(&ad, .item, as: .attributes)
            guard let plain = Sodium.open(row.attributes, key: key.bytes, associatedData: ad) else {
                batch.unopenable += 1
                continue
            }
            if ItemRecordFormat.isRecord(plain) {
                batch.alreadyCurrent += 1
                continue
            }
            guard let attributes = ItemCodec.decodeLegacyAttributes(plain),
                let record = ItemRecordFormat.encode(attributes)
            else {
                batch.unopenable += 1
                continue
            }
            let converted = try row.resealed(record: record, secret: nil, itemKey: key, codec: codec)
            try database.prepare("UPDATE items SET attributes = ?, tag = ? WHERE rowid = ?").run([
                .blob(converted.attributes), .blob(converted.tag), .integer(row.rowid),
            ])
            try accumulate(IntegrityAccumulator.delta(from: row.tag, to: converted.tag), .secItem)
            batch.converted += 1
        }
        if batch.isLast {
            let remaining = try legacyRecordClasses() & ~(1 << protection.code)
            try Meta.set(database, Self.legacyRecordsMeta, remaining == 0 ? nil : Self.bigEndian(remaining))
        }
        return batch
    }

    private static func bigEndian(_ value: Int64) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
}
