/// Applying remote changes, reading local ones, and conflict copies: the store's half of sync (issue 26).
extension StoreSession {
    // MARK: - Local changes

    /// See ``Keystore/syncChanges(after:)``.
    func syncChanges(after serial: UInt64, limit: Int = .max) throws(KeychainFailure) -> (
        changes: [SyncChange], through: UInt64
    ) {
        try requireUnlockedForSync()
        try adoptUnjournaledItems()
        let secretItemsSync = try prepareSecretItemsForSync()
        let statement = try database.prepare(
            "SELECT \(SyncJournalEntry.columns), tag FROM \(SyncSchema.itemsTable) WHERE serial > ? AND local = 1 ORDER BY serial LIMIT ?"
        )
        try statement.bind([.integer(Int64(clamping: serial)), .integer(Int64(clamping: max(0, limit)))])
        var entries: [SyncJournalEntry] = []
        do {
            defer { statement.finish() }
            while try statement.step() { entries.append(try SyncJournalEntry(statement, codec: codec)) }
        }
        var changes: [SyncChange] = []
        var through = entries.last.map { UInt64($0.serial) } ?? serial
        for var entry in entries {
            var payload: SecureBytes?
            if let reference = entry.persistentRef {
                switch SyncReference(reference) {
                case .item(let persistentRef):
                    payload = try localContent(persistentRef, ancestors: entry.ancestors).map {
                        (content) throws(KeychainFailure) in
                        try SyncPayload.encode(
                            content.itemClass, attributes: content.attributes, secret: content.secret,
                            ancestors: entry.ancestors)
                    }
                case .secretItem(let number):
                    // Its content never leaves the device until `security sync enable` (a tombstone carries only the id).
                    guard secretItemsSync else { continue }
                    payload = try secretItemPayload(number, ancestors: entry.ancestors)
                }
                if payload == nil {
                    // The row went without its journal (a build without the journal deleted it): a delete now.
                    let old = entry
                    entry.persistentRef = nil
                    entry.ancestors = SyncJournalEntry.ancestry([old.clock], old.ancestors)
                    entry.clock = try nextSyncClock(now: Self.syncNow())
                    entry.serial = try nextSyncSerial()
                    try writeJournal(entry, replacing: old)
                    through = max(through, UInt64(entry.serial))
                }
            }
            changes.append(
                SyncChange(item: entry.item, clock: entry.clock, base: entry.ancestors.first, payload: payload))
        }
        return (changes, through)
    }

    // MARK: - Remote changes

    /// See ``Keystore/applySyncChanges(_:)``. `now` is the wall clock in Unix milliseconds.
    func applySyncChanges(_ received: [SyncChange], now: UInt64) throws(KeychainFailure) -> SyncApplyReport {
        try requireUnlockedForSync()
        // Changes that waited for a build that knows their kind come first (they were received earlier).
        let earlier = try waitingSyncChanges()
        var changes: [SyncChange] = []
        var waiting: [SyncChange] = []
        // Every payload is decoded before anything is written: a malformed one applies nothing. One of a kind or
        // version this build does not know waits, sealed, for a newer build.
        var decoded: [SyncPayload.Decoded?] = []
        for change in earlier.map(\.change) + received {
            if let payload = change.payload, SyncPayload.isFromNewerBuild(payload) {
                waiting.append(change)
                continue
            }
            changes.append(change)
            decoded.append(try change.payload.map(SyncPayload.decodeAny))
        }
        try ensureSyncTables()
        try setWaitingSyncChanges(waiting, replacing: earlier.map(\.name))
        syncTables.applying = true
        defer { syncTables.applying = false }
        var report = SyncApplyReport(waiting: waiting.count)
        for (change, decoded) in zip(changes, decoded) {
            try receiveSyncClock(change.clock, now: now)
            let held = try journalEntry(item: change.item)
            let content: SyncPayload.Content?
            switch decoded {
            case .item(let item)?: content = item
            case .secretItem(let secretItem)?:
                try applySecretItemChange(change, secretItem, held: held, report: &report)
                continue
            case nil:
                // A tombstone: of the kind the held entry names.
                switch held?.persistentRef.map(SyncReference.init) {
                case .secretItem?:
                    try applySecretItemChange(change, nil, held: held, report: &report)
                    continue
                case .item?, nil: content = nil
                }
            }
            let ancestors = content?.ancestors ?? change.base.map { [$0] } ?? []
            switch SyncMerge.decide(
                remote: change.clock, ancestors: ancestors, base: change.base, isTombstone: content == nil, held: held)
            {
            case .ignore:
                report.ignored += 1
            case .apply:
                if try apply(change, content, held: held, ancestors: ancestors) { report.conflicts += 1 }
                report.applied += 1
            case .applyKeepingHeldCopy:
                var kept = false
                if let held, let reference = held.persistentRef, let local = try localContent(reference, ancestors: [])
                {
                    if let content, content.sameContent(as: local) {
                    } else {
                        try keepConflictCopy(local, item: change.item, clock: held.clock)
                        kept = true
                    }
                }
                let merged = SyncJournalEntry.ancestry(ancestors, [held!.clock], held!.ancestors)
                if try apply(change, content, held: held, ancestors: merged) { kept = true }
                report.applied += 1
                if kept { report.conflicts += 1 }
            case .keepRemoteCopy:
                // The held version stays as it is (its ancestry too: what it descends from is unchanged, and the
                // device that made the loser must see the held version as concurrent to keep its own copy). A
                // copy already kept for this version makes the change a repeat.
                if let content, let reference = held?.persistentRef,
                    let local = try localContent(reference, ancestors: []), !content.sameContent(as: local),
                    try !hasConflictCopy(item: change.item, clock: change.clock)
                {
                    try keepConflictCopy(content, item: change.item, clock: change.clock)
                    report.conflicts += 1
                } else {
                    report.ignored += 1
                }
            }
        }
        return report
    }

