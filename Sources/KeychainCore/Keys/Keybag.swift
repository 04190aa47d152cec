/// The keychain's keybag: its class keys and index key, each wrapped by a key-encryption key.
///
/// Rows of the `keybag` table are `(entry, slot, wrapped)`:
/// - `entry` (``KeybagEntry``) 0 is the index key (keyed digests of names); entries 1…7 are the
///   class keys of the seven protection classes (``ProtectionClass/code``).
/// - `slot` says which key-encryption key (KEK, ``KeyEncryptionKey``) wraps it:
///   - ``Slot/device``: `BLAKE2b(key: device key, keychain id ‖ "swkc.kek.device.v1")`. Holds the index
///     key and the Always classes always, and every class while the keychain has no password.
///   - ``Slot/passcode``: `BLAKE2b(key: device key, Argon2id(password, salt) ‖ "swkc.kek.passcode.v1")`.
///     Holds the WhenUnlocked, AfterFirstUnlock and WhenPasscodeSet classes while a password is set.
///   - ``Slot/migration``: `BLAKE2b(key: Argon2id(password, salt), keychain id ‖ "swkc.kek.migration.v1")`,
///     without the device key. While a password is set it holds a second copy of the index key and
///     of the three migratable class keys (WhenUnlocked, AfterFirstUnlock, Always), so that losing
///     the device key, or copying the file to another installation, makes exactly the
///     `…ThisDeviceOnly` items unreadable (tracker issue 3). It is read only when the device slot
///     does not open; see ``Keystore/unlock(password:)``.
///
/// Each entry sits in exactly one of the device and passcode slots, and the migratable ones also in
/// the migration slot. Wrapping is XChaCha20-Poly1305 with associated data binding keychain id,
/// entry and slot, so rows cannot be moved between keychains, entries or slots.
package enum Keybag {
    package enum Slot: Int64, Sendable {
        case device = 1
        case passcode = 2
        case migration = 3
    }

    /// Classes whose keys move to the passcode slot when a password is set.
    static let passcodeClasses: [ProtectionClass] = ProtectionClass.allCases.filter { $0.availability != .always }

    /// Entries that move to the passcode slot when a password is set.
    static let passcodeEntries: [KeybagEntry] = passcodeClasses.map(KeybagEntry.classKey)

    /// Entries copied into the migration slot while a password is set: the index key and the
    /// migratable classes.
    static let migrationEntries: [KeybagEntry] =
        [.index] + ProtectionClass.allCases.filter(\.isMigratable).map(KeybagEntry.classKey)

    /// The `…ThisDeviceOnly` classes: their keys never leave the device and passcode slots.
    static let deviceBoundEntries: [KeybagEntry] =
        ProtectionClass.allCases.filter { !$0.isMigratable }.map(KeybagEntry.classKey)

    /// Entries whose keys are withdrawn by `lock`.
    static let whenUnlockedEntries: [KeybagEntry] =
        ProtectionClass.allCases.filter { $0.availability == .whenUnlocked }.map(KeybagEntry.classKey)

    static func associatedData(keychainID: [UInt8], entry: KeybagEntry, slot: Slot) -> [UInt8] {
        var ad = Array("swkc.keybag.v1".utf8)
        ad += keychainID
        ad += withUnsafeBytes(of: entry.code.bigEndian, Array.init)
        ad += withUnsafeBytes(of: slot.rawValue.bigEndian, Array.init)
        return ad
    }

    /// The KEK of ``Slot/device``.
    static func deviceKEK(deviceKey: SecureBytes, keychainID: [UInt8]) -> DeviceKEK {
        DeviceKEK(Sodium.combine(deviceKey, SecureBytes(copying: keychainID), context: "swkc.kek.device.v1"))
    }

    /// Argon2id of the password with the stored salt and parameters: the secret both password slots
    /// derive from. It takes the KDF's time and memory (about 0.5 s and 256 MiB by default).
    /// - Throws: `.allocate` when libsodium cannot get the memory the parameters ask for.
    static func passwordHash(
        _ password: SecureBytes, salt: [UInt8], parameters: KDFParameters
    ) throws(KeychainFailure) -> PasswordHash {
        guard
            let hash = Sodium.passwordHash(
                password, salt: salt, opsLimit: parameters.opsLimit, memLimit: parameters.memLimit)
        else { throw KeychainFailure(.allocate, "Argon2id could not run with the stored parameters") }
        return PasswordHash(hash)
    }

    /// The KEK of ``Slot/passcode``: the password hash combined with the device key.
    static func passcodeKEK(passwordHash: PasswordHash, deviceKey: SecureBytes) -> PasscodeKEK {
        PasscodeKEK(Sodium.combine(deviceKey, passwordHash.bytes, context: "swkc.kek.passcode.v1"))
    }

    /// The KEK of ``Slot/migration``: the password hash alone, bound to this keychain.
    static func migrationKEK(passwordHash: PasswordHash, keychainID: [UInt8]) -> MigrationKEK {
        MigrationKEK(
            Sodium.combine(passwordHash.bytes, SecureBytes(copying: keychainID), context: "swkc.kek.migration.v1"))
    }

    /// Creates the index key and the seven class keys, wrapped under the device slot.
    static func create(in database: Database, keychainID: [UInt8], deviceKey: SecureBytes) throws(KeychainFailure) {
        let kek = deviceKEK(deviceKey: deviceKey, keychainID: keychainID)
        for entry in KeybagEntry.all {
            try store(
                SecureBytes.random(count: Sodium.keyBytes), entry: entry, kek: kek, in: database, keychainID: keychainID
            )
        }
    }

    /// Wraps `key` and writes it as `(entry, slot)`, the slot being that of `kek`'s type. A device or
    /// passcode row replaces the entry's row in either of those slots (an entry sits in one of them);
    /// a migration row replaces only the entry's migration row.
    static func store<KEK: KeyEncryptionKey>(
        _ key: SecureBytes, entry: KeybagEntry, kek: KEK, in database: Database, keychainID: [UInt8]
    ) throws(KeychainFailure) {
        let slot = KEK.slot
        let wrapped = Sodium.seal(
            key, key: kek.bytes, associatedData: associatedData(keychainID: keychainID, entry: entry, slot: slot))
        let replaced = slot == .migration ? "slot = 3" : "slot IN (1, 2)"
        try database.prepare("DELETE FROM keybag WHERE entry = ? AND \(replaced)").run([.integer(entry.code)])
        try database.prepare("INSERT INTO keybag (entry, slot, wrapped) VALUES (?, ?, ?)").run([
            .integer(entry.code), .integer(slot.rawValue), .blob(wrapped),
        ])
    }

    /// Wraps a class key: ``store(_:entry:kek:in:keychainID:)`` of `.classKey(protection)`.
    static func store<KEK: KeyEncryptionKey>(
        _ key: ClassKey, for protection: ProtectionClass, kek: KEK, in database: Database, keychainID: [UInt8]
    ) throws(KeychainFailure) {
        try store(key.bytes, entry: .classKey(protection), kek: kek, in: database, keychainID: keychainID)
    }

    /// Unwraps every entry of the slot of `kek`'s type.
    /// - Throws: `failure` when an entry does not authenticate (wrong key or tampering);
    ///   `.invalidKeychain` when the table cannot be read.
    static func unwrap<KEK: KeyEncryptionKey>(
        kek: KEK, in database: Database, keychainID: [UInt8], failure: KeychainFailure
    ) throws(KeychainFailure) -> [KeybagEntry: SecureBytes] {
        let (opened, failed) = try unwrapEach(kek: kek, in: database, keychainID: keychainID)
        guard failed.isEmpty else { throw failure }
        return opened
    }

    /// Unwraps every entry of `slot` that opens with `kek`, and lists those that do not.
    ///
    /// With a wrong KEK nothing opens; when some entries open and others do not, the KEK is right
    /// and the rows that fail were damaged. A row of an entry number this build does not know is
    /// neither (it is never used).
    /// - Throws: `.invalidKeychain` when the table cannot be read.
    static func unwrapEach<KEK: KeyEncryptionKey>(
        kek: KEK, in database: Database, keychainID: [UInt8]
    ) throws(KeychainFailure) -> (opened: [KeybagEntry: SecureBytes], failed: [KeybagEntry]) {
        let slot = KEK.slot
        var opened: [KeybagEntry: SecureBytes] = [:]
        var failed: [KeybagEntry] = []
        do throws(KeychainFailure) {
            let select = try database.prepare("SELECT entry, wrapped FROM keybag WHERE slot = ?")
            try select.bind([.integer(slot.rawValue)])
            defer { select.finish() }
            while try select.step() {
                guard let entry = KeybagEntry(code: select.int64(0)) else { continue }
                let ad = associatedData(keychainID: keychainID, entry: entry, slot: slot)
                if let key = Sodium.openSecret(select.blob(1), key: kek.bytes, associatedData: ad) {
                    opened[entry] = key
                } else {
                    failed.append(entry)
                }
            }
        } catch {
            throw KeychainFailure(.invalidKeychain, "cannot read the keybag: \(error.databaseMessage)")
        }
        return (opened, failed)
    }

    /// The migration slot opened with `kek`: the keys that open, and whether it is whole (every
    /// migratable entry is there and opens, and no row fails).
    /// - Throws: `.invalidKeychain` when the table cannot be read.
    static func openMigrationSlot(
        kek: MigrationKEK, in database: Database, keychainID: [UInt8]
    ) throws(KeychainFailure) -> (keys: [KeybagEntry: SecureBytes], isWhole: Bool) {
        let (opened, failed) = try unwrapEach(kek: kek, in: database, keychainID: keychainID)
        return (opened, failed.isEmpty && migrationEntries.allSatisfy { opened[$0] != nil })
    }

    /// Whether `slot` holds any row.
    /// - Throws: `.invalidKeychain` when the table cannot be read.
    static func hasRows(_ slot: Slot, in database: Database) throws(KeychainFailure) -> Bool {
        do throws(KeychainFailure) {
            return try database.scalar("SELECT count(*) FROM keybag WHERE slot = \(slot.rawValue)") > 0
        } catch {
            throw KeychainFailure(.invalidKeychain, "cannot read the keybag: \(error.databaseMessage)")
        }
    }

    /// Removes every row of `slot`.
    static func remove(_ slot: Slot, in database: Database) throws(KeychainFailure) {
        try database.prepare("DELETE FROM keybag WHERE slot = ?").run([.integer(slot.rawValue)])
    }

    /// Moves the rows of `entry` (device or passcode slot) aside into `meta`, under
    /// `orphaned-class-key.<tag>.<entry>`, as `slot (1 byte) ‖ wrapped`. Used when a keychain is
    /// adopted by a new device key: the old `…ThisDeviceOnly` class keys cannot be opened here, but
    /// they are kept, not destroyed, so that the old device key could still open them.
    static func setAside(entry: KeybagEntry, tag: Int64, in database: Database) throws(KeychainFailure) {
        let select = try database.prepare("SELECT slot, wrapped FROM keybag WHERE entry = ? AND slot IN (1, 2)")
        try select.bind([.integer(entry.code)])
        var rows: [(Int64, [UInt8])] = []
        while try select.step() { rows.append((select.int64(0), select.blob(1))) }
        select.finish()
        for (slot, wrapped) in rows {
            try Meta.set(database, "\(orphanPrefix)\(tag).\(entry)", [UInt8(truncatingIfNeeded: slot)] + wrapped)
        }
        try database.prepare("DELETE FROM keybag WHERE entry = ? AND slot IN (1, 2)").run([.integer(entry.code)])
    }

    /// Prefix of the `meta` names ``setAside(entry:tag:in:)`` writes.
    static let orphanPrefix = "orphaned-class-key."

    /// The entries that have class keys set aside by an adoption.
    static func orphanedEntries(in database: Database) throws(KeychainFailure) -> Set<KeybagEntry> {
        var entries: Set<KeybagEntry> = []
        do throws(KeychainFailure) {
            let select = try database.prepare("SELECT name FROM meta WHERE name >= ? AND name < ?")
            try select.bind([.text(orphanPrefix), .text(orphanPrefix + "\u{10FFFF}")])
            defer { select.finish() }
            while try select.step() {
                if let last = select.text(0).split(separator: ".").last, let code = Int64(last),
                    let entry = KeybagEntry(code: code)
                {
                    entries.insert(entry)
                }
            }
        } catch {
            throw KeychainFailure(.invalidKeychain, "cannot read the keychain's metadata: \(error.databaseMessage)")
        }
        return entries
    }
}
