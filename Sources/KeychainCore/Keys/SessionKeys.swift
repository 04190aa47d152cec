/// The keys one connection holds, and the keychain settings they depend on.
///
/// Refreshed at the start of every transaction when another connection has committed (SQLite
/// `data_version`) and changed the keybag (the `generation` counter in `meta`), so a password set
/// by another process takes effect here at the next call.
///
/// Not `Sendable`: it lives inside ``StoreSession``, under the keystore's mutex.
final class SessionKeys {
    let keychainID: [UInt8]
    /// The keychain file, for messages.
    let keychainPath: String
    let deviceKeyPath: String
    /// This installation's device key, `nil` while its file does not exist.
    private(set) var deviceKey: SecureBytes?
    /// Unwrapped entries of the device slot (empty while ``isForeign``).
    private(set) var deviceEntries: [KeybagEntry: SecureBytes] = [:]
    /// The device slot does not open with this installation's device key (the key file is missing,
    /// or the keychain was copied from another installation), and the keychain has a migration
    /// slot: nothing can be read until ``Keystore/unlock(password:)`` adopts it.
    private(set) var isForeign = false
    /// Names this keychain's class keys in the class key store (``ClassKeyStore``): the keychain id,
    /// or, once the keychain has been adopted, a random id made by the adoption (`meta.keyring_id`).
    /// A copy adopted by another installation, or beside its original, thus never shares keyring
    /// entries with it: the copy's `…ThisDeviceOnly` class keys differ from the original's.
    private(set) var keyringID: [UInt8] {
        didSet { if keyringID != oldValue { classKeyNames = Self.classKeyNames(keyringID) } }
    }
    /// The class key store's entry names of ``keyringID`` (``ClassKeyStore/description(keyringID:lifetime:)``),
    /// of each lifetime: made when the id is set, not at every load.
    private var classKeyNames: (whenUnlocked: String, afterFirstUnlock: String)
    /// Class entries whose keys an adoption set aside (see ``Keybag/setAside(entry:tag:in:)``).
    private(set) var orphanedEntries: Set<KeybagEntry> = []
    /// Argon2id parameters and salt while the keychain has a password.
    private(set) var password: (parameters: KDFParameters, salt: [UInt8])?
    /// Auto-lock timeout in seconds (0 = never).
    private(set) var autoLockSeconds: UInt32 = 0
    /// The keybag generation loaded, `nil` before the first load (any stored value, even -1, differs).
    private var generation: Int64?
    /// SQLite's `data_version` when last checked (at the start of the current transaction), `nil`
    /// before the first check.
    private(set) var dataVersion: Int64?
    /// Passcode-slot keys fetched from the class key store during the current transaction.
    private var transactionKeys: [ProtectionClass: ClassKey] = [:]
    /// ``reload(_:)`` ran inside the current transaction (after a change it is about to commit).
    private var reloadedInTransaction = false

    init(keychainID: [UInt8], keychainPath: String, deviceKey: SecureBytes?, deviceKeyPath: String) {
        self.keychainID = keychainID
        self.keychainPath = keychainPath
        self.keyringID = keychainID
        classKeyNames = Self.classKeyNames(keychainID)
        self.deviceKey = deviceKey
        self.deviceKeyPath = deviceKeyPath
    }

    var indexKey: IndexKey? { deviceEntries[.index].map(IndexKey.init) }

    /// The row codec for the index key, made at the first ``reload(_:)`` that has one: `nil` while
    /// the keychain has been foreign since it was opened here (the index key never changes).
    private(set) var codec: ItemCodec?

    /// The codec of Secret Service rows (`SecretItems/`), made at first use and kept: its three keys
    /// are derived from the index key, which never changes, so every call need not derive them again.
    private var secretItems: SecretItemCodec?

    /// ``secretItems``, made from the index key on first use; `nil` while the keychain is foreign.
    func secretItemCodec() -> SecretItemCodec? {
        if let secretItems { return secretItems }
        guard let indexKey else { return nil }
        let made = SecretItemCodec(keychainID: keychainID, indexKey: indexKey)
        secretItems = made
        return made
    }

    /// The device key the keybag is bound to.
    /// - Throws: `.interactionNotAllowed` while the keychain is foreign.
    func boundDeviceKey() throws(KeychainFailure) -> SecureBytes {
        guard let deviceKey, !isForeign else { throw foreignFailure }
        return deviceKey
    }

    var throttle: UnlockThrottle { UnlockThrottle(deviceKeyPath: deviceKeyPath, keychainID: keychainID) }

    /// Called when a transaction rolls back: what a ``reload(_:)`` inside it loaded was never
    /// committed, so the next transaction loads the keybag again.
    func transactionRolledBack() {
        settledPagerVersion = nil
        guard reloadedInTransaction else { return }
        generation = nil
        dataVersion = nil
    }

