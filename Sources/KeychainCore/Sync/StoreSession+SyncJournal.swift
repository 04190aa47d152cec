/// The change journal's side of every item write (issue 26; the design brief's "change serial per write and
/// tombstones"): each write of a synchronizable item that may leave the device (`sync` true and a protection
/// class that is not `…ThisDeviceOnly`) stamps the item's ``SyncJournalEntry`` with a new hybrid logical clock
/// and the next local change serial, in the same transaction as the item write, so a crash can never separate
/// them. A delete leaves a tombstone (the entry without a row). Writes of other items never touch the journal
/// (no query at all while the sync tables do not exist, and one indexed lookup per delete once they do).
extension StoreSession {
    // MARK: - Tables, device, clock, serial

    /// Whether the file has the sync tables.
    func hasSyncTables() throws(KeychainFailure) -> Bool {
        try syncTables.exist(database, dataVersion: keys.dataVersion)
    }

    /// Creates the sync tables unless they exist (inside the current write transaction).
    func ensureSyncTables() throws(KeychainFailure) {
        if try hasSyncTables() { return }
        try database.execute(SyncSchema.create)
        syncTables.created()
    }

    /// This replica's device id, made and stored in `meta` at first use.
    func syncDevice() throws(KeychainFailure) -> SyncDeviceID {
        if let bytes = try Meta.blob(database, SyncSchema.deviceMeta) {
            guard let device = SyncDeviceID(bytes: bytes) else {
                throw KeychainFailure(.invalidKeychain, "the keychain's sync device id is malformed")
            }
            return device
        }
        let device = SyncDeviceID.random()
        try Meta.set(database, SyncSchema.deviceMeta, device.bytes)
        return device
    }

    /// The newest clock this device has made or received, if any.
    func lastSyncClock() throws(KeychainFailure) -> SyncClock? {
        try Meta.blob(database, SyncSchema.clockMeta).flatMap { SyncClock(encoded: $0) }
    }

    /// The stamp of a new local event, remembered as the newest clock.
    func nextSyncClock(now: UInt64) throws(KeychainFailure) -> SyncClock {
        let clock = SyncClock.next(after: try lastSyncClock(), now: now, device: try syncDevice())
        try Meta.set(database, SyncSchema.clockMeta, clock.encoded)
        return clock
    }

    /// Moves the local clock past a received stamp (the HLC receive rule).
    func receiveSyncClock(_ remote: SyncClock, now: UInt64) throws(KeychainFailure) {
        let device = try syncDevice()
        let last = try lastSyncClock() ?? SyncClock(milliseconds: 0, counter: 0, device: device)
        try Meta.set(database, SyncSchema.clockMeta, last.receiving(remote, now: now).encoded)
    }

    /// The next local change serial (`meta.sync_serial`, starting at 1).
    func nextSyncSerial() throws(KeychainFailure) -> Int64 {
        let serial = try Meta.integer(database, SyncSchema.serialMeta) + 1
        try Meta.set(database, SyncSchema.serialMeta, integer: serial)
        return serial
    }

    /// Unix time in milliseconds.
    static func syncNow() -> UInt64 { UInt64(max(0, AbsoluteTime.now.secondsSince1970 * 1000)) }

    // MARK: - Entries

    /// The entry of `item`, if the journal has one.
    func journalEntry(item: SyncItemID) throws(KeychainFailure) -> SyncJournalEntry? {
        try journalEntry(where: "item = ?", .blob(item.bytes))
    }

    /// The entry whose local row is `persistentRef`, if any.
    func journalEntry(persistentRef: [UInt8]) throws(KeychainFailure) -> SyncJournalEntry? {
        try journalEntry(where: "persistref = ?", .blob(persistentRef))
    }

    private func journalEntry(where clause: String, _ value: SQLValue) throws(KeychainFailure) -> SyncJournalEntry? {
        let statement = try database.prepare(
            "SELECT \(SyncJournalEntry.columns), tag FROM \(SyncSchema.itemsTable) WHERE \(clause)")
        try statement.bind([value])
        defer { statement.finish() }
        return try statement.step() ? try SyncJournalEntry(statement, codec: codec) : nil
    }

    /// Writes `entry`, which replaces `old` (the same item's entry as read in this transaction) or is new.
    func writeJournal(_ entry: SyncJournalEntry, replacing old: SyncJournalEntry?) throws(KeychainFailure) {
        let tag = entry.tag(codec)
        if let old {
            try database.prepare(
                "UPDATE \(SyncSchema.itemsTable) SET persistref = ?, clock = ?, ancestors = ?, serial = ?, local = ?, tag = ? WHERE item = ?"
            ).run(Array(entry.values.dropFirst()) + [.blob(tag), .blob(entry.item.bytes)])
            try accumulate(IntegrityAccumulator.delta(from: old.tag(codec), to: tag), .sync)
        } else {
            try database.prepare(
                "INSERT INTO \(SyncSchema.itemsTable) (\(SyncJournalEntry.columns), tag) VALUES (?, ?, ?, ?, ?, ?, ?)"
            ).run(entry.values + [.blob(tag)])
            try accumulate(tag, .sync)
        }
    }

    // MARK: - Local writes