    /// Writes one winning remote version (an edit or a tombstone) over `held`.
    /// - Returns: whether a conflict copy was kept because the version's primary key was taken by another item.
    private func apply(
        _ change: SyncChange, _ content: SyncPayload.Content?, held: SyncJournalEntry?, ancestors: [SyncClock]
    )
        throws(KeychainFailure) -> Bool
    {
        let serial = try nextSyncSerial()
        var entry = SyncJournalEntry(
            item: change.item, persistentRef: nil, clock: change.clock, ancestors: ancestors, serial: serial,
            local: false)
        guard let content else {
            if let reference = held?.persistentRef, let row = try row(persistentRef: reference) {
                try deleteRow(row.rowid, tag: row.tag)
            }
            try writeJournal(entry, replacing: held)
            return false
        }
        let secret = content.secret ?? SecureBytes(count: 0) { _ in }
        let heldRow = try held?.persistentRef.flatMap { (reference) throws(KeychainFailure) in
            try row(persistentRef: reference)
        }
        if let other = try rowByPrimaryKey(content.itemClass, content.attributes),
            other.persistentRef != heldRow?.persistentRef
        {
            return try applyOverTakenKey(change, content, entry: entry, held: held, heldRow: heldRow, other: other)
        }
        if let heldRow {
            try rewrite(heldRow, attributes: content.attributes, secret: secret)
            entry.persistentRef = heldRow.persistentRef
        } else {
            let reference = Array(content.itemClass.rawValue.utf8) + Sodium.randomBytes(16)
            try insert(
                content.itemClass, attributes: content.attributes, secret: content.secret, persistentRef: reference)
            entry.persistentRef = reference
        }
        try writeJournal(entry, replacing: held)
        return false
    }

    /// A remote version whose primary key is another local item's (two devices added the same item under two
    /// ids): the item with the smaller id keeps the key on every device, and the other version is kept as its
    /// conflict copy unless both hold the same content; the other id is left as a tombstone.
    private func applyOverTakenKey(
        _ change: SyncChange, _ content: SyncPayload.Content, entry: SyncJournalEntry, held: SyncJournalEntry?,
        heldRow: ItemRow?, other: ItemRow
    ) throws(KeychainFailure) -> Bool {
        var entry = entry
        let otherEntry = try journalEntry(persistentRef: other.persistentRef)
        let local = try localContent(other.persistentRef, ancestors: [])
        let same = local.map { content.sameContent(as: $0) } ?? false
        if heldRow == nil, otherEntry.map({ change.item < $0.item }) ?? true {
            // The remote id keeps the key: the local row takes the remote version and id.
            if let local, !same, let otherEntry {
                try keepConflictCopy(local, item: change.item, clock: otherEntry.clock)
            }
            try rewrite(other, attributes: content.attributes, secret: content.secret ?? SecureBytes(count: 0) { _ in })
            if var tombstone = otherEntry {
                tombstone.persistentRef = nil
                tombstone.local = false
                tombstone.serial = entry.serial
                try writeJournal(tombstone, replacing: otherEntry)
            }
            entry.persistentRef = other.persistentRef
            try writeJournal(entry, replacing: held)
            return !same && otherEntry != nil
        }
        // The local id keeps the key: the remote version is kept as its conflict copy (once).
        let owner = otherEntry?.item ?? change.item
        var keep = false
        if !same { keep = try !hasConflictCopy(item: owner, clock: change.clock) }
        if keep { try keepConflictCopy(content, item: owner, clock: change.clock) }
        // A remote edit of an item held here that would take another item's key leaves the held item as it is;
        // otherwise the remote id is recorded as a tombstone, so that its repeats are ignored.
        if heldRow == nil { try writeJournal(entry, replacing: held) }
        return keep
    }

