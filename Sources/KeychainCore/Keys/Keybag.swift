/// The keychain's keybag: its class keys and index key, each wrapped by a key-encryption key.
///
/// Rows of the `keybag` table are `(entry, slot, wrapped)`:
/// - `entry` 0 is the index key (keyed digests of names); entries 1…7 are the class keys of the
///   seven protection classes (``ProtectionClass/code``).
/// - `slot` says which key-encryption key (KEK) wraps it:
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

    /// Entry number of the index key.
    static let indexEntry: Int64 = 0

    /// Entries that move to the passcode slot when a password is set.
    static let passcodeEntries: [Int64] = ProtectionClass.allCases.filter { $0.availability != .always }.map(\.code)

    /// Entries copied into the migration slot while a password is set: the index key and the
    /// migratable classes.
    static let migrationEntries: [Int64] = [indexEntry] + ProtectionClass.allCases.filter(\.isMigratable).map(\.code)

    /// The `…ThisDeviceOnly` classes: their keys never leave the device and passcode slots.
    static let deviceBoundEntries: [Int64] = ProtectionClass.allCases.filter { !$0.isMigratable }.map(\.code)

    /// Entries whose keys are withdrawn by `lock`.
    static let whenUnlockedEntries: [Int64] = ProtectionClass.allCases.filter { $0.availability == .whenUnlocked }
        .map(\.code)

    static func associatedData(keychainID: [UInt8], entry: Int64, slot: Slot) -> [UInt8] {
        var ad = Array("swkc.keybag.v1".utf8)
        ad += keychainID
        ad += withUnsafeBytes(of: entry.bigEndian, Array.init)
        ad += withUnsafeBytes(of: slot.rawValue.bigEndian, Array.init)
        return ad
    }

    /// The KEK of ``Slot/device``.
    static func deviceKEK(deviceKey: SecureBytes, keychainID: [UInt8]) -> SecureBytes {
        Sodium.combine(deviceKey, SecureBytes(copying: keychainID), context: "swkc.kek.device.v1")
    }

    /// Argon2id of the password with the stored salt and parameters: the secret both password slots
    /// derive from. It takes the KDF's time and memory (about 0.5 s and 256 MiB by default).
    /// - Throws: `.allocate` when libsodium cannot get the memory the parameters ask for.
    static func passwordHash(
        _ password: SecureBytes, salt: [UInt8], parameters: KDFParameters
    ) throws(KeychainFailure) -> SecureBytes {
        guard
            let hash = Sodium.passwordHash(
                password, salt: salt, opsLimit: parameters.opsLimit, memLimit: parameters.memLimit)
        else { throw KeychainFailure(.allocate, "Argon2id could not run with the stored parameters") }
        return hash
    }

    /// The KEK of ``Slot/passcode``: the password hash combined with the device key.
    static func passcodeKEK(passwordHash: SecureBytes, deviceKey: SecureBytes) -> SecureBytes {
        Sodium.combine(deviceKey, passwordHash, context: "swkc.kek.passcode.v1")
    }

    /// The KEK of ``Slot/migration``: the password hash alone, bound to this keychain.
    static func migrationKEK(passwordHash: SecureBytes, keychainID: [UInt8]) -> SecureBytes {
        Sodium.combine(passwordHash, SecureBytes(copying: keychainID), context: "swkc.kek.migration.v1")
    }

    /// Creates the index key and the seven class keys, wrapped under the device slot.
    static func create(in database: Database, keychainID: [UInt8], deviceKey: SecureBytes) throws(SQLiteError) {
        let kek = deviceKEK(deviceKey: deviceKey, keychainID: keychainID)
        for entry in [indexEntry] + ProtectionClass.allCases.map(\.code) {
            try store(SecureBytes.random(count: Sodium.keyBytes), entry: entry, slot: .device, kek: kek,
                in: database, keychainID: keychainID)
        }
    }

    /// Wraps `key` and writes it as `(entry, slot)`. A device or passcode row replaces the entry's
    /// row in either of those slots (an entry sits in one of them); a migration row replaces only
    /// the entry's migration row.
    static func store(
        _ key: SecureBytes, entry: Int64, slot: Slot, kek: SecureBytes, in database: Database, keychainID: [UInt8]
    ) throws(SQLiteError) {
        let wrapped = Sodium.seal(
            key, key: kek, associatedData: associatedData(keychainID: keychainID, entry: entry, slot: slot))
        let replaced = slot == .migration ? "slot = 3" : "slot IN (1, 2)"
        try database.prepare("DELETE FROM keybag WHERE entry = ? AND \(replaced)").run([.integer(entry)])
        try database.prepare("INSERT INTO keybag (entry, slot, wrapped) VALUES (?, ?, ?)").run([
            .integer(entry), .integer(slot.rawValue), .blob(wrapped),
        ])
    }

    /// Unwraps every entry of `slot` with `kek`.
    /// - Throws: `failure` when an entry does not authenticate (wrong key or tampering);
    ///   `.invalidKeychain` when the table cannot be read.
    static func unwrap(
        slot: Slot, kek: SecureBytes, in database: Database, keychainID: [UInt8], failure: KeychainFailure
    ) throws(KeychainFailure) -> [Int64: SecureBytes] {
        let (opened, failed) = try unwrapEach(slot: slot, kek: kek, in: database, keychainID: keychainID)
        guard failed.isEmpty else { throw failure }
        return opened
    }

    /// Unwraps every entry of `slot` that opens with `kek`, and lists those that do not.
    ///
    /// With a wrong KEK nothing opens; when some entries open and others do not, the KEK is right
    /// and the rows that fail were damaged.
    /// - Throws: `.invalidKeychain` when the table cannot be read.
    static func unwrapEach(
        slot: Slot, kek: SecureBytes, in database: Database, keychainID: [UInt8]
    ) throws(KeychainFailure) -> (opened: [Int64: SecureBytes], failed: [Int64]) {
        var opened: [Int64: SecureBytes] = [:]
        var failed: [Int64] = []
        do {
            let select = try database.prepare("SELECT entry, wrapped FROM keybag WHERE slot = ?")
            try select.bind([.integer(slot.rawValue)])
            defer { select.finish() }
            while try select.step() {
                let entry = select.int64(0)
                let ad = associatedData(keychainID: keychainID, entry: entry, slot: slot)
                if let key = Sodium.openSecret(select.blob(1), key: kek, associatedData: ad) {
                    opened[entry] = key
                } else {
                    failed.append(entry)
                }
            }
        } catch {
            throw KeychainFailure(.invalidKeychain, "cannot read the keybag: \(error)")
        }
        return (opened, failed)
    }

    /// The migration slot opened with `kek`: the keys that open, and whether it is whole (every
    /// migratable entry is there and opens, and no row fails).
    /// - Throws: `.invalidKeychain` when the table cannot be read.
    static func openMigrationSlot(
        kek: SecureBytes, in database: Database, keychainID: [UInt8]
    ) throws(KeychainFailure) -> (keys: [Int64: SecureBytes], isWhole: Bool) {
        let (opened, failed) = try unwrapEach(slot: .migration, kek: kek, in: database, keychainID: keychainID)
        return (opened, failed.isEmpty && migrationEntries.allSatisfy { opened[$0] != nil })
    }

    /// Whether `slot` holds any row.
    /// - Throws: `.invalidKeychain` when the table cannot be read.
    static func hasRows(_ slot: Slot, in database: Database) throws(KeychainFailure) -> Bool {
        do {
            return try database.scalar("SELECT count(*) FROM keybag WHERE slot = \(slot.rawValue)") > 0
        } catch {
            throw KeychainFailure(.invalidKeychain, "cannot read the keybag: \(error.message)")
        }
    }

    /// Removes every row of `slot`.
    static func remove(_ slot: Slot, in database: Database) throws(SQLiteError) {
        try database.prepare("DELETE FROM keybag WHERE slot = ?").run([.integer(slot.rawValue)])
    }

    /// Moves the rows of `entry` (device or passcode slot) aside into `meta`, under
    /// `orphaned-class-key.<tag>.<entry>`, as `slot (1 byte) ‖ wrapped`. Used when a keychain is
    /// adopted by a new device key: the old `…ThisDeviceOnly` class keys cannot be opened here, but
    /// they are kept, not destroyed, so that the old device key could still open them.
    static func setAside(entry: Int64, tag: Int64, in database: Database) throws(SQLiteError) {
        let select = try database.prepare("SELECT slot, wrapped FROM keybag WHERE entry = ? AND slot IN (1, 2)")
        try select.bind([.integer(entry)])
        var rows: [(Int64, [UInt8])] = []
        while try select.step() { rows.append((select.int64(0), select.blob(1))) }
        select.finish()
        for (slot, wrapped) in rows {
            try Meta.set(database, "\(orphanPrefix)\(tag).\(entry)", [UInt8(truncatingIfNeeded: slot)] + wrapped)
        }
        try database.prepare("DELETE FROM keybag WHERE entry = ? AND slot IN (1, 2)").run([.integer(entry)])
    }

    /// Prefix of the `meta` names ``setAside(entry:tag:in:)`` writes.
    static let orphanPrefix = "orphaned-class-key."

    /// The entries that have class keys set aside by an adoption.
    static func orphanedEntries(in database: Database) throws(KeychainFailure) -> Set<Int64> {
        var entries: Set<Int64> = []
        do {
            let select = try database.prepare("SELECT name FROM meta WHERE name >= ? AND name < ?")
            try select.bind([.text(orphanPrefix), .text(orphanPrefix + "\u{10FFFF}")])
            defer { select.finish() }
            while try select.step() {
                if let last = select.text(0).split(separator: ".").last, let entry = Int64(last) { entries.insert(entry) }
            }
        } catch {
            throw KeychainFailure(.invalidKeychain, "cannot read the keychain's metadata: \(error)")
        }
        return entries
    }
}
