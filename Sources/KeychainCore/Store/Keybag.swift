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
///
/// Each entry sits in exactly one slot. Wrapping is XChaCha20-Poly1305 with associated data binding
/// keychain id, entry and slot, so rows cannot be moved between keychains, entries or slots.
package enum Keybag {
    package enum Slot: Int64, Sendable {
        case device = 1
        case passcode = 2
    }

    /// Entry number of the index key.
    static let indexEntry: Int64 = 0

    /// Entries that move to the passcode slot when a password is set.
    static let passcodeEntries: [Int64] = ProtectionClass.allCases.filter { $0.availability != .always }.map(\.code)

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

    /// The KEK of ``Slot/passcode``: Argon2id of the password, combined with the device key.
    /// - Throws: `.allocate` when libsodium cannot get the memory the parameters ask for.
    static func passcodeKEK(
        password: SecureBytes, salt: [UInt8], parameters: KDFParameters, deviceKey: SecureBytes
    ) throws(KeychainFailure) -> SecureBytes {
        guard
            let hash = Sodium.passwordHash(
                password, salt: salt, opsLimit: parameters.opsLimit, memLimit: parameters.memLimit)
        else { throw KeychainFailure(.allocate, "Argon2id could not run with the stored parameters") }
        return Sodium.combine(deviceKey, hash, context: "swkc.kek.passcode.v1")
    }

    /// Creates the index key and the seven class keys, wrapped under the device slot.
    static func create(in database: Database, keychainID: [UInt8], deviceKey: SecureBytes) throws(SQLiteError) {
        let kek = deviceKEK(deviceKey: deviceKey, keychainID: keychainID)
        for entry in [indexEntry] + ProtectionClass.allCases.map(\.code) {
            try store(SecureBytes.random(count: Sodium.keyBytes), entry: entry, slot: .device, kek: kek,
                in: database, keychainID: keychainID)
        }
    }

    /// Wraps `key` and writes it as `(entry, slot)`, replacing the entry's row in any slot.
    static func store(
        _ key: SecureBytes, entry: Int64, slot: Slot, kek: SecureBytes, in database: Database, keychainID: [UInt8]
    ) throws(SQLiteError) {
        let wrapped = Sodium.seal(
            key, key: kek, associatedData: associatedData(keychainID: keychainID, entry: entry, slot: slot))
        try database.prepare("DELETE FROM keybag WHERE entry = ?").run([.integer(entry)])
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
        var keys: [Int64: SecureBytes] = [:]
        do {
            let select = try database.prepare("SELECT entry, wrapped FROM keybag WHERE slot = ?")
            try select.bind([.integer(slot.rawValue)])
            defer { select.finish() }
            while try select.step() {
                let entry = select.int64(0)
                let ad = associatedData(keychainID: keychainID, entry: entry, slot: slot)
                guard let key = Sodium.openSecret(select.blob(1), key: kek, associatedData: ad) else { throw failure }
                keys[entry] = key
            }
        } catch let thrown as KeychainFailure {
            throw thrown
        } catch {
            throw KeychainFailure(.invalidKeychain, "cannot read the keybag: \(error)")
        }
        return keys
    }
}
