import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// Losing the device key, or moving the keychain file to another installation (tracker issue 3,
/// item 4): exactly the `…ThisDeviceOnly` items become unreadable, with a clear status, and the
/// rest stay intact. Apple: "Items with this attribute do not migrate to a new device"
/// (SecItem.h, `kSecAttrAccessibleWhenUnlockedThisDeviceOnly`).
@Suite("Device key loss: only ThisDeviceOnly items are lost")
struct DeviceKeyLossTests {
    static let passcode = "correct horse"

    /// A keychain with a password and one item in every protection class, closed, with every class
    /// key withdrawn (as after a restart).
    func populatedKeychain(_ temp: TemporaryKeychain) throws {
        let keystore = try temp.open()
        try keystore.setPassword(secret(Self.passcode), current: nil, parameters: .testing)
        for protection in ProtectionClass.allCases {
            _ = try keystore.add(
                .genericPassword, attributes: genericItem("svc", protection.rawValue, protection),
                secret: secret("s-\(protection.rawValue)"))
        }
        try keystore.withdrawAllClassKeys()
    }

    /// The status of reading the item of `protection`, or its secret as text.
    func read(_ keystore: Keystore, _ protection: ProtectionClass) -> String {
        do {
            let found = try keystore.search(query("svc", protection.rawValue), projection: [.secret, .attributes])
            guard let item = found.first, found.count == 1 else { return "status -25300" }
            return item.secret!.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        } catch {
            return "status \(error.status.rawValue)"
        }
    }