    /// Called at the start of each transaction.
    func beginTransaction(_ database: Database) throws(KeychainFailure) {
        beginUnchangedRead()
        let version: Int64
        version = try database.dataVersion()
        guard version != dataVersion else { return }
        dataVersion = version
        if try Meta.integer(database, "generation") != generation { try reload(database) }
    }

    /// Called at the start of a read that runs outside a transaction while nothing changed
    /// (``Keystore/unchangedRead(_:)``), and by ``beginTransaction(_:)``: class keys are fetched again,
    /// so that a lock since the last call is seen.
    func beginUnchangedRead() {
        transactionKeys.removeAll()
        reloadedInTransaction = false
    }

    /// The database's pager data version (``Database/pagerDataVersion()``) just after this connection's
    /// last committed transaction, whose start brought these keys up to date: while it has not moved, no
    /// other connection has committed since, and a read may run outside a transaction
    /// (``Keystore/search(_:projection:)``). `nil` before the first commit and after a rollback.
    private(set) var settledPagerVersion: UInt32?

    /// Called after a transaction committed, with the pager data version read just after the commit.
    func settle(pagerVersion: UInt32?) { settledPagerVersion = pagerVersion }

    /// Searches answered outside a transaction on this connection (``Keystore/search(_:projection:)``).
    private(set) var autocommitReads = 0

    /// Counts a search answered outside a transaction.
    func countAutocommitRead() { autocommitReads += 1 }

    /// Reads answered outside a transaction on this connection (``Keystore/unchangedRead(_:)``).
    private(set) var unchangedReads = 0

    /// Counts a read ``Keystore/unchangedRead(_:)`` answered.
    func countUnchangedRead() { unchangedReads += 1 }

    /// Re-reads settings and the device slot.
    /// - Throws: `.decode` when the device slot does not open with the device key and there is no
    ///   migration slot to adopt the keychain with; `.invalidKeychain` for a damaged keybag.
    func reload(_ database: Database) throws(KeychainFailure) {
        reloadedInTransaction = true
        generation = try Meta.integer(database, "generation")
        autoLockSeconds = UInt32(clamping: try Meta.integer(database, "autolock"))
        if let kdf = try Meta.blob(database, "kdf") {
            guard let decoded = Meta.decodeKDF(kdf) else { throw KeychainFailure(.invalidKeychain, "bad KDF record") }
            password = decoded
        } else {
            password = nil
        }
        orphanedEntries = try Keybag.orphanedEntries(in: database)
        keyringID = try Meta.blob(database, "keyring_id") ?? keychainID
        if let entries = try openDeviceSlot(database) {
            deviceEntries = entries
            isForeign = false
        } else if let fresh = try DeviceKey.load(path: deviceKeyPath),
            !(deviceKey.map(fresh.constantTimeEquals) ?? false),
            let entries = try openDeviceSlot(database, with: fresh)
        {
            // Another process created or replaced the device key (an adoption): use the file's.
            deviceKey = fresh
            deviceEntries = entries
            isForeign = false
        } else if password != nil, try Keybag.hasRows(.migration, in: database) {
            deviceEntries = [:]
            isForeign = true
            return
        } else {
            throw KeychainFailure(
                .decode,
                Self.unopenableMessage(
                    deviceKeyPath: deviceKeyPath, keyExists: deviceKey != nil, hasPassword: password != nil),
                reason: .advice)
        }
        guard let indexKey else {
            throw KeychainFailure(.invalidKeychain, "the keybag has no index key")
        }
        if codec == nil { codec = ItemCodec(keychainID: keychainID, indexKey: indexKey) }
    }

    /// The device slot's entries, or `nil` when `key` (the session's device key by default) is
    /// missing or does not open it.
    private func openDeviceSlot(_ database: Database, with key: SecureBytes? = nil) throws(KeychainFailure)
        -> [KeybagEntry: SecureBytes]?
    {
        guard let key = key ?? deviceKey else { return nil }
        do {
            return try Keybag.unwrap(
                kek: Keybag.deviceKEK(deviceKey: key, keychainID: keychainID), in: database,
                keychainID: keychainID, failure: KeychainFailure(.decode))
        } catch  where error.status == .decode {
            return nil
        }
    }

    static func unopenableMessage(deviceKeyPath: String, keyExists: Bool, hasPassword: Bool) -> String {
        let what =
            keyExists
            ? "the keybag does not open with the device key at \(deviceKeyPath): the keychain was made with another one (copied from another installation, or its key was lost and replaced)"
            : "the device key \(deviceKeyPath) is missing"
        let why =
            hasPassword
            ? "this keychain's password cannot open it alone, because it has no migration keys (it was not unlocked since an upgrade, or they were removed)"
            : "this keychain has no password, so nothing else can open it"
        return what + "; " + why + " (restore that file, or restore a backup made with `security backup-keychain`)"
    }

