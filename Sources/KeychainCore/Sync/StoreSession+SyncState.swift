/// The sync engine's own small state in `sync_state` (``SyncSchema``): plain values (cursors, the remote, which
/// sequence numbers were seen) and sealed secrets (the device's secret keys, the sync key). Each row is tagged
/// into `meta.sync_accumulator`, so an edit or a replay is found by ``Keystore/verifyIntegrity()``. Secrets are
/// sealed under the AfterFirstUnlockThisDeviceOnly class key: readable from the first unlock on (a background
/// sync runs then), never exported, never in a backup (backups copy items only), and unreadable on a copy of the
/// file opened with another device key.
extension StoreSession {
    /// The value stored under `name` (sealed or plain), checked against its tag.
    func syncStateValue(_ name: String, sealed: Bool) throws(KeychainFailure) -> (value: [UInt8], tag: [UInt8])? {
        guard try hasSyncTables() else { return nil }
        let statement = try database.prepare(
            "SELECT value, tag FROM \(SyncSchema.stateTable) WHERE sealed = ? AND name = ?")
        try statement.bind([.integer(sealed ? 1 : 0), .text(name)])
        defer { statement.finish() }
        guard try statement.step() else { return nil }
        let value = statement.blob(0)
        let tag = statement.blob(1)
        guard Self.syncStateTag(name, sealed: sealed, value, codec: codec) == tag else {
            throw KeychainFailure(.decode, "the sync state was modified outside the keychain")
        }
        return (value, tag)
    }

    /// Stores (or with nil removes) the value under `name`.
    func setSyncStateValue(_ value: [UInt8]?, _ name: String, sealed: Bool) throws(KeychainFailure) {
        try ensureSyncTables()
        let old = try syncStateValue(name, sealed: sealed)
        if let old {
            try database.prepare("DELETE FROM \(SyncSchema.stateTable) WHERE sealed = ? AND name = ?").run([
                .integer(sealed ? 1 : 0), .text(name),
            ])
            try accumulate(old.tag, .sync)
        }
        guard let value else { return }
        let tag = Self.syncStateTag(name, sealed: sealed, value, codec: codec)
        try database.prepare("INSERT INTO \(SyncSchema.stateTable) (sealed, name, value, tag) VALUES (?, ?, ?, ?)").run(
            [
                .integer(sealed ? 1 : 0), .text(name), .blob(value), .blob(tag),
            ])
        try accumulate(tag, .sync)
    }

    /// Forgets this replica's sync identity, as `security sync leave` forgets the engine's state, for a keychain
    /// being adopted by another device key (``Keystore/unlock(password:)``): a copy is a new device, as iOS treats a
    /// restored device, whose keychain's sync identity is its own. Removes the device id from `meta` (the next sync
    /// use makes a new one) and every `sync_state` entry but the Secret Service enablement
    /// (``SyncSchema/secretItemsEnabledState``, a setting of the keychain): the sealed device keys, sync keys and
    /// changes waiting for a newer build, which only the old device key opens, and the plain remote, trust list,
    /// cursors, outbox and logs seen, which belong to the old device. The journal, conflict copies, clock and serial
    /// stay: the items keep their sync ids and clocks, so once this keychain joins a group again its local changes
    /// are offered from the start and the devices that have them ignore them as repeats (no duplicates).
    ///
    /// Each removed row's stored tag leaves `meta.sync_accumulator`; the rows are not checked first, since sealed ones
    /// cannot be opened here and none is kept.
    func forgetSyncIdentity() throws(KeychainFailure) {
        try Meta.set(database, SyncSchema.deviceMeta, nil)
        guard try hasSyncTables() else { return }
        let statement = try database.prepare(
            "SELECT sealed, name, tag FROM \(SyncSchema.stateTable) WHERE NOT (sealed = 0 AND name = ?)")
        try statement.bind([.text(SyncSchema.secretItemsEnabledState)])
        var rows: [(sealed: Int64, name: String, tag: [UInt8])] = []
        do {
            defer { statement.finish() }
            while try statement.step() { rows.append((statement.int64(0), statement.text(1), statement.blob(2))) }
        }
        for row in rows {
            try database.prepare("DELETE FROM \(SyncSchema.stateTable) WHERE sealed = ? AND name = ?").run([
                .integer(row.sealed), .text(row.name),
            ])
            try accumulate(row.tag, .sync)
        }
    }

    // MARK: - Changes waiting for a newer build

    /// The names of the sealed `sync_state` entries that hold changes waiting for a newer build.
    static let waitingPrefix = "waiting."

    /// Every change kept because its payload is of a kind or version this build does not know, in the order
    /// received, each with the name of its entry.
    func waitingSyncChanges() throws(KeychainFailure) -> [(name: String, change: SyncChange)] {
        guard try hasSyncTables() else { return [] }
        let statement = try database.prepare(
            "SELECT name FROM \(SyncSchema.stateTable) WHERE sealed = 1 AND substr(name, 1, ?) = ? ORDER BY name")
        try statement.bind([.integer(Int64(Self.waitingPrefix.utf8.count)), .text(Self.waitingPrefix)])
        var names: [String] = []
        do {
            defer { statement.finish() }
            while try statement.step() { names.append(statement.text(0)) }
        }
        var result: [(name: String, change: SyncChange)] = []
        for name in names {
            guard let sealed = try syncSecret(name), let change = Self.decodeWaiting(sealed) else {
                throw KeychainFailure(.decode, "a sync change waiting for a newer build is malformed")
            }
            result.append((name, change))
        }
        return result
    }