    // MARK: - Conflict copies

    /// Keeps `content` as a conflict copy of `item`, sealed under the class key of its protection class.
    func keepConflictCopy(_ content: SyncPayload.Content, item: SyncItemID, clock: SyncClock) throws(KeychainFailure) {
        let payload = try SyncPayload.encode(
            content.itemClass, attributes: content.attributes, secret: content.secret, ancestors: [])
        try keepConflictCopy(payload, protection: content.protection, item: item, clock: clock)
    }

    /// Keeps `payload` (of either kind: its kind byte says which) as a conflict copy of `item`, sealed under the
    /// class key of `protection`.
    func keepConflictCopy(_ payload: SecureBytes, protection: ProtectionClass, item: SyncItemID, clock: SyncClock)
        throws(KeychainFailure)
    {
        let copy = SyncItemID.random()
        let sealed = Sodium.seal(
            payload, key: try classKey(protection).bytes,
            associatedData: conflictAssociatedData(copy: copy, item: item, clock: clock, protection: protection))
        let values: [SQLValue] = [
            .blob(copy.bytes), .blob(item.bytes), .blob(clock.encoded), .integer(protection.code), .blob(sealed),
        ]
        let tag = SyncRowTag.tag(SyncSchema.conflictsTable, values, codec: codec)
        try database.prepare(
            "INSERT INTO \(SyncSchema.conflictsTable) (copy, item, clock, pdmn, sealed, tag) VALUES (?, ?, ?, ?, ?, ?)"
        ).run(values + [.blob(tag)])
        try accumulate(tag, .sync)
    }

    /// Whether a conflict copy of `item` at `clock` is kept.
    func hasConflictCopy(item: SyncItemID, clock: SyncClock) throws(KeychainFailure) -> Bool {
        try database.scalar(
            "SELECT count(*) FROM \(SyncSchema.conflictsTable) WHERE item = ? AND clock = ?",
            [.blob(item.bytes), .blob(clock.encoded)]) > 0
    }

    /// One stored conflict copy, opened.
    struct ConflictRow {
        let copy: SyncItemID
        let item: SyncItemID
        let clock: SyncClock
        /// A SecItem item or a Secret Service item: the sealed payload's kind says which.
        let content: SyncPayload.Decoded
        let tag: [UInt8]
    }

    /// Every conflict copy (or only `copy`), oldest clock first, opened under its class key.
    /// - Throws: `.interactionNotAllowed` when a copy's class key is locked; `.decode` when a row was modified.
    func conflictRows(_ only: SyncItemID? = nil) throws(KeychainFailure) -> [ConflictRow] {
        guard try hasSyncTables() else { return [] }
        let statement = try database.prepare(
            "SELECT copy, item, clock, pdmn, sealed, tag FROM \(SyncSchema.conflictsTable)"
                + (only == nil ? "" : " WHERE copy = ?"))
        try statement.bind(only.map { [.blob($0.bytes)] } ?? [])
        var raw: [(values: [SQLValue], tag: [UInt8])] = []
        do {
            defer { statement.finish() }
            while try statement.step() {
                raw.append(
                    (
                        [
                            .blob(statement.blob(0)), .blob(statement.blob(1)), .blob(statement.blob(2)),
                            .integer(statement.int64(3)), .blob(statement.blob(4)),
                        ], statement.blob(5)
                    ))
            }
        }
        var rows: [ConflictRow] = []
        for (values, tag) in raw {
            guard SyncRowTag.tag(SyncSchema.conflictsTable, values, codec: codec) == tag,
                case .blob(let copyBytes) = values[0], case .blob(let itemBytes) = values[1],
                case .blob(let clockBytes) = values[2], case .integer(let code) = values[3],
                case .blob(let sealed) = values[4], let copy = SyncItemID(bytes: copyBytes),
                let item = SyncItemID(bytes: itemBytes), let clock = SyncClock(encoded: clockBytes),
                let protection = ProtectionClass(code: code)
            else { throw KeychainFailure(.decode, "a sync conflict copy was modified outside the keychain") }
            guard
                let payload = Sodium.openSecret(
                    sealed, key: try classKey(protection).bytes,
                    associatedData: conflictAssociatedData(copy: copy, item: item, clock: clock, protection: protection)
                )
            else { throw KeychainFailure(.decode, "a sync conflict copy does not authenticate") }
            rows.append(
                ConflictRow(copy: copy, item: item, clock: clock, content: try SyncPayload.decodeAny(payload), tag: tag)
            )
        }
        return rows.sorted { $0.clock < $1.clock }
    }

