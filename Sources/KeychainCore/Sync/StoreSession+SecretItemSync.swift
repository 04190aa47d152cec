/// Secret Service items in the sync journal (issues 23 and 26): every local write of one (create, set secret, set
/// label or attributes, access list, restore, delete) stamps its ``SyncJournalEntry`` with the next clock and local
/// change serial in the write's own transaction, as a synchronizable SecItem's write does, and a delete leaves a
/// tombstone. The entry names the item by number (``SyncReference/secretItem(_:)``).
///
/// Whether the items leave the device is the keychain's choice: `security sync enable [keychain]` sets
/// ``SyncSchema/secretItemsEnabledState``. Until then ``syncChanges(after:limit:)`` never reports them (their
/// payloads are never built); the first call after `enable` journals every item once more, so that changes made
/// while sync was off go out too. Items received from other devices are applied whether or not this keychain sends
/// its own, sealed under this device's WhenUnlocked class key.
extension StoreSession {
    // MARK: - Local writes

    /// Journals a local write of item `number` (`isNew`: it was created by this write).
    func journalSecretItemWrite(_ number: Int64, isNew: Bool) throws(KeychainFailure) {
        let reference = SyncReference.secretItem(number).bytes
        try journalLocalWrite(old: isNew ? nil : (reference, true), new: (reference, true))
    }

    /// Journals the delete of item `number` (called before the row goes): its entry becomes a tombstone.
    func journalSecretItemDeletion(_ number: Int64) throws(KeychainFailure) {
        try journalLocalWrite(old: (SyncReference.secretItem(number).bytes, true), new: nil)
    }

    /// Whether `security sync enable` marked this keychain's Secret Service items to sync.
    func secretItemsSync() throws(KeychainFailure) -> Bool {
        guard try hasSyncTables() else { return false }
        return try syncStateValue(SyncSchema.secretItemsEnabledState, sealed: false)?.value == [1]
    }

    /// Called by ``syncChanges(after:limit:)`` before it reads the journal: whether Secret Service items are sent.
    /// The first call after `enable` journals every item (and every journaled item since deleted) as a new local
    /// change; a call while disabled forgets that this was done.
    func prepareSecretItemsForSync() throws(KeychainFailure) -> Bool {
        let enabled = try secretItemsSync()
        let adopted = try Meta.integer(database, SyncSchema.secretItemsAdoptedMeta) != 0
        guard enabled else {
            if adopted { try Meta.set(database, SyncSchema.secretItemsAdoptedMeta, integer: 0) }
            return false
        }
        if adopted { return true }
        var unjournaled = Set(try secretItemNumbers())
        var journaled: [Int64] = []
        let statement = try database.prepare(
            "SELECT persistref FROM \(SyncSchema.itemsTable) WHERE persistref IS NOT NULL AND length(persistref) = 12")
        try statement.bind([])
        do {
            defer { statement.finish() }
            while try statement.step() {
                switch SyncReference(statement.blob(0)) {
                case .secretItem(let number): journaled.append(number)
                case .item: break
                }
            }
        }
        for number in journaled.sorted() {
            let reference = SyncReference.secretItem(number).bytes
            let exists = unjournaled.remove(number) != nil
            try journalLocalWrite(old: (reference, true), new: exists ? (reference, true) : nil)
        }
        for number in unjournaled.sorted() { try journalSecretItemWrite(number, isNew: true) }
        try Meta.set(database, SyncSchema.secretItemsAdoptedMeta, integer: 1)
        return true
    }

    /// Item `number` in portable form, or nil when there is no such item.
    func secretItemPayload(_ number: Int64, ancestors: [SyncClock]) throws(KeychainFailure) -> SecureBytes? {
        guard let item = try secretItem(number) else { return nil }
        let secret = try secretItemSecret(number)
        let portable = SecretItem(
            number: 0, label: item.label, attributes: item.attributes, created: item.created, modified: item.modified,
            access: item.access)
        return SyncPayload.encodeSecretItem(portable, secret, ancestors: ancestors)
    }

    // MARK: - Remote changes

    /// Merges one remote version of a Secret Service item (`content` nil: a tombstone) by the same rule as SecItem
    /// items (``SyncMerge``): a repeat or an older version is ignored, a successor applied, concurrent versions
    /// settled by the greater clock.
    ///
    /// Of two concurrent edits with different content the loser is kept as a conflict copy (on the device that held
    /// it and on the one that received it), as a SecItem item's is: `security sync conflicts` lists it and
    /// `security sync resolve` settles it (docs/SYNC.md, "Secret Service items").
    func applySecretItemChange(
        _ change: SyncChange, _ content: SyncPayload.SecretContent?, held: SyncJournalEntry?,
        report: inout SyncApplyReport
    ) throws(KeychainFailure) {
        let ancestors = content?.ancestors ?? change.base.map { [$0] } ?? []
        switch SyncMerge.decide(
            remote: change.clock, ancestors: ancestors, base: change.base, isTombstone: content == nil, held: held)
        {
        case .ignore:
            report.ignored += 1
        case .apply:
            try applySecretItem(change, content, held: held, ancestors: ancestors)
            report.applied += 1
        case .applyKeepingHeldCopy:
            var kept = false
            if let held, let local = try heldSecretItemContent(held) {
                if let content, content.sameContent(as: local) {
                } else {
                    try keepConflictCopy(local, item: change.item, clock: held.clock)
                    kept = true
                }
            }
            let merged = held.map { SyncJournalEntry.ancestry(ancestors, [$0.clock], $0.ancestors) } ?? ancestors
            try applySecretItem(change, content, held: held, ancestors: merged)
            report.applied += 1
            if kept { report.conflicts += 1 }
        case .keepRemoteCopy:
            // The held version stays as it is; a copy already kept for this version makes the change a repeat.
            if let content, let held, let local = try heldSecretItemContent(held), !content.sameContent(as: local),
                try !hasConflictCopy(item: change.item, clock: change.clock)
            {
                try keepConflictCopy(content, item: change.item, clock: change.clock)
                report.conflicts += 1
            } else {
                report.ignored += 1
            }
        }
    }

