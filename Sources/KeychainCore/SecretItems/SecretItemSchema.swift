/// The tables that hold Secret Service items (issue 17) inside a keychain file.
///
/// Added to existing files without a schema version change: the tables are created, with
/// `CREATE … IF NOT EXISTS`, by the first Secret Service write, inside that write's transaction.
/// Builds from before them open the file as before (`user_version` stays 2), never select these
/// tables, and verify only the `items` rows against `meta.accumulator`: Secret Service rows have
/// their own accumulator (`meta.ss_accumulator`), so an older build's integrity check still passes on
/// a file this build wrote. An older build's backup leaves Secret Service items out.
///
/// ```sql
/// ss_items (id INTEGER PRIMARY KEY AUTOINCREMENT, -- the item number: never reused
///           serial INTEGER,       -- meta.ss_serial at the row's last write (change detection)
///           attribute_set BLOB,   -- keyed digest of the whole attribute set (replace = exact set)
///           metadata BLOB,        -- label, attributes, dates: sealed by the metadata key
///           wrapped_key BLOB,     -- item key sealed by the WhenUnlocked class key
///           secret BLOB,          -- content type and secret: sealed by the item key
///           tag BLOB)             -- keyed BLAKE2b of every other column; XORed into meta.ss_accumulator
/// ss_index (digest BLOB, item INTEGER, PRIMARY KEY (digest, item)) -- one keyed digest per (name, value)
/// ```
enum SecretItemSchema {
    static let itemsTable = "ss_items"
    /// The protection class of every Secret Service item: its class key wraps each item key.
    ///
    /// WhenUnlocked, because the Secret Service ties a collection's secrets to its lock state
    /// (`Lock`, `Unlock`, `Locked`; Secret Service API, "Locking and Unlocking"), and a keychain's lock
    /// state is its WhenUnlocked class key (`lock-keychain`, the session agent): an AfterFirstUnlock
    /// item would stay readable after the collection reports itself locked. Not `…ThisDeviceOnly`: the
    /// items are what users move to a new machine (backups) and to their other machines (sync), as
    /// gnome-keyring's keyring files move. Metadata (label, attributes, dates) is sealed under the index
    /// key instead, so that it stays readable while locked, as the specification requires.
    static let protection = ProtectionClass.whenUnlocked
    /// `meta` names.
    static let serialMeta = "ss_serial"
    static let accumulatorMeta = "ss_accumulator"
    /// The keychain's Secret Service collection label (UTF-8, not sealed: readable while locked).
    static let labelMeta = "ss_label"
    /// `meta` name of the keychain's ``SecretAccessPolicy`` (UTF-8 `confirm` or `open`); absent in
    /// keychains made before access lists, which are `open`.
    static let accessPolicyMeta = "ss_access_policy"

    static let create = """
        CREATE TABLE IF NOT EXISTS ss_items (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            serial INTEGER NOT NULL,
            attribute_set BLOB NOT NULL,
            metadata BLOB NOT NULL,
            wrapped_key BLOB NOT NULL,
            secret BLOB NOT NULL,
            tag BLOB NOT NULL
        );
        CREATE INDEX IF NOT EXISTS ss_items_by_set ON ss_items (attribute_set);
        CREATE INDEX IF NOT EXISTS ss_items_by_serial ON ss_items (serial);
        CREATE TABLE IF NOT EXISTS ss_index (
            digest BLOB NOT NULL,
            item INTEGER NOT NULL,
            PRIMARY KEY (digest, item)
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS ss_index_by_item ON ss_index (item);
        """
}
