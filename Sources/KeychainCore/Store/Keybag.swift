/// The keychain's keybag: its class keys and index key, each wrapped by a key-encryption key.
///
/// Rows of the `keybag` table are `(entry, slot, wrapped)`:
/// - `entry` 0 is the index key (keyed digests of names); entries 1…7 are the class keys of the
///   seven protection classes (``ProtectionClass/code``).
/// - `slot` says which key-encryption key (KEK) wraps it. Slot 1, ``Slot/device``: a key derived
///   from the device key and the keychain id. Slot 2, ``Slot/passcode``: derived from the device
///   key and the Argon2id hash of the keychain password (used when a password is set).
///
/// Wrapping is XChaCha20-Poly1305 with associated data binding keychain id, entry and slot.
package struct Keybag {
    package enum Slot: Int64, Sendable {
        case device = 1
        case passcode = 2
    }

    /// Entry number of the index key.
    static let indexEntry: Int64 = 0

    static func associatedData(keychainID: [UInt8], entry: Int64, slot: Slot) -> [UInt8] {
        var ad = Array("swkc.keybag.v1".utf8)
        ad += keychainID
        ad += withUnsafeBytes(of: entry.bigEndian, Array.init)
        ad += withUnsafeBytes(of: slot.rawValue.bigEndian, Array.init)
        return ad
    }

    /// The KEK of slot ``Slot/device``.
    static func deviceKEK(deviceKey: SecureBytes, keychainID: [UInt8]) -> SecureBytes {
        Sodium.combine(deviceKey, SecureBytes(copying: keychainID), context: "swkc.kek.device.v1")
    }

    /// Creates the index key and the seven class keys, wrapped under the device slot.
    static func create(in database: Database, keychainID: [UInt8], deviceKey: SecureBytes) throws(SQLiteError) {
        let kek = deviceKEK(deviceKey: deviceKey, keychainID: keychainID)
        let insert = try database.prepare("INSERT INTO keybag (entry, slot, wrapped) VALUES (?, ?, ?)")
        for entry in [indexEntry] + ProtectionClass.allCases.map(\.code) {
            let key = SecureBytes.random(count: Sodium.keyBytes)
            let wrapped = Sodium.seal(
                key, key: kek, associatedData: associatedData(keychainID: keychainID, entry: entry, slot: .device))
            try insert.run([.integer(entry), .integer(Slot.device.rawValue), .blob(wrapped)])
        }
    }

    /// Unwraps every entry the device slot holds.
    /// - Throws: `.decode` when an entry does not authenticate (wrong device key or tampering).
    static func unlockDeviceSlot(
        in database: Database, keychainID: [UInt8], deviceKey: SecureBytes
    ) throws(KeychainFailure) -> [Int64: SecureBytes] {
        let kek = deviceKEK(deviceKey: deviceKey, keychainID: keychainID)
        var keys: [Int64: SecureBytes] = [:]
        do {
            let select = try database.prepare("SELECT entry, wrapped FROM keybag WHERE slot = ?")
            try select.bind([.integer(Slot.device.rawValue)])
            defer { select.finish() }
            while try select.step() {
                let entry = select.int64(0)
                let ad = associatedData(keychainID: keychainID, entry: entry, slot: .device)
                guard let key = Sodium.openSecret(select.blob(1), key: kek, associatedData: ad) else {
                    throw KeychainFailure(
                        .decode, "the keybag does not open with this installation's device key (entry \(entry))")
                }
                keys[entry] = key
            }
        } catch let failure as KeychainFailure {
            throw failure
        } catch {
            throw KeychainFailure(.invalidKeychain, "cannot read the keybag: \(error)")
        }
        guard keys[indexEntry] != nil else { throw KeychainFailure(.invalidKeychain, "the keybag has no index key") }
        return keys
    }
}