    func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    @Test("a lost device key: locked until unlocked, then exactly the ThisDeviceOnly items answer errSecDecode")
    func lostDeviceKey() throws {
        let temp = try TemporaryKeychain()
        try populatedKeychain(temp)
        try FileManager.default.removeItem(atPath: temp.location.deviceKeyPath)

        let keystore = try temp.open()
        #expect(try keystore.lockState() == .locked)
        for protection in ProtectionClass.allCases {
            #expect(read(keystore, protection) == "status -25308", "\(protection) must read as locked, never as absent")
        }
        let before = [bytes(temp.location.databasePath), bytes(temp.location.databasePath + "-wal")]
        #expect(throws: KeychainFailure.self) { try keystore.unlock(password: secret("wrong")) }
        #expect(
            [bytes(temp.location.databasePath), bytes(temp.location.databasePath + "-wal")] == before,
            "a wrong password writes nothing")
        #expect(
            !FileManager.default.fileExists(atPath: temp.location.deviceKeyPath),
            "a wrong password creates no device key")

        try keystore.unlock(password: secret(Self.passcode))
        #expect(
            FileManager.default.fileExists(atPath: temp.location.deviceKeyPath), "the adoption made a new device key")
        for protection in ProtectionClass.allCases {
            let expected = protection.isMigratable ? "s-\(protection.rawValue)" : "status -26275"
            #expect(read(keystore, protection) == expected, "\(protection)")
        }
        do {
            _ = try keystore.search(query("svc", "aku"), projection: .secret)
            Issue.record("a ThisDeviceOnly item of the lost device key was readable")
        } catch {
            #expect(
                error.detail?.contains("another installation") == true, "the status says why: \(error.detail ?? "")")
        }
        #expect(try keystore.verifyIntegrity() == ProtectionClass.allCases.count)
    }

    @Test("after the adoption the keychain works as before: Always while locked, the rest after unlock")
    func adoptedKeychainWorks() throws {
        let temp = try TemporaryKeychain()
        try populatedKeychain(temp)
        try FileManager.default.removeItem(atPath: temp.location.deviceKeyPath)
        try temp.open().unlock(password: secret(Self.passcode))

        let keystore = try temp.open()
        try keystore.withdrawAllClassKeys()
        #expect(read(keystore, .always) == "s-dk", "Always is bound to the new device key")
        #expect(read(keystore, .whenUnlocked) == "status -25308")
        #expect(read(keystore, .alwaysThisDeviceOnly) == "status -26275")
        try keystore.unlock(password: secret(Self.passcode))
        #expect(read(keystore, .whenUnlocked) == "s-ak")

        // New ThisDeviceOnly items use the new class keys.
        _ = try keystore.add(
            .genericPassword, attributes: genericItem("new", "aku", .whenUnlockedThisDeviceOnly),
            secret: secret("fresh"))
        let fresh = try keystore.search(query("new", "aku"), projection: .secret)
        #expect(fresh.first?.secret?.constantTimeEquals(Array("fresh".utf8)) == true)

        // An unreadable item can be deleted by its primary key, and then added again.
        #expect(try keystore.delete(query("svc", "aku")) == 1)
        #expect(read(keystore, .whenUnlockedThisDeviceOnly) == "status -25300")
        _ = try keystore.add(
            .genericPassword, attributes: genericItem("svc", "aku", .whenUnlockedThisDeviceOnly),
            secret: secret("again"))
        #expect(read(keystore, .whenUnlockedThisDeviceOnly) == "again")
        #expect(try keystore.verifyIntegrity() == ProtectionClass.allCases.count + 1)
    }

    @Test("a keychain copied to another installation opens there with its password; the original is untouched")
    func copiedToAnotherInstallation() throws {
        let temp = try TemporaryKeychain()
        try populatedKeychain(temp)
        let other = KeychainLocation(
            databasePath: temp.directory + "/other/data/keychains/login.keychain-db",
            deviceKeyPath: temp.directory + "/other/state/keychains/device.key")
        // The other installation already has a device key of its own.
        _ = try DeviceKey.loadOrCreate(path: other.deviceKeyPath)
        try FileSystem.makePrivateDirectory(temp.directory + "/other/data/keychains")
        try FileManager.default.copyItem(atPath: temp.location.databasePath, toPath: other.databasePath)

        // The original is unlocked while its copy is adopted: they share a keychain id, but the copy's
        // new ThisDeviceOnly class keys must never be taken for the original's in the kernel keyring.
        // (Two installations on one user session share that keyring only in tests like this one.)
        let original = try temp.open()
        try original.unlock(password: secret(Self.passcode))

        let copy = try Keystore(location: other, create: false)
        #expect(read(copy, .always) == "status -25308")
        try copy.unlock(password: secret(Self.passcode))
        for protection in ProtectionClass.allCases {
            #expect(read(copy, protection) == (protection.isMigratable ? "s-\(protection.rawValue)" : "status -26275"))
        }
        _ = try copy.add(
            .genericPassword, attributes: genericItem("copy", "aku", .whenUnlockedThisDeviceOnly), secret: secret("c"))

        // The adoption withdrew the entries of the id the two shared: the original is locked, not confused.
        #expect(read(original, .whenUnlockedThisDeviceOnly) == "status -25308")
        try original.unlock(password: secret(Self.passcode))
        for protection in ProtectionClass.allCases {
            #expect(read(original, protection) == "s-\(protection.rawValue)", "the original keeps every item")
        }
        _ = try original.add(
            .genericPassword, attributes: genericItem("orig", "aku", .whenUnlockedThisDeviceOnly), secret: secret("o"))
        try copy.lock()
        #expect(read(original, .whenUnlocked) == "s-ak", "locking the copy does not lock the original")
        try original.lock()
        try original.unlock(password: secret(Self.passcode))
        try copy.unlock(password: secret(Self.passcode))
        #expect(
            try original.search(query("orig", "aku"), projection: .secret).first?.secret?.constantTimeEquals(
                Array("o".utf8)) == true)
        #expect(
            try copy.search(query("copy", "aku"), projection: .secret).first?.secret?.constantTimeEquals(
                Array("c".utf8)) == true)
        try copy.withdrawAllClassKeys()
    }

    @Test("a device key lost while unlocked: after the adoption, lock still withdraws the WhenUnlocked key")
    func lostWhileUnlocked() throws {
        let temp = try TemporaryKeychain()
        try populatedKeychain(temp)
        let keystore = try temp.open()
        try keystore.unlock(password: secret(Self.passcode))
        let oldKeyringID = try keystore.read { (s: borrowing StoreSession) throws(KeychainFailure) in s.keys.keyringID }
        try FileManager.default.removeItem(atPath: temp.location.deviceKeyPath)

        let adopted = try temp.open()
        try adopted.unlock(password: secret(Self.passcode))
        for protection in Keybag.passcodeClasses {
            #expect(
                ClassKeyStore.load(keyringID: oldKeyringID, protection: protection) == nil,
                "\(protection) left under the old id")
        }
        #expect(read(adopted, .whenUnlocked) == "s-ak")
        try adopted.lock()
        #expect(read(adopted, .whenUnlocked) == "status -25308")
        #expect(read(adopted, .afterFirstUnlock) == "s-ck")
        try adopted.withdrawAllClassKeys()
    }

    @Test(
        "a damaged device key file is refused with advice, and the keychain is left as it was", arguments: [0, 31, 33])
    func damagedDeviceKey(size: Int) throws {
        let temp = try TemporaryKeychain()
        try populatedKeychain(temp)
        let before = bytes(temp.location.databasePath)
        _ = FileManager.default.createFile(
            atPath: temp.location.deviceKeyPath, contents: Data(repeating: 7, count: size),
            attributes: [.posixPermissions: 0o600])
        #expect {
            _ = try temp.open()
        } throws: { error in
            let failure = error as? KeychainFailure
            return failure?.status == .decode && failure?.isAdvice == true
                && failure?.detail?.contains("damaged") == true
        }
        #expect(bytes(temp.location.databasePath) == before)
    }

    @Test("unreadable ThisDeviceOnly items do not block searches over several items, backups or exports")
    func orphansAreSkipped() throws {
        let temp = try TemporaryKeychain()
        try populatedKeychain(temp)
        try FileManager.default.removeItem(atPath: temp.location.deviceKeyPath)
        let keystore = try temp.open()
        try keystore.unlock(password: secret(Self.passcode))

        let all = try keystore.search(
            ItemQuery(itemClass: .genericPassword, filters: [:], scope: .all), projection: [.attributes])
        #expect(Set(all.map(\.protection)) == [.whenUnlocked, .afterFirstUnlock, .always])
        #expect(try keystore.update(query("svc"), changes: ["labl": .string("seen")], secret: nil) == 3)
        #expect(throws: KeychainFailure.self) {
            try keystore.update(query("svc", "cku"), changes: ["labl": .string("x")], secret: nil)
        }
        let report = try keystore.backup(
            to: temp.directory + "/b.swkcbackup", passphrase: secret("backup"), parameters: .testing)
        #expect(report.items == 3)
        #expect(report.unreadableThisDeviceOnly == 3, "aku, cku and dku; akpu is never backed up")
        #expect(report.excludedWhenPasscodeSet == 1)
        // Deleting by a non-indexed attribute skips them, and they stay reported.
        #expect(
            try keystore.delete(ItemQuery(itemClass: .genericPassword, filters: ["labl": .string("seen")], scope: .all))
                == 3)
        #expect(read(keystore, .alwaysThisDeviceOnly) == "status -26275")
    }

    @Test("a damaged migration slot: the right password says so (not 'wrong password'); a normal unlock repairs it")
    func damagedMigrationSlot() throws {
        let temp = try TemporaryKeychain()
        try populatedKeychain(temp)
        try damageMigrationRow(temp)
        // With the device key, the next unlock rewrites it.
        try temp.open().unlock(password: secret(Self.passcode))
        try temp.open().withdrawAllClassKeys()
        try FileManager.default.removeItem(atPath: temp.location.deviceKeyPath)
        try temp.open().unlock(password: secret(Self.passcode))
        #expect(read(try temp.open(), .whenUnlocked) == "s-ak")

        // Without the device key, damage cannot be repaired, and is reported as such.
        let second = try TemporaryKeychain()
        try populatedKeychain(second)
        try damageMigrationRow(second)
        try FileManager.default.removeItem(atPath: second.location.deviceKeyPath)
        let keystore = try second.open()
        #expect {
            try keystore.unlock(password: secret(Self.passcode))
        } throws: { error in
            let failure = error as? KeychainFailure
            return failure?.status == .decode && failure?.detail?.contains("damaged") == true
        }
        #expect(throws: KeychainFailure.self) { try keystore.unlock(password: secret("wrong")) }
        #expect(read(keystore, .whenUnlocked) == "status -25308")
    }

    func damageMigrationRow(_ temp: TemporaryKeychain) throws {
        let database = try Database(path: temp.location.databasePath, mode: .readWrite)
        try database.execute("UPDATE keybag SET wrapped = randomblob(length(wrapped)) WHERE slot = 3 AND entry = 1")
    }

    @Test("another connection that opened the foreign keychain reads once it is adopted elsewhere")
    func adoptionSeenByOtherConnection() throws {
        let temp = try TemporaryKeychain()
        try populatedKeychain(temp)
        try FileManager.default.removeItem(atPath: temp.location.deviceKeyPath)
        let waiting = try temp.open()
        #expect(read(waiting, .always) == "status -25308")
        try temp.open().unlock(password: secret(Self.passcode))
        #expect(read(waiting, .always) == "s-dk")
        #expect(read(waiting, .afterFirstUnlock) == "s-ck")
    }

    @Test("the migration slot follows the password: changed with it, removed with it")
    func migrationSlotFollowsPassword() throws {
        let temp = try TemporaryKeychain()
        try populatedKeychain(temp)
        let keystore = try temp.open()
        try keystore.setPassword(secret("second"), current: secret(Self.passcode), parameters: .testing)
        #expect(try migrationRows(temp) == Keybag.migrationEntries.count)
        try keystore.withdrawAllClassKeys()
        try FileManager.default.removeItem(atPath: temp.location.deviceKeyPath)

        let moved = try temp.open()
        #expect(throws: KeychainFailure.self) { try moved.unlock(password: secret(Self.passcode)) }
        try moved.unlock(password: secret("second"))
        #expect(read(moved, .whenUnlocked) == "s-ak")

        try moved.setPassword(nil, current: secret("second"), parameters: .testing)
        #expect(try migrationRows(temp) == 0, "without a password nothing but the device key opens the keybag")
    }

    @Test("a keychain whose password predates the migration slot gets it at its next unlock")
    func legacyKeychainGetsMigrationSlot() throws {
        let temp = try TemporaryKeychain()
        try populatedKeychain(temp)
        let database = try Database(path: temp.location.databasePath, mode: .readWrite)
        try database.execute("DELETE FROM keybag WHERE slot = 3")
        #expect(try migrationRows(temp) == 0)
        try FileManager.default.copyItem(
            atPath: temp.location.deviceKeyPath, toPath: temp.directory + "/device.key.saved")

        try temp.open().withdrawAllClassKeys()
        try FileManager.default.removeItem(atPath: temp.location.deviceKeyPath)
        #expect {
            _ = try temp.open()
        } throws: { error in
            (error as? KeychainFailure)?.detail?.contains("no migration keys") == true
        }
        try FileManager.default.copyItem(
            atPath: temp.directory + "/device.key.saved", toPath: temp.location.deviceKeyPath)

        try temp.open().unlock(password: secret(Self.passcode))
        #expect(try migrationRows(temp) == Keybag.migrationEntries.count)
    }

    @Test("a keychain without a password has nothing but its device key: a clear errSecDecode, nothing changed")
    func passwordlessKeychainNeedsItsDeviceKey() throws {
        let temp = try TemporaryKeychain()
        _ = try temp.open().add(
            .genericPassword, attributes: genericItem("svc", "a", .whenUnlocked), secret: secret("x"))
        try FileManager.default.removeItem(atPath: temp.location.deviceKeyPath)
        let before = bytes(temp.location.databasePath)
        #expect {
            _ = try temp.open()
        } throws: { error in
            let failure = error as? KeychainFailure
            return failure?.status == .decode && failure?.detail?.contains("no password") == true
        }
        #expect(bytes(temp.location.databasePath) == before)
        #expect(!FileManager.default.fileExists(atPath: temp.location.deviceKeyPath))
    }

    func migrationRows(_ temp: TemporaryKeychain) throws -> Int64 {
        let database = try Database(path: temp.location.databasePath, mode: .readWrite)
        return try database.scalar("SELECT count(*) FROM keybag WHERE slot = 3")
    }
}
