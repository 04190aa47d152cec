/// One row of `sync_items` (``SyncSchema``): a synchronizable item's id, the version held, and where it is.
struct SyncJournalEntry {
    let item: SyncItemID
    /// The local `items` row, or nil for a tombstone.
    var persistentRef: [UInt8]?
    /// The version held.
    var clock: SyncClock
    /// The clocks of the versions it descends from, newest first, at most ``SyncSchema/maximumAncestors``.
    var ancestors: [SyncClock]
    /// The local change serial of the row's last write.
    var serial: Int64
    /// Whether the version held was made here (``Keystore/syncChanges(after:)`` reports it) rather than applied.
    var local: Bool

    var isTombstone: Bool { persistentRef == nil }

    /// The columns, in the order the tag covers them.
    static let columns = "item, persistref, clock, ancestors, serial, local"

    /// The values of ``columns``.
    var values: [SQLValue] {
        [
            .blob(item.bytes), persistentRef.map { .blob($0) } ?? .null, .blob(clock.encoded),
            .blob(Self.encode(ancestors)), .integer(serial), .integer(local ? 1 : 0),
        ]
    }

    /// The keyed tag over the table name and ``values`` (``SyncRowTag``).
    func tag(_ codec: ItemCodec) -> [UInt8] { SyncRowTag.tag(SyncSchema.itemsTable, values, codec: codec) }

    /// The entry at the cursor of a statement that selected ``columns`` then `tag`, checked against its tag.
    /// - Throws: `.decode` when a column is malformed or the tag does not match (the row was edited outside
    ///   the keychain).
    init(_ statement: Statement, codec: ItemCodec) throws(KeychainFailure) {
        let persistentRef = statement.blob(1)
        guard let item = SyncItemID(bytes: statement.blob(0)), let clock = SyncClock(encoded: statement.blob(2)),
            let ancestors = Self.decode(statement.blob(3))
        else { throw KeychainFailure(.decode, "a sync journal row is malformed") }
        self.init(
            item: item, persistentRef: persistentRef.isEmpty ? nil : persistentRef, clock: clock, ancestors: ancestors,
            serial: statement.int64(4), local: statement.int64(5) != 0)
        guard tag(codec) == statement.blob(6) else {
            throw KeychainFailure(.decode, "a sync journal row was modified outside the keychain")
        }
    }

    init(
        item: SyncItemID, persistentRef: [UInt8]?, clock: SyncClock, ancestors: [SyncClock], serial: Int64, local: Bool
    ) {
        self.item = item
        self.persistentRef = persistentRef
        self.clock = clock
        self.ancestors = ancestors
        self.serial = serial
        self.local = local
    }

    /// Clocks as stored: ``SyncClock/encodedSize`` bytes each, in order.
    static func encode(_ clocks: [SyncClock]) -> [UInt8] { clocks.flatMap(\.encoded) }

    /// The clocks of ``encode(_:)``, or nil when the length is not a multiple of the clock size.
    static func decode(_ bytes: [UInt8]) -> [SyncClock]? {
        guard bytes.count % SyncClock.encodedSize == 0 else { return nil }
        return stride(from: 0, to: bytes.count, by: SyncClock.encodedSize).map {
            SyncClock(encoded: bytes[$0..<$0 + SyncClock.encodedSize])!
        }
    }

    /// The ancestry of a version made over versions `clocks` (each list newest first): their union, newest
    /// first, without repeats, cut to ``SyncSchema/maximumAncestors``.
    static func ancestry(_ lists: [SyncClock]...) -> [SyncClock] {
        Array(Set(lists.joined()).sorted(by: >).prefix(SyncSchema.maximumAncestors))
    }
}
