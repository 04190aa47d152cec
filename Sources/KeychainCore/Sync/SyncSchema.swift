/// The tables that hold the sync journal, conflict copies and the sync engine's state inside a keychain file
/// (issue 26), and the `meta` entries of the local clock.
///
/// Added to existing files without a schema version change, as the Secret Service tables are: the first write
/// that needs them creates them with `CREATE … IF NOT EXISTS` inside its own transaction. Builds from before them
/// open the file as before (`user_version` stays 2), never select these tables, and verify only their own rows:
/// every row here has a keyed tag (``SyncRowTag``) XORed into its own accumulator, `meta.sync_accumulator`, which
/// ``Keystore/verifyIntegrity()`` checks.
///
/// ```sql
/// sync_items     (item BLOB PRIMARY KEY,  -- SyncItemID: the same on every device
///                 persistref BLOB UNIQUE, -- the local items row; NULL for a tombstone
///                 clock BLOB,             -- SyncClock of the version held (28 bytes)
///                 ancestors BLOB,         -- clocks of the versions it descends from, newest first (28 each)
///                 serial INTEGER,         -- local change serial of its last write (meta.sync_serial)
///                 local INTEGER,          -- 1: a local change that syncChanges reports; 0: applied from a peer
///                 tag BLOB)
/// sync_conflicts (copy BLOB PRIMARY KEY, item BLOB, clock BLOB,
///                 pdmn INTEGER,           -- the losing version's protection class
///                 sealed BLOB,            -- its payload sealed under that class key
///                 tag BLOB)
/// sync_state     (sealed INTEGER, name TEXT, value BLOB, tag BLOB, PRIMARY KEY (sealed, name))
///                -- syncState values in the clear (sealed = 0); syncSecret values sealed (sealed = 1)
/// ```
///
/// Nothing in these tables is secret in the clear: ids, clocks and serials say nothing about an item, and a
/// conflict copy's content and every sync secret are sealed.
enum SyncSchema {
    static let itemsTable = "sync_items"
    static let conflictsTable = "sync_conflicts"
    static let stateTable = "sync_state"

    /// `meta` names: the integrity accumulator of every row here, the device id, the newest clock this device
    /// has made or received, the local change serial, and whether items from before the journal were adopted.
    static let accumulatorMeta = "sync_accumulator"
    static let deviceMeta = "sync_device"
    static let clockMeta = "sync_clock"
    static let serialMeta = "sync_serial"
    static let adoptedMeta = "sync_adopted"
    /// `meta`: 1 once every Secret Service item was journaled as a local change after `security sync enable`;
    /// set back to 0 by the first ``StoreSession/syncChanges(after:limit:)`` after `disable`, so that the next
    /// `enable` sends every item again (changes made in between were not sent).
    static let secretItemsAdoptedMeta = "sync_ss_adopted"
    /// The plain `sync_state` entry that `security sync enable` sets to `[1]`: this keychain's Secret Service items
    /// sync (``Keystore/secretItemSyncStateName``).
    static let secretItemsEnabledState = "sync.enabled"

    /// The most ancestor clocks a version keeps (older ones are forgotten; see docs/SYNC.md, "Payload").
    static let maximumAncestors = 16

    static let create = """
        CREATE TABLE IF NOT EXISTS sync_items (
            item BLOB PRIMARY KEY,
            persistref BLOB UNIQUE,
            clock BLOB NOT NULL,
            ancestors BLOB NOT NULL,
            serial INTEGER NOT NULL,
            local INTEGER NOT NULL,
            tag BLOB NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS sync_items_by_local_serial ON sync_items (local, serial);
        CREATE TABLE IF NOT EXISTS sync_conflicts (
            copy BLOB PRIMARY KEY,
            item BLOB NOT NULL,
            clock BLOB NOT NULL,
            pdmn INTEGER NOT NULL,
            sealed BLOB NOT NULL,
            tag BLOB NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS sync_state (
            sealed INTEGER NOT NULL,
            name TEXT NOT NULL,
            value BLOB NOT NULL,
            tag BLOB NOT NULL,
            PRIMARY KEY (sealed, name)
        ) WITHOUT ROWID;
        """
}