    /// What every item call of a foreign keychain answers (with `.interactionNotAllowed`).
    static func foreignMessage(keychainPath: String) -> String {
        "the keychain \(keychainPath) was made with a device key this installation does not have (the key was lost, or the file was copied here); unlock it with its password to use it here (its ThisDeviceOnly items stay unreadable)"
    }

    /// ``foreignMessage(keychainPath:)`` for this keychain.
    var foreignFailure: KeychainFailure {
        KeychainFailure(.interactionNotAllowed, Self.foreignMessage(keychainPath: keychainPath), reason: .advice)
    }

    private static func classKeyNames(_ keyringID: [UInt8]) -> (whenUnlocked: String, afterFirstUnlock: String) {
        (
            ClassKeyStore.description(keyringID: keyringID, lifetime: .whenUnlocked),
            ClassKeyStore.description(keyringID: keyringID, lifetime: .afterFirstUnlock)
        )
    }

    /// Whether the class key of `protection` is available, reading no key bytes when that is not a use:
    /// the class key store's entry is looked up (``ClassKeyStore/epoch(description:protection:)``), not
    /// read and parsed. With an auto-lock timeout the key is loaded as ``classKey(_:)`` loads it, since
    /// every use re-arms that timeout.
    func classKeyAvailable(_ protection: ProtectionClass) -> Bool {
        if deviceEntries[.classKey(protection)] != nil || transactionKeys[protection] != nil { return true }
        let lifetime = ClassKeyStore.Lifetime(protection)
        if lifetime == .whenUnlocked && autoLockSeconds > 0 { return classKey(protection) != nil }
        let name = lifetime == .whenUnlocked ? classKeyNames.whenUnlocked : classKeyNames.afterFirstUnlock
        return ClassKeyStore.epoch(description: name, protection: protection) != nil
    }

    /// The class key of `protection`, or `nil` while it is locked.
    func classKey(_ protection: ProtectionClass) -> ClassKey? {
        if let key = deviceEntries[.classKey(protection)] { return ClassKey(key) }
        if let key = transactionKeys[protection] { return key }
        let lifetime = ClassKeyStore.Lifetime(protection)
        // Auto-lock counts inactivity: each use restarts the timeout, as macOS does.
        let rearm = lifetime == .whenUnlocked && autoLockSeconds > 0 ? autoLockSeconds : nil
        let name = lifetime == .whenUnlocked ? classKeyNames.whenUnlocked : classKeyNames.afterFirstUnlock
        // Only this class's key is copied out of the entry: a transaction rarely needs another one (each
        // class it does need is loaded once, and kept for the rest of the transaction).
        guard let key = ClassKeyStore.load(description: name, protection: protection, rearm: rearm) else { return nil }
        transactionKeys[protection] = key
        return key
    }
}

/// Typed access to the `meta` table.
enum Meta {
    static func blob(_ database: Database, _ name: String) throws(KeychainFailure) -> [UInt8]? {
        do throws(KeychainFailure) {
            let statement = try database.prepare("SELECT value FROM meta WHERE name = ?")
            try statement.bind([.text(name)])
            defer { statement.finish() }
            return try statement.step() ? statement.blob(0) : nil
        } catch {
            throw KeychainFailure(.invalidKeychain, "cannot read the keychain's metadata: \(error.databaseMessage)")
        }
    }

    static func integer(_ database: Database, _ name: String) throws(KeychainFailure) -> Int64 {
        guard let bytes = try blob(database, name), bytes.count == 8 else { return 0 }
        return bytes.reduce(0) { $0 << 8 | Int64($1) }
    }

    static func set(_ database: Database, _ name: String, _ value: [UInt8]?) throws(KeychainFailure) {
        if let value {
            try database.prepare("INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)").run([
                .text(name), .blob(value),
            ])
        } else {
            try database.prepare("DELETE FROM meta WHERE name = ?").run([.text(name)])
        }
    }

    static func set(_ database: Database, _ name: String, integer: Int64) throws(KeychainFailure) {
        try set(database, name, withUnsafeBytes(of: integer.bigEndian, Array.init))
    }

    static func encodeKDF(_ parameters: KDFParameters, salt: [UInt8]) -> [UInt8] {
        withUnsafeBytes(of: parameters.opsLimit.bigEndian, Array.init)
            + withUnsafeBytes(of: UInt64(parameters.memLimit).bigEndian, Array.init) + salt
    }

    static func decodeKDF(_ bytes: [UInt8]) -> (parameters: KDFParameters, salt: [UInt8])? {
        guard bytes.count == 16 + Sodium.passwordSaltBytes else { return nil }
        let ops = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let mem = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let parameters = KDFParameters(opsLimit: ops, memLimit: Int(clamping: mem))
        return parameters.isValid ? (parameters, Array(bytes[16...])) : nil
    }
}
