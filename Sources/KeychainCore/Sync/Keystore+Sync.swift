/// What the store offers the sync protocol (issue 26; the seam with `KeychainSync`, docs/SYNC.md): the device id,
/// local changes since a cursor, merging remote changes, conflict copies, and the engine's own state. Each call is
/// one transaction on this keychain file.
extension Keystore {
    /// This replica's device id: made at first use and kept in the file's `meta` table (not secret).
    /// - Returns: the same id on every call for this file.
    /// - Throws: ``KeychainFailure`` with `.invalidKeychain` when the stored id is malformed; `.io` or `.diskFull`
    ///   when the first id cannot be written.
    package func syncDeviceID() throws(KeychainFailure) -> SyncDeviceID {
        try write { (s: borrowing StoreSession) throws(KeychainFailure) in try s.syncDevice() }
    }

    /// Local changes to synchronizable items (and their tombstones) whose local change serial is greater than
    /// `serial`, oldest first: each item once, in its current state.
    ///
    /// Only items with `kSecAttrSynchronizable` true and an accessibility that is not `…ThisDeviceOnly` appear;
    /// changes written by ``applySyncChanges(_:)`` do not. The first call also journals synchronizable items
    /// written before the journal existed. Cost: one indexed range of the journal, O(changes).
    /// - Parameters:
    ///   - serial: the caller's cursor: 0 for everything.
    ///   - limit: at most this many changes (the oldest); the caller asks again from `through` for the rest, so a
    ///     first sync of a large keychain never holds every payload's zeroising buffer at once.
    /// - Returns: the changes (payloads in ``SyncPayload`` form, plaintext in zeroising buffers), and the newest
    ///   serial they cover (`serial` when there are none), the caller's next cursor.
    /// - Throws: ``KeychainFailure`` with `.interactionNotAllowed` (errSecInteractionNotAllowed) while the
    ///   keychain is locked; `.decode` when a journal row or an item fails authentication.
    package func syncChanges(after serial: UInt64, limit: Int = .max) throws(KeychainFailure) -> (
        changes: [SyncChange], through: UInt64
    ) {
        try write { (s: borrowing StoreSession) throws(KeychainFailure) in
            try s.syncChanges(after: serial, limit: limit)
        }
    }

    /// Every journaled write after local change serial `serial`, oldest first, of both kinds of item that sync
    /// (synchronizable SecItem items and Secret Service items) and their tombstones, whether made here or applied
    /// from another device: "what changed since serial N", one indexed range of the journal (`(local, serial)`).
    ///
    /// Every write of a Secret Service item is journaled (create, set secret, set label or attributes, delete),
    /// whether or not the keychain syncs them; SecItem items only while synchronizable and not `…ThisDeviceOnly`.
    /// Items written by builds before the journal appear once written again (or once sync adopts them). Serials
    /// strictly increase over every write of the file, by any process: the serial lives in the file and each write
    /// takes the next one inside its own write transaction.
    /// - Parameter serial: the caller's cursor (0 for everything); the last answer's greatest ``JournalChange/serial``.
    /// - Returns: one ``JournalChange`` per item, in its current state, by increasing serial (empty for a file
    ///   without the sync tables). Tombstones are reported here and nowhere else.
    /// - Throws: ``KeychainFailure`` with `.decode` when a journal row was modified outside the keychain; `.io`.
    package func journalChanges(after serial: Int64) throws(KeychainFailure) -> [JournalChange] {
        try read { (s: borrowing StoreSession) throws(KeychainFailure) in try s.journalChanges(after: serial) }
    }

    /// The plain sync state entry (``syncState(named:)``) that `security sync enable` sets to `[1]` so that this
    /// keychain's Secret Service items sync, and `disable` removes.
    package static let secretItemSyncStateName = SyncSchema.secretItemsEnabledState

    /// Merges remote changes in one transaction.
    ///
    /// Per item (docs/SYNC.md, "Merge rule"): a repeat or an older version is ignored; a successor is applied; of
    /// two concurrent versions the greater clock wins (an edit after a delete wins, a delete after an edit wins),
    /// and when both are edits with different content the loser is kept as a conflict copy (``syncConflicts()``).
    /// Applied versions are sealed under this device's class keys and are not reported by ``syncChanges(after:)``.
    /// - Parameter changes: remote changes, in the order their devices made them.
    /// - Returns: how many were applied, ignored, and kept as conflicts.
    /// - Throws: ``KeychainFailure`` with `.interactionNotAllowed` while locked, `.decode` for a malformed payload
    ///   (or one for a `…ThisDeviceOnly` or non-synchronizable item); nothing is applied in either case.
    package func applySyncChanges(_ changes: [SyncChange]) throws(KeychainFailure) -> SyncApplyReport {
        try write { (s: borrowing StoreSession) throws(KeychainFailure) in
            try s.applySyncChanges(changes, now: StoreSession.syncNow())
        }
    }