    /// Removes one conflict copy.
    func dropConflictCopy(_ row: ConflictRow) throws(KeychainFailure) {
        try database.prepare("DELETE FROM \(SyncSchema.conflictsTable) WHERE copy = ?").run([.blob(row.copy.bytes)])
        try accumulate(row.tag, .sync)
    }

    /// See ``Keystore/resolveSyncConflict(_:keep:)``.
    func resolveSyncConflict(_ copy: SyncItemID, keep: SyncConflictChoice) throws(KeychainFailure) {
        guard let conflict = try conflictRows(copy).first else {
            throw KeychainFailure(.itemNotFound, "no sync conflict copy has that id")
        }
        try dropConflictCopy(conflict)
        guard keep == .copy else { return }
        let content: SyncPayload.Content
        switch conflict.content {
        case .item(let item): content = item
        case .secretItem(let secretItem):
            try restoreSecretItemCopy(secretItem, item: conflict.item)
            return
        }
        let secret = content.secret ?? SecureBytes(count: 0) { _ in }
        let held = try journalEntry(item: conflict.item)
        if let reference = held?.persistentRef, let row = try row(persistentRef: reference) {
            // A local edit of the item: journaled (and reported by syncChanges) like any other.
            var attributes = content.attributes
            attributes[.modificationDate] = .date(.now)
            try rewrite(row, attributes: attributes, secret: secret)
            return
        }
        // The item was deleted meanwhile: the copy comes back under the item's id, as an edit after the delete.
        syncTables.applying = true
        defer { syncTables.applying = false }
        let reference = Array(content.itemClass.rawValue.utf8) + Sodium.randomBytes(16)
        try insert(content.itemClass, attributes: content.attributes, secret: content.secret, persistentRef: reference)
        let entry = SyncJournalEntry(
            item: conflict.item, persistentRef: reference, clock: try nextSyncClock(now: Self.syncNow()),
            ancestors: held.map { SyncJournalEntry.ancestry([$0.clock], $0.ancestors) } ?? [],
            serial: try nextSyncSerial(), local: true)
        try writeJournal(entry, replacing: held)
    }

    // MARK: - Helpers

    /// Sync reads and writes item content: they need the keychain unlocked (its WhenUnlocked class key).
    func requireUnlockedForSync() throws(KeychainFailure) {
        guard keys.classKey(.whenUnlocked) != nil else {
            throw KeychainFailure(.interactionNotAllowed, "the keychain is locked; sync waits for it to be unlocked")
        }
    }

    /// The row whose persistent reference is `reference`, with its sealed secret.
    func row(persistentRef reference: [UInt8]) throws(KeychainFailure) -> ItemRow? {
        let statement = try database.prepare(ItemRow.select(withSecret: true, "WHERE persistref = ?"))
        try statement.bind([.blob(reference)])
        defer { statement.finish() }
        return try statement.step() ? try ItemRow(statement, withSecret: true) : nil
    }

    /// The item at `reference` in portable form, or nil when there is no such row.
    func localContent(_ reference: [UInt8], ancestors: [SyncClock]) throws(KeychainFailure) -> SyncPayload.Content? {
        guard let row = try row(persistentRef: reference) else { return nil }
        let key = try itemKey(row)
        let attributes = Self.normalized(row.itemClass, try openAttributes(row, itemKey: key))
        let secret = try openSecret(row, itemKey: key)
        return SyncPayload.Content(
            itemClass: row.itemClass, ancestors: ancestors, attributes: attributes,
            secret: secret.count == 0 ? nil : secret)
    }

    private func conflictAssociatedData(
        copy: SyncItemID, item: SyncItemID, clock: SyncClock, protection: ProtectionClass
    )
        -> [UInt8]
    {
        Array("swkc.sync.conflict.v1".utf8) + codec.keychainID + copy.bytes + item.bytes + clock.encoded
            + [UInt8(protection.code)]
    }
}