    /// The Secret Service item `held` names, in portable form; nil for a tombstone or a SecItem entry.
    private func heldSecretItemContent(_ held: SyncJournalEntry) throws(KeychainFailure) -> SyncPayload.SecretContent? {
        guard let reference = held.persistentRef, case .secretItem(let number) = SyncReference(reference),
            let item = try secretItem(number)
        else { return nil }
        let portable = SecretItem(
            number: 0, label: item.label, attributes: item.attributes, created: item.created, modified: item.modified,
            access: item.access)
        return SyncPayload.SecretContent(ancestors: [], item: portable, secret: try secretItemSecret(number))
    }

    /// Keeps a Secret Service item's version as a conflict copy of `item`, sealed under its class key.
    private func keepConflictCopy(_ content: SyncPayload.SecretContent, item: SyncItemID, clock: SyncClock)
        throws(KeychainFailure)
    {
        let payload = SyncPayload.encodeSecretItem(content.item, content.secret, ancestors: [])
        try keepConflictCopy(payload, protection: SecretItemSchema.protection, item: item, clock: clock)
    }

    /// `security sync resolve COPY copy` for a Secret Service item: the copy's label, attributes, access list and
    /// secret become the item's, as a local edit that is journaled and syncs; when the item was deleted meanwhile
    /// it comes back under the item's id, as an edit after the delete.
    func restoreSecretItemCopy(_ content: SyncPayload.SecretContent, item: SyncItemID) throws(KeychainFailure) {
        let now = UInt64(max(0, AbsoluteTime.now.secondsSince1970))
        let received = content.item
        let restored = SyncPayload.SecretContent(
            ancestors: [],
            item: SecretItem(
                number: 0, label: received.label, attributes: received.attributes, created: received.created,
                modified: now, access: received.access),
            secret: content.secret)
        let held = try journalEntry(item: item)
        if let reference = held?.persistentRef, case .secretItem(let number) = SyncReference(reference),
            try secretItem(number) != nil
        {
            // A local write: writeSecretItem journals it like any other.
            _ = try storeSyncedSecretItem(restored, over: number)
            return
        }
        syncTables.applying = true
        defer { syncTables.applying = false }
        let number = try storeSyncedSecretItem(restored, over: nil)
        let entry = SyncJournalEntry(
            item: item, persistentRef: SyncReference.secretItem(number).bytes,
            clock: try nextSyncClock(now: Self.syncNow()),
            ancestors: held.map { SyncJournalEntry.ancestry([$0.clock], $0.ancestors) } ?? [],
            serial: try nextSyncSerial(), local: true)
        try writeJournal(entry, replacing: held)
    }

    /// Writes one winning remote version of a Secret Service item over `held`.
    private func applySecretItem(
        _ change: SyncChange, _ content: SyncPayload.SecretContent?, held: SyncJournalEntry?, ancestors: [SyncClock]
    ) throws(KeychainFailure) {
        var number: Int64?
        if let reference = held?.persistentRef {
            switch SyncReference(reference) {
            case .secretItem(let held): number = held
            case .item: break
            }
        }
        var entry = SyncJournalEntry(
            item: change.item, persistentRef: nil, clock: change.clock, ancestors: ancestors,
            serial: try nextSyncSerial(), local: false)
        if let content {
            entry.persistentRef = SyncReference.secretItem(try storeSyncedSecretItem(content, over: number)).bytes
        } else if let number {
            _ = try deleteSecretItem(number)
        }
        try writeJournal(entry, replacing: held)
    }

    // MARK: - What changed

    /// See ``Keystore/journalChanges(after:)``.
    func journalChanges(after serial: Int64) throws(KeychainFailure) -> [JournalChange] {
        guard try hasSyncTables() else { return [] }
        let statement = try database.prepare(
            "SELECT \(SyncJournalEntry.columns), tag FROM \(SyncSchema.itemsTable) "
                + "WHERE local IN (0, 1) AND serial > ? ORDER BY serial")
        try statement.bind([.integer(serial)])
        defer { statement.finish() }
        var changes: [JournalChange] = []
        while try statement.step() {
            let entry = try SyncJournalEntry(statement, codec: codec)
            let kind: JournalChange.Kind
            switch entry.persistentRef.map(SyncReference.init) {
            case nil: kind = .deleted
            case .item?: kind = .secItem
            case .secretItem(let number)?: kind = .secretItem(number)
            }
            changes.append(JournalChange(item: entry.item, serial: entry.serial, kind: kind, local: entry.local))
        }
        return changes
    }
}