    /// How many received changes wait for a newer build: their payload is of a kind or format version this build
    /// does not know (docs/SYNC.md, "Payload"). They are kept sealed in the keychain and applied by the first
    /// ``applySyncChanges(_:)`` of a build that knows them.
    /// - Throws: ``KeychainFailure`` with `.interactionNotAllowed` while locked; `.decode` when one was modified.
    package func waitingSyncChangeCount() throws(KeychainFailure) -> Int {
        try read { (s: borrowing StoreSession) throws(KeychainFailure) -> Int in try s.waitingSyncChanges().count }
    }

    /// The kept conflict copies, oldest clock first.
    /// - Returns: one ``SyncConflict`` per copy; its summary names the class, service or server, account and label
    ///   (a Secret Service item's: `secret-service-item label="…"`).
    /// - Throws: ``KeychainFailure`` with `.interactionNotAllowed` while locked; `.decode` when a copy was modified.
    package func syncConflicts() throws(KeychainFailure) -> [SyncConflict] {
        try read { (s: borrowing StoreSession) throws(KeychainFailure) -> [SyncConflict] in
            try s.conflictRows().map {
                SyncConflict(item: $0.item, copy: $0.copy, clock: $0.clock, summary: Self.summary($0.content))
            }
        }
    }

    /// Settles a conflict: `.winner` drops the copy; `.copy` makes the copy's content the item's, as a new local
    /// change that syncs (the item comes back if it was deleted meanwhile).
    /// - Throws: ``KeychainFailure`` with `.itemNotFound` for an unknown copy, `.interactionNotAllowed` while locked,
    ///   `.duplicateItem` when the copy's primary key is now another item's.
    package func resolveSyncConflict(_ copy: SyncItemID, keep: SyncConflictChoice) throws(KeychainFailure) {
        try write { (s: borrowing StoreSession) throws(KeychainFailure) in try s.resolveSyncConflict(copy, keep: keep) }
    }

    /// Small sealed state of the sync engine (device secret keys, the sync key), sealed under this keychain's
    /// AfterFirstUnlockThisDeviceOnly class key, never exported, never in backups.
    /// - Returns: the value, or nil when absent.
    /// - Throws: ``KeychainFailure`` with `.interactionNotAllowed` before the first unlock; `.decode` when it does
    ///   not authenticate (a file adopted by another device key).
    package func syncSecret(named name: String) throws(KeychainFailure) -> SecureBytes? {
        try read { (s: borrowing StoreSession) throws(KeychainFailure) in try s.syncSecret(name) }
    }

    /// Stores (or with nil removes) a sealed sync secret; see ``syncSecret(named:)``.
    /// - Throws: ``KeychainFailure`` with `.interactionNotAllowed` before the first unlock.
    package func setSyncSecret(_ value: SecureBytes?, named name: String) throws(KeychainFailure) {
        try write { (s: borrowing StoreSession) throws(KeychainFailure) in try s.setSyncSecret(value, name) }
    }

    /// Small plain state of the sync engine (cursors, the remote, sequence numbers seen), covered by the file's
    /// integrity check (``verifyIntegrity()``). Readable while locked.
    /// - Returns: the value, or nil when absent.
    /// - Throws: ``KeychainFailure`` with `.decode` when the stored value was modified outside the keychain.
    package func syncState(named name: String) throws(KeychainFailure) -> [UInt8]? {
        try read { (s: borrowing StoreSession) throws(KeychainFailure) in
            try s.syncStateValue(name, sealed: false)?.value
        }
    }

    /// Stores (or with nil removes) plain sync state; see ``syncState(named:)``.
    package func setSyncState(_ value: [UInt8]?, named name: String) throws(KeychainFailure) {
        try write { (s: borrowing StoreSession) throws(KeychainFailure) in
            try s.setSyncStateValue(value, name, sealed: false)
        }
    }

    /// What `security sync conflicts` shows of a copy: class, service or server, account, label; never the secret.
    static func summary(_ content: SyncPayload.Decoded) -> String {
        switch content {
        case .item(let item): return summary(item)
        case .secretItem(let secretItem):
            // The Secret Service item's label, as Seahorse shows it; its attributes may name an account, never secret.
            var parts = ["secret-service-item"]
            if !secretItem.item.label.isEmpty { parts.append("label=\"\(secretItem.item.label)\"") }
            return parts.joined(separator: " ")
        }
    }

    static func summary(_ content: SyncPayload.Content) -> String {
        var parts = [content.itemClass.rawValue]
        let names: [(AttributeName, String)] = [
            (.service, "service"), (.server, "server"), (.account, "account"), (.label, "label"),
        ]
        for (name, title) in names {
            if case .string(let value)? = content.attributes[name], !value.isEmpty {
                parts.append("\(title)=\"\(value)\"")
            }
        }
        return parts.joined(separator: " ")
    }
}
