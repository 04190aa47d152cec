/// The on-disk schema (version 3), and the checks made before a file is used.
///
/// A file is used only when SQLite can read it, its `application_id` is ours, and its
/// `user_version` is one this build knows. Anything else is refused with a status, and the
/// file is never rewritten or replaced (design brief; issue 2).
package enum Schema {
    /// `PRAGMA application_id`: the bytes "SWKC".
    package static let applicationID: Int64 = 0x5357_4B43
    /// `PRAGMA user_version` written by this build: 3, item records whose item keys are wrapped with their
    /// item's ``AccessEntryFlags`` (`docs/RECORD-FORMAT.md`). Builds that know only versions 1 and 2 would
    /// fail on such keys (they unwrap 33 bytes where they expect 32), so they refuse the file with
    /// `errSecWrongSecVersion` instead.
    package static let version: Int64 = 3
    /// Item records with keys wrapped alone (32 bytes): the same tables; such keys still open, and say
    /// nothing of access entries (``ItemKey/accessEntries`` is `nil`). A version 2 file is marked version
    /// 3 when opened (``Keystore/init(location:create:convertingRecords:)``): its rows stay as they are.
    package static let recordVersion: Int64 = 2
    /// The version before the item record format: the same tables, attributes sealed as binary property
    /// lists. Opening such a file upgrades it (``Keystore/migrateLegacyRecords()``); builds that know
    /// only version 1 refuse a version 2 file with `errSecWrongSecVersion` instead of failing on its items.
    package static let legacyRecordVersion: Int64 = 1

    /// The tables of a new keychain. The text must stay as written: SQLite keeps it in the file. What
    /// the `items` columns hold, how a row is read and sealed, and the order its tag covers are
    /// ``ItemRow``'s; the keybag's entries are ``KeybagEntry``.
    static let create = """
        PRAGMA application_id = \(applicationID);
        CREATE TABLE meta (
            name TEXT PRIMARY KEY,
            value BLOB NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE keybag (
            entry INTEGER NOT NULL,
            slot INTEGER NOT NULL,
            wrapped BLOB NOT NULL,
            PRIMARY KEY (entry, slot)
        ) WITHOUT ROWID;
        CREATE TABLE items (
            rowid INTEGER PRIMARY KEY,
            persistref BLOB NOT NULL UNIQUE,
            class INTEGER NOT NULL,
            pdmn INTEGER NOT NULL,
            sync INTEGER NOT NULL,
            agrp BLOB NOT NULL,
            pk BLOB NOT NULL UNIQUE,
            acct BLOB NOT NULL,
            name BLOB NOT NULL,
            wrapped_key BLOB NOT NULL,
            attributes BLOB NOT NULL,
            secret BLOB NOT NULL,
            tag BLOB NOT NULL
        );
        CREATE INDEX items_by_name ON items (class, name, acct);
        CREATE INDEX items_by_account ON items (class, acct);
        PRAGMA user_version = \(version);
        """

    /// `SQLITE_IOERR_SHMSIZE`: the WAL index (`-shm`) could not be grown, as on a full file system.
    static let shmSizeError: Int32 = 4874

    /// Verifies that an opened file is a keychain this build can use.
    /// - Returns: its schema version: ``version``, ``recordVersion`` or ``legacyRecordVersion``.
    /// - Throws: `.invalidKeychain` for a file that is not an SQLite database, is corrupt, or is
    ///   another application's database; `.wrongSecVersion` for a newer schema.
    @discardableResult
    static func validate(_ database: Database, path: String) throws(KeychainFailure) -> Int64 {
        let application: Int64
        let version: Int64
        do throws(KeychainFailure) {
            application = try database.scalar("PRAGMA application_id")
            version = try database.scalar("PRAGMA user_version")
        } catch {
            // WAL mode makes or grows the `-shm` file at the first read: on a full file system that fails
            // (SQLITE_IOERR_SHMSIZE, SQLITE_FULL), and the file is not damaged at all (issue 24, item 6).
            if let code = error.databaseError?.code, code.isFull || code.rawValue == Self.shmSizeError {
                throw KeychainFailure(
                    .diskFull, "the file system that holds \(path) is full", reason: error.reason)
            }
            let reason = error.databaseError?.description ?? error.description
            throw KeychainFailure(.invalidKeychain, "\(path) cannot be read as a keychain: \(reason)")
        }
        guard application == applicationID else {
            throw KeychainFailure(.invalidKeychain, "\(path) is not a swift-keychain database")
        }
        guard (legacyRecordVersion...Schema.version).contains(version) else {
            throw KeychainFailure(
                .wrongSecVersion,
                "\(path) has schema version \(version); this build reads versions \(legacyRecordVersion) to \(Schema.version)"
            )
        }
        return version
    }
}