    /// Replaces the waiting changes named `old` with `changes`, each sealed as `item (16) ‖ clock (28) ‖ base flag
    /// (u8) ‖ base (28, when the flag is 1) ‖ payload`, named `waiting.<sequence, 10 digits>`.
    func setWaitingSyncChanges(_ changes: [SyncChange], replacing old: [String]) throws(KeychainFailure) {
        for name in old { try setSyncSecret(nil, name) }
        for (index, change) in changes.enumerated() {
            guard let payload = change.payload else { continue }
            var header = change.item.bytes + change.clock.encoded
            if let base = change.base { header += [1] + base.encoded } else { header.append(0) }
            let value = SecureBytes(count: header.count + payload.count) { out in
                header.withUnsafeBytes {
                    UnsafeMutableRawBufferPointer(rebasing: out[0..<header.count]).copyMemory(from: $0)
                }
                payload.withUnsafeBytes { bytes in
                    UnsafeMutableRawBufferPointer(rebasing: out[header.count...]).copyMemory(from: bytes)
                }
            }
            let digits = String(index)
            try setSyncSecret(
                value, Self.waitingPrefix + String(repeating: "0", count: max(0, 10 - digits.count)) + digits)
        }
    }

    private static func decodeWaiting(_ sealed: SecureBytes) -> SyncChange? {
        sealed.withUnsafeBytes { bytes -> SyncChange? in
            var reader = ByteReader(bytes)
            guard let item = reader.bytes(SyncItemID.byteCount).flatMap({ SyncItemID(bytes: Array($0)) }),
                let clock = reader.bytes(SyncClock.encodedSize).flatMap({ SyncClock(encoded: $0) }),
                let flag = reader.byte(), flag <= 1
            else { return nil }
            var base: SyncClock?
            if flag == 1 {
                guard let clock = reader.bytes(SyncClock.encodedSize).flatMap({ SyncClock(encoded: $0) }) else {
                    return nil
                }
                base = clock
            }
            guard let payload = reader.bytes(reader.remaining), payload.count > 0 else { return nil }
            return SyncChange(item: item, clock: clock, base: base, payload: SecureBytes(copying: payload))
        }
    }

    /// The sync secret `name`, opened.
    /// - Throws: `.interactionNotAllowed` before the first unlock; `.decode` when it does not authenticate.
    func syncSecret(_ name: String) throws(KeychainFailure) -> SecureBytes? {
        guard let stored = try syncStateValue(name, sealed: true) else { return nil }
        guard
            let value = Sodium.openSecret(
                stored.value, key: try classKey(Self.syncSecretClass).bytes,
                associatedData: syncSecretAssociatedData(name))
        else {
            throw KeychainFailure(.decode, "a sync secret does not authenticate (it was made with another device key)")
        }
        return value
    }

    /// Seals and stores (or with nil removes) the sync secret `name`.
    func setSyncSecret(_ value: SecureBytes?, _ name: String) throws(KeychainFailure) {
        let sealed = try value.map { (value) throws(KeychainFailure) in
            Sodium.seal(
                value, key: try classKey(Self.syncSecretClass).bytes, associatedData: syncSecretAssociatedData(name))
        }
        try setSyncStateValue(sealed, name, sealed: true)
    }

    /// The class whose key seals sync secrets.
    static let syncSecretClass = ProtectionClass.afterFirstUnlockThisDeviceOnly

    private func syncSecretAssociatedData(_ name: String) -> [UInt8] {
        Array("swkc.sync.secret.v1".utf8) + codec.keychainID + Array(name.utf8)
    }

    static func syncStateTag(_ name: String, sealed: Bool, _ value: [UInt8], codec: ItemCodec) -> [UInt8] {
        SyncRowTag.tag(SyncSchema.stateTable, [.integer(sealed ? 1 : 0), .text(name), .blob(value)], codec: codec)
    }

    // MARK: - Integrity

    /// Checks every sync row's tag and their XOR against `meta.sync_accumulator` (a file without the sync
    /// tables has nothing to check). Returns nothing: these rows are not items and are never counted as such.
    /// - Throws: `.decode` naming the table of a modified row, or the accumulator when a row was replayed,
    ///   removed or added.
    func verifySyncRows() throws(KeychainFailure) {
        guard try hasSyncTables() else { return }
        var accumulator = IntegrityAccumulator()
        let tables: [(table: String, columns: [String], integers: Set<Int>)] = [
            (SyncSchema.itemsTable, ["item", "persistref", "clock", "ancestors", "serial", "local"], [4, 5]),
            (SyncSchema.conflictsTable, ["copy", "item", "clock", "pdmn", "sealed"], [3]),
            (SyncSchema.stateTable, ["sealed", "name", "value"], [0]),
        ]
        for (table, columns, integers) in tables {
            let statement = try database.prepare("SELECT \(columns.joined(separator: ", ")), tag FROM \(table)")
            try statement.bind([])
            defer { statement.finish() }
            while try statement.step() {
                var values: [SQLValue] = []
                for index in columns.indices {
                    let column = Int32(index)
                    if integers.contains(index) {
                        values.append(.integer(statement.int64(column)))
                    } else if table == SyncSchema.stateTable && index == 1 {
                        values.append(.text(statement.text(column)))
                    } else if table == SyncSchema.itemsTable && index == 1 && statement.blob(column).isEmpty {
                        values.append(.null)
                    } else {
                        values.append(.blob(statement.blob(column)))
                    }
                }
                let tag = SyncRowTag.tag(table, values, codec: codec)
                guard tag == statement.blob(Int32(columns.count)) else {
                    throw KeychainFailure(.decode, "a row of \(table) was modified outside the keychain")
                }
                accumulator.add(tag)
            }
        }
        guard accumulator.matches(try Meta.blob(database, SyncSchema.accumulatorMeta)) else {
            throw KeychainFailure(
                .decode,
                "the keychain's sync journal does not match its integrity record: a row was replayed, removed or added")
        }
    }
}
