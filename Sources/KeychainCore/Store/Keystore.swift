internal import Synchronization

/// One keychain file: an encrypted, crash-safe, multi-process item store.
///
/// SQLite in WAL mode with `synchronous=FULL`; every call is one transaction (`BEGIN IMMEDIATE`
/// for writes), so processes racing on the same file never lose an update or see half an item.
/// The connection and its unwrapped keys sit behind a `Mutex`, which makes the type `Sendable`.
package final class Keystore: Sendable {
    /// Where the keychain and its device key are.
    package let location: KeychainLocation
    let session: Mutex<StoreSession>

    /// How long a call waits for another process's write lock before failing, in milliseconds.
    package static let busyTimeoutMilliseconds: Int32 = 10_000

    // MARK: - Opening

    /// Opens the keychain at `location`, creating it when the file does not exist and `create` is true.
    ///
    /// A new keychain is built in a temporary file and linked into place, so a crash never leaves a
    /// half-made keychain, and two processes creating it at once end up with the same one.
    /// - Throws: ``KeychainFailure`` with
    ///   `.noSuchKeychain` when the file does not exist and `create` is false;
    ///   `.invalidKeychain` for a file that is not a keychain, is corrupt, is empty, or is not private;
    ///   `.wrongSecVersion` for a newer schema; `.decode` when the device key is missing or does not
    ///   open the keybag and the keychain has no password to adopt it with (a keychain with one opens
    ///   as locked, and every item call returns `.interactionNotAllowed` until
    ///   ``unlock(password:)`` adopts it);
    ///   `.io` or `.diskFull` when files cannot be written.
    /// - Parameter convertingRecords: convert legacy item records at once (``migrateLegacyRecords(batchSize:)``);
    ///   `false` only for tests that look at a keychain as an interrupted conversion left it.
    package init(location: KeychainLocation, create: Bool = true, convertingRecords: Bool = true)
        throws(KeychainFailure)
    {
        self.location = location
        let path = location.databasePath
        if !FileSystem.exists(path) {
            guard create else { throw KeychainFailure(.noSuchKeychain, "\(path) does not exist") }
            try Self.createKeychain(at: path, deviceKeyPath: location.deviceKeyPath)
        }
        try FileSystem.checkPrivateFolder(of: path)
        try FileSystem.checkPrivate(path)
        if FileSystem.size(path) == 0 {
            throw KeychainFailure(.invalidKeychain, "\(path) is empty; refusing to replace it")
        }
        let database: Database
        do throws(KeychainFailure) {
            database = try Database(path: path, mode: .readWrite)
            database.setBusyTimeout(Self.busyTimeoutMilliseconds)
        } catch {
            throw KeychainFailure(.invalidKeychain, "cannot open \(path): \(error.databaseMessage)")
        }
        let schemaVersion = try Schema.validate(database, path: path)
        do throws(KeychainFailure) {
            try database.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON")
        } catch {
            throw KeychainFailure(.invalidKeychain, "cannot configure \(path): \(error.databaseMessage)")
        }
        // A version 2 file is a version 3 file without access entries in its wrapped keys: marking it
        // keeps builds that know only version 2 from this file once keys with them are written. A single
        // statement, atomic; if it fails (busy), the next open marks it.
        if schemaVersion == Schema.recordVersion {
            try? database.execute("PRAGMA user_version = \(Schema.version)")
        }
        let storedID: [UInt8]?
        do throws(KeychainFailure) {
            storedID = try Meta.blob(database, "keychain_id")
        } catch {
            throw Self.damageNamed(error, path: path)
        }
        guard let keychainID = storedID, keychainID.count == 16 else {
            throw KeychainFailure(.invalidKeychain, "\(path) has no keychain id")
        }
        let keys = SessionKeys(
            keychainID: keychainID, keychainPath: path, deviceKey: try DeviceKey.load(path: location.deviceKeyPath),
            deviceKeyPath: location.deviceKeyPath)
        try database.execute("BEGIN")
        var hasLegacyRecords = schemaVersion == Schema.legacyRecordVersion
        do {
            try keys.beginTransaction(database)
            if !hasLegacyRecords { hasLegacyRecords = try Meta.integer(database, StoreSession.legacyRecordsMeta) != 0 }
            try? database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw Self.damageNamed(error, path: path)
        }
        session = Mutex(StoreSession(database: database, keys: keys))
        // A keychain made before the item record format (or whose conversion was interrupted, or waited
        // for a locked class): convert what can be converted now. Both formats read correctly, so a
        // failure here (a busy or full disk, a foreign keychain) only postpones it to a later open.
        if hasLegacyRecords && convertingRecords { _ = try? migrateLegacyRecords() }
    }

    /// Creates a keychain at `location` that has a password from the start (`security create-keychain`).
    ///
    /// With a password, the keychain is built and given its password in a staging file beside
    /// `location`, which is linked into place only then, and its class keys are made available: no
    /// other process can open it without its password, and a process killed at any step leaves no
    /// keychain at `location` (only the staging file).
    /// - Throws: `.duplicateKeychain` when a file exists there (also when another process made one
    ///   meanwhile); otherwise as ``init(location:create:)``.
    package static func create(
        location: KeychainLocation, password: SecureBytes?, parameters: KDFParameters = .default
    ) throws(KeychainFailure) -> Keystore {
        if FileSystem.exists(location.databasePath) {
            throw KeychainFailure(.duplicateKeychain, "\(location.databasePath) already exists")
        }
        guard let password else { return try Keystore(location: location, create: true) }
        // The password is set in a file of its own, linked into place only once it has it: no process
        // ever opens this keychain without its password, and a kill at any step leaves none (issue 25).
        try FileSystem.makePrivateDirectory(
            holding: location.databasePath, tighteningExisting: Self.inKeychainDirectory(location.databasePath))
        let staging = KeychainLocation(
            databasePath: location.databasePath
                + ".new-pw-\(ProcessEnvironment.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))",
            deviceKeyPath: location.deviceKeyPath)
        defer { for suffix in ["", "-wal", "-shm"] { FileSystem.remove(staging.databasePath + suffix) } }
        let classKeys: [ProtectionClass: ClassKey]
        do {
            let building = try Keystore(location: staging, create: true)
            classKeys = try building.rewrapPasscodeSlot(password, current: nil, parameters: parameters)
            // Everything in the main file before it is linked: the WAL stays behind under the staging name.
            try building.session.withLock { (session: inout StoreSession) throws(KeychainFailure) in
                try session.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            }
        }
        CrashPoint.reach(CrashPoint.creationLinking)
        guard try FileSystem.linkIfAbsent(staging.databasePath, to: location.databasePath) else {
            throw KeychainFailure(.duplicateKeychain, "\(location.databasePath) already exists")
        }
        let keystore = try Keystore(location: location, create: false)
        try keystore.makeAvailable(classKeys)
        return keystore
    }

    /// Whether `path` is a file of the keychain folder (`$XDG_DATA_HOME/keychains` of this process's
    /// environment), the one folder holding keychains that is ours to keep at 0700; any other folder
    /// holding a keychain is the user's, and an existing one keeps its mode (tracker issue 23).
    private static func inKeychainDirectory(_ path: String) -> Bool {
        FileSystem.directory(of: path) == KeychainLocation.keychainDirectory()
    }

    private static func createKeychain(at path: String, deviceKeyPath: String) throws(KeychainFailure) {
        try FileSystem.makePrivateDirectory(holding: path, tighteningExisting: inKeychainDirectory(path))
        let deviceKey = try DeviceKey.loadOrCreate(path: deviceKeyPath)
        let temporary = path + ".new-\(ProcessEnvironment.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))"
        _ = try FileSystem.createEmptyPrivateFile(temporary)
        defer { FileSystem.remove(temporary) }
        // The connection closes at the end of this block, before the file is linked into place.
        do {
            let database = try Database(path: temporary, mode: .readWrite)
            try database.execute("PRAGMA journal_mode=DELETE; PRAGMA synchronous=FULL")
            try database.execute("BEGIN IMMEDIATE")
            try database.execute(Schema.create)
            let keychainID = Sodium.randomBytes(16)
            try database.prepare("INSERT INTO meta (name, value) VALUES (?, ?)").run([
                .text("keychain_id"), .blob(keychainID),
            ])
            try Keybag.create(in: database, keychainID: keychainID, deviceKey: deviceKey)
            try Meta.set(database, "generation", integer: 1)
            try Meta.set(database, "accumulator", [UInt8](repeating: 0, count: 32))
            // New keychains ask before an application not on an item's access list reads it (issue 27).
            try Meta.set(database, SecretItemSchema.accessPolicyMeta, Array(SecretAccessPolicy.confirm.rawValue.utf8))
            try database.execute("COMMIT")
            try database.execute("PRAGMA journal_mode=WAL")
        }
        // Link, not rename: an existing keychain is never replaced (another process's, made at the
        // same moment, is then used).
        _ = try FileSystem.linkIfAbsent(temporary, to: path)
    }

    // MARK: - Transactions

    /// Runs `body` in one read transaction (a consistent WAL snapshot).
    /// - Parameter foreign: also run while the keychain is foreign (``SessionKeys/isForeign``); by
    ///   default such a keychain answers `.interactionNotAllowed` without running `body`.
    func read<R: Sendable>(
        foreign: Bool = false, _ body: (borrowing StoreSession) throws(KeychainFailure) -> R
    ) throws(KeychainFailure) -> R {
        try transaction(begin: .beginDeferred, foreign: foreign, body)
    }

    /// Runs `body` in one write transaction (`BEGIN IMMEDIATE`): all of it commits, or none.
    /// - Parameter foreign: as for ``read(foreign:_:)``.
    func write<R: Sendable>(
        foreign: Bool = false, _ body: (borrowing StoreSession) throws(KeychainFailure) -> R
    ) throws(KeychainFailure) -> R {
        try transaction(begin: .beginImmediate, foreign: foreign, body)
    }

    /// Runs `body` outside a transaction when no other connection has committed since this connection's
    /// last transaction: one `PRAGMA data_version` in autocommit (a read transaction of its own) shows
    /// that, and `body` may then answer from what this connection keeps for that version (the Secret
    /// Service's rows and metadata, ``SecretRowCache``, ``SecretMetadataCache``) and from the kernel's
    /// class key entries, but must run no SQL. Spares a cached read `BEGIN` and `COMMIT`.
    /// - Parameter body: the answer, or `nil` when it needs the database (then the caller reads in a
    ///   transaction, as ``read(foreign:_:)``).
    /// - Returns: `body`'s answer; `nil` when the data changed, the keychain is foreign or `body` returned `nil`.
    /// - Throws: what `body` throws.
    func unchangedRead<R: Sendable>(_ body: (borrowing StoreSession) throws(KeychainFailure) -> R?)
        throws(KeychainFailure) -> R?
    {
        try session.withLock { (session: inout StoreSession) throws(KeychainFailure) -> R? in
            guard session.keys.dataVersion != nil, !session.keys.isForeign,
                let version = try? session.database.dataVersion(), version == session.keys.dataVersion
            else { return nil }
            session.keys.beginUnchangedRead()
            let answer = try body(session)
            if answer != nil { session.keys.countUnchangedRead() }
            return answer
        }
    }

    /// Runs `body`, a read, outside a transaction when the answer is the one ``read(foreign:_:)`` would
    /// give; otherwise (or when `body` throws) runs it again inside one, as ``read(foreign:_:)``.
    ///
    /// Each statement of `body` then reads in a transaction of its own (SQLite's autocommit). The answer
    /// is kept only when the pager data version after `body` is still the one read just after this
    /// connection's last commit (``SessionKeys/settledPagerVersion``): every read of `body` started on
    /// the database as that transaction left it, which no other connection has committed to since, so
    /// `body` saw one snapshot, the one the connection's keys were brought up to date for, as
    /// ``SessionKeys/beginTransaction(_:)`` would have found them. Another process's commit (an update,
    /// a delete, a new password) moves the version at the first read that sees it, and the read runs
    /// again in a transaction; the class keys are fetched from the kernel again, so a lock is seen at once.
    /// Spares the read transaction's `BEGIN`, `PRAGMA data_version` and `COMMIT`.
    /// - Parameter body: reads only (no writes), and leaves no statement unreset.
    /// - Returns: `body`'s answer.
    /// - Throws: what `body` throws in a transaction, as ``read(foreign:_:)``.
    func snapshotRead<R: Sendable>(_ body: (borrowing StoreSession) throws(KeychainFailure) -> R)
        throws(KeychainFailure) -> R
    {
        try transaction(begin: .beginDeferred, foreign: false, outsideFirst: true, body)
    }

    /// `body`'s answer outside a transaction, or `nil` when it needs one (``snapshotRead(_:)``).
    private static func autocommitRead<R: Sendable>(
        _ session: borrowing StoreSession, _ body: (borrowing StoreSession) throws(KeychainFailure) -> R
    ) -> R? {
        guard let settled = session.keys.settledPagerVersion, !session.keys.isForeign,
            !session.database.isInTransaction
        else { return nil }
        session.keys.beginUnchangedRead()
        guard let answer = try? body(session), !session.database.isInTransaction,
            session.database.pagerDataVersion() == settled
        else { return nil }
        session.keys.countAutocommitRead()
        return answer
    }

    private func transaction<R: Sendable>(
        begin: Database.Fixed, foreign: Bool, outsideFirst: Bool = false,
        _ body: (borrowing StoreSession) throws(KeychainFailure) -> R
    ) throws(KeychainFailure) -> R {
        try session.withLock { (session: inout StoreSession) throws(KeychainFailure) -> R in
            if outsideFirst, let answer = Self.autocommitRead(session, body) { return answer }
            var attempt = 0
            while true {
                attempt += 1
                do throws(KeychainFailure) {
                    // Prepared once and held by the connection (``Database/Fixed``): sqlite3_exec would parse
                    // BEGIN and COMMIT on every call, and a lookup by their text hashes it every time.
                    try session.database.prepare(begin).run()
                } catch  where error.databaseError?.code.isBusy == true && attempt < 50 {
                    Self.backOff(attempt)
                    continue
                }
                do throws(KeychainFailure) {
                    session.discardAccumulators()
                    try session.keys.beginTransaction(session.database)
                    if session.keys.isForeign && !foreign { throw session.keys.foreignFailure }
                    let result = try body(session)
                    try session.flushAccumulator()
                    try Self.commit(session.database)
                    session.keys.settle(pagerVersion: session.database.pagerDataVersion())
                    return result
                } catch let failure {
                    try? session.database.execute("ROLLBACK")
                    session.transactionRolledBack()
                    if failure.status == .notAvailable && attempt < 50 {
                        Self.backOff(attempt)
                        continue
                    }
                    throw Self.damageNamed(failure, path: location.databasePath)
                }
            }
        }
    }

    /// A damaged file found inside a transaction (an inner page: "cannot read the keybag: database
    /// disk image is malformed") says which file, in the words of ``Schema/validate(_:path:)``, so
    /// that every front end names the file and how to restore it (tracker issue 24, item 2).
    private static func damageNamed(_ failure: KeychainFailure, path: String) -> KeychainFailure {
        guard failure.status == .invalidKeychain, let detail = failure.detail, !detail.hasPrefix(path) else {
            return failure
        }
        return KeychainFailure(
            .invalidKeychain, "\(path) cannot be read as a keychain: \(detail)", reason: failure.reason)
    }

    private static func commit(_ database: Database) throws(KeychainFailure) {
        try database.prepare(.commit).run()
    }

    private static func backOff(_ attempt: Int) {
        let microseconds = UInt32(min(attempt * 2_000, 50_000)) + UInt32.random(in: 0...1_000)
        FileSystem.sleep(microseconds: microseconds)
    }

    // MARK: - Item operations (one transaction each)

    // Internal, as are the transactions above: front ends reach items only through ``ItemGateway``,
    // which decides the groups and releases secrets (issue 23, item 2).

    /// Adds an item. See ``StoreSession/add(_:attributes:secret:now:)``.
    /// - Returns: the new item's persistent reference.
    func add(_ itemClass: ItemClass, attributes: [String: AttributeValue], secret: SecureBytes?) throws(KeychainFailure)
        -> [UInt8]
    {
        try write { (s: borrowing StoreSession) throws(KeychainFailure) in
            Array(try s.add(itemClass, attributes: attributes, secret: secret))
        }
    }

    /// Finds items; an empty result is `[]`. Outside a transaction while no other connection has
    /// committed (``snapshotRead(_:)``).
    func search(_ query: ItemQuery, projection: ItemProjection) throws(KeychainFailure) -> [StoredItem] {
        try snapshotRead { (s: borrowing StoreSession) throws(KeychainFailure) in
            try s.search(query, projection: projection)
        }
    }

    /// Updates every match; returns how many.
    func update(_ query: ItemQuery, changes: [String: AttributeValue], secret: SecureBytes?) throws(KeychainFailure)
        -> Int
    {
        try write { (s: borrowing StoreSession) throws(KeychainFailure) in
            try s.update(query, changes: changes, secret: secret)
        }
    }

    /// Deletes every match; returns how many.
    func delete(_ query: ItemQuery) throws(KeychainFailure) -> Int {
        try write { (s: borrowing StoreSession) throws(KeychainFailure) in try s.delete(query) }
    }
}