    /// Journals one local write of an item row: `old` is the row before (nil for an insert), `new` after (nil
    /// for a delete), each as its persistent reference and whether it syncs (``ItemRow/syncs``).
    ///
    /// Nothing happens while remote changes are being applied (they journal themselves) or when neither side
    /// syncs. An item that starts to sync gets a new ``SyncItemID``; one that stops (deleted, or no longer
    /// synchronizable) leaves a tombstone.
    func journalLocalWrite(old: (persistentRef: [UInt8], syncs: Bool)?, new: (persistentRef: [UInt8], syncs: Bool)?)
        throws(KeychainFailure)
    {
        if syncTables.applying { return }
        let oldSyncs = old?.syncs ?? false
        let newSyncs = new?.syncs ?? false
        guard oldSyncs || newSyncs else { return }
        try ensureSyncTables()
        let entry = try old.flatMap { (old) throws(KeychainFailure) -> SyncJournalEntry? in
            oldSyncs ? try journalEntry(persistentRef: old.persistentRef) : nil
        }
        if !newSyncs && entry == nil { return }  // never journaled (an item from before the journal)
        let clock = try nextSyncClock(now: Self.syncNow())
        let serial = try nextSyncSerial()
        let updated = SyncJournalEntry(
            item: entry?.item ?? SyncItemID.random(), persistentRef: newSyncs ? new?.persistentRef : nil, clock: clock,
            ancestors: entry.map { SyncJournalEntry.ancestry([$0.clock], $0.ancestors) } ?? [], serial: serial,
            local: true)
        try writeJournal(updated, replacing: entry)
    }

    /// Journals the delete of the row `rowid` (called before the row goes): its entry becomes a tombstone.
    /// One indexed lookup when the sync tables exist; nothing otherwise.
    func journalDeletion(rowid: Int64) throws(KeychainFailure) {
        if syncTables.applying { return }
        guard try hasSyncTables() else { return }
        let statement = try database.prepare("SELECT persistref FROM items WHERE rowid = ?")
        try statement.bind([.integer(rowid)])
        let persistentRef = try statement.step() ? statement.blob(0) : nil
        statement.finish()
        guard let persistentRef else { return }
        try journalLocalWrite(old: (persistentRef, true), new: nil)
    }

    /// Gives an item just restored from a backup (and journaled under a fresh id by its insert) the sync identity
    /// the backup carried, so that it stays the same item on every device of the sync group (docs/BACKUP-FORMAT.md,
    /// kind 7):
    /// - when the journal has no entry with that id, the item takes the id with the backed-up clock and ancestors, as
    ///   a local change: a device that holds that version or a later one ignores it, one that never had it applies
    ///   it, and this device then applies any later version it receives as a successor;
    /// - when the id names a tombstone here (deleted since the backup, or replaced by this restore), the item comes
    ///   back under the id as an edit after that delete (a new clock descending from the tombstone and the backup);
    /// - when the id names another live item here, the restored item stays a new item with its fresh id.
    /// - Parameters:
    ///   - identity: the backup's record of the item's identity.
    ///   - reference: the restored row's journal reference (its persistent reference, or
    ///     ``SyncReference/secretItem(_:)``).
    /// - Returns: whether the item took the identity.
    @discardableResult
    func adoptRestoredSyncIdentity(_ identity: BackupMessage.SyncIdentity, reference: [UInt8])
        throws(KeychainFailure) -> Bool
    {
        guard try hasSyncTables(), let fresh = try journalEntry(persistentRef: reference), fresh.local,
            fresh.item != identity.item
        else { return false }
        let held = try journalEntry(item: identity.item)
        let entry: SyncJournalEntry
        if let held {
            guard held.persistentRef == nil else { return false }
            entry = SyncJournalEntry(
                item: identity.item, persistentRef: reference, clock: fresh.clock,
                ancestors: SyncJournalEntry.ancestry(
                    [held.clock], held.ancestors, [identity.clock], identity.ancestors),
                serial: fresh.serial, local: true)
        } else {
            try receiveSyncClock(identity.clock, now: Self.syncNow())
            entry = SyncJournalEntry(
                item: identity.item, persistentRef: reference, clock: identity.clock,
                ancestors: SyncJournalEntry.ancestry(identity.ancestors), serial: fresh.serial, local: true)
        }
        try database.prepare("DELETE FROM \(SyncSchema.itemsTable) WHERE item = ?").run([.blob(fresh.item.bytes)])
        try accumulate(fresh.tag(codec), .sync)
        try writeJournal(entry, replacing: held)
        return true
    }

    /// The sync identity of the live item whose journal reference is `reference`, for its backup record; nil when it
    /// was never journaled.
    func syncIdentity(reference: [UInt8]) throws(KeychainFailure) -> BackupMessage.SyncIdentity? {
        guard try hasSyncTables(), let entry = try journalEntry(persistentRef: reference) else { return nil }
        return BackupMessage.SyncIdentity(item: entry.item, clock: entry.clock, ancestors: entry.ancestors)
    }

    /// Gives every synchronizable item written before the journal existed (or by a build without it) an entry,
    /// once per file (`meta.sync_adopted`), so that it syncs like the others.
    func adoptUnjournaledItems() throws(KeychainFailure) {
        guard try Meta.integer(database, SyncSchema.adoptedMeta) == 0 else { return }
        try ensureSyncTables()
        let codes = ProtectionClass.allCases.filter(\.isMigratable).map { String($0.code) }.joined(separator: ", ")
        let statement = try database.prepare(
            "SELECT persistref FROM items WHERE sync = 1 AND pdmn IN (\(codes)) AND persistref NOT IN "
                + "(SELECT persistref FROM \(SyncSchema.itemsTable) WHERE persistref IS NOT NULL) ORDER BY rowid")
        try statement.bind([])
        var references: [[UInt8]] = []
        while try statement.step() { references.append(statement.blob(0)) }
        statement.finish()
        for reference in references { try journalLocalWrite(old: nil, new: (reference, true)) }
        try Meta.set(database, SyncSchema.adoptedMeta, integer: 1)
    }
}

extension ItemRow {
    /// Whether the row is journaled for sync: synchronizable, and not `…ThisDeviceOnly`.
    var syncs: Bool { sync && protection.isMigratable }
}
