import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// Protection classes and the lock (tracker issue 3). Expected statuses are Apple's:
/// errSecInteractionNotAllowed (-25308) for a locked class (SecItem.h, "kSecAttrAccessible Value Constants"),
/// errSecAuthFailed (-25293) for a wrong password.
@Suite("Data protection: password, lock and protection classes")
struct DataProtectionTests {
    static let passcode = "correct horse"

    /// A keychain with one item in every protection class, a password set, then locked and with all
    /// class keys withdrawn (the state right after a restart: before the first unlock).
    func restartedKeychain(_ temp: TemporaryKeychain) throws -> Keystore {
        let keystore = try temp.open()
        try keystore.setPassword(secret(Self.passcode), current: nil, parameters: .testing)
        for protection in ProtectionClass.allCases {
            _ = try keystore.add(
                .genericPassword, attributes: genericItem("svc", protection.rawValue, protection),
                secret: secret("s-\(protection.rawValue)"))
        }
        try keystore.withdrawAllClassKeys()
        return keystore
    }

    func status(_ keystore: Keystore, _ protection: ProtectionClass, secretToo: Bool = true) -> Int32 {
        do {
            let found = try keystore.search(
                query("svc", protection.rawValue), projection: secretToo ? [.secret, .attributes] : [.attributes])
            return found.count == 1 ? 0 : KeychainStatus.itemNotFound.rawValue
        } catch {
            return error.status.rawValue
        }
    }

    @Test("before the first unlock only the Always classes are readable", arguments: ProtectionClass.allCases)
    func beforeFirstUnlock(protection: ProtectionClass) throws {
        let temp = try TemporaryKeychain()
        let keystore = try restartedKeychain(temp)
        let expected: Int32 = protection.availability == .always ? 0 : -25308
        #expect(status(keystore, protection) == expected)
        #expect(status(keystore, protection, secretToo: false) == expected, "attribute-only queries are locked too")
    }

    @Test(
        "after unlock every class is readable; after lock only AfterFirstUnlock and Always",
        arguments: ProtectionClass.allCases)
    func unlockThenLock(protection: ProtectionClass) throws {
        let temp = try TemporaryKeychain()
        let keystore = try restartedKeychain(temp)
        try keystore.unlock(password: secret(Self.passcode))
        #expect(try keystore.lockState() == .unlocked)
        #expect(status(keystore, protection) == 0)
        try keystore.lock()
        #expect(try keystore.lockState() == .locked)
        let expected: Int32 = protection.availability == .whenUnlocked ? -25308 : 0
        #expect(status(keystore, protection) == expected)
    }

    @Test("a locked read of an existing item is never reported as absent")
    func lockedReadIsNotNotFound() throws {
        let temp = try TemporaryKeychain()
        let keystore = try restartedKeychain(temp)
        #expect(throws: KeychainFailure.self) { try keystore.search(query("svc"), projection: []) }
        do {
            _ = try keystore.search(query("svc", "ak"), projection: [])
            Issue.record("a locked item was readable")
        } catch {
            #expect(error.status == .interactionNotAllowed)
        }
    }

    @Test("a write while locked fails with -25308 and leaves the item as it was")
    func lockedWrite() throws {
        let temp = try TemporaryKeychain()
        let keystore = try restartedKeychain(temp)
        do {
            _ = try keystore.update(query("svc", "ak"), changes: [:], secret: secret("overwritten"))
            Issue.record("a locked item was updated")
        } catch {
            #expect(error.status == .interactionNotAllowed)
        }
        do {
            _ = try keystore.add(
                .genericPassword, attributes: genericItem("svc", "new", .whenUnlocked), secret: secret("x"))
            Issue.record("an item was added to a locked class")
        } catch {
            #expect(error.status == .interactionNotAllowed)
        }
        try keystore.unlock(password: secret(Self.passcode))
        let item = try keystore.search(query("svc", "ak"), projection: .secret)
        #expect(item.first?.secret?.constantTimeEquals(Array("s-ak".utf8)) == true)
    }

    @Test("auto-lock withdraws the WhenUnlocked key by itself")
    func autoLock() throws {
        let temp = try TemporaryKeychain()
        let keystore = try restartedKeychain(temp)
        try keystore.setAutoLockTimeout(1)
        try keystore.unlock(password: secret(Self.passcode))
        #expect(status(keystore, .whenUnlocked) == 0)
        Thread.sleep(forTimeInterval: 2.2)
        #expect(status(keystore, .whenUnlocked) == -25308)
        #expect(status(keystore, .afterFirstUnlock) == 0)
        #expect(try keystore.lockState() == .locked)
    }

    @Test("a wrong password returns errSecAuthFailed and changes no byte of the keychain")
    func wrongPassword() throws {
        let temp = try TemporaryKeychain()
        let keystore = try restartedKeychain(temp)
        let before = temp.files().filter { $0.key.contains("keychains/login") }
        do {
            try keystore.unlock(password: secret("wrong"))
            Issue.record("a wrong password unlocked the keychain")
        } catch {
            #expect(error.status == .authFailed)
        }
        do {
            try keystore.setPassword(secret("new"), current: secret("wrong"), parameters: .testing)
            Issue.record("a wrong current password changed the password")
        } catch {
            #expect(error.status == .authFailed)
        }
        let after = temp.files().filter { $0.key.contains("keychains/login") }
        #expect(before == after)
        #expect(try keystore.lockState() == .locked)
        try keystore.unlock(password: secret(Self.passcode))
    }

    @Test("the escalating delay starts after three failures and is capped at a minute")
    func throttleSchedule() {
        #expect((0...10).map { UnlockThrottle.delay(afterFailures: $0) } == [0, 0, 0, 1, 2, 4, 8, 16, 32, 60, 60])
    }

    @Test("changing the password keeps every item and needs the new password afterwards")
    func changePassword() throws {
        let temp = try TemporaryKeychain()
        let keystore = try restartedKeychain(temp)
        try keystore.setPassword(secret("second"), current: secret(Self.passcode), parameters: .testing)
        try keystore.withdrawAllClassKeys()
        #expect(throws: KeychainFailure.self) { try keystore.unlock(password: secret(Self.passcode)) }
        try keystore.unlock(password: secret("second"))
        for protection in ProtectionClass.allCases { #expect(status(keystore, protection) == 0) }
    }

    @Test("WhenPasscodeSet items cannot be added without a password and are destroyed when it is removed")
    func whenPasscodeSet() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        do {
            _ = try keystore.add(
                .genericPassword, attributes: genericItem("svc", "akpu", .whenPasscodeSetThisDeviceOnly),
                secret: secret("x"))
            Issue.record("a WhenPasscodeSet item was added without a password")
        } catch {
            #expect(error.status == .authFailed)
        }
        try keystore.setPassword(secret(Self.passcode), current: nil, parameters: .testing)
        _ = try keystore.add(
            .genericPassword, attributes: genericItem("svc", "akpu", .whenPasscodeSetThisDeviceOnly),
            secret: secret("x"))
        _ = try keystore.add(.genericPassword, attributes: genericItem("svc", "ak", .whenUnlocked), secret: secret("y"))
        try keystore.setPassword(nil, current: secret(Self.passcode), parameters: .testing)
        #expect(try keystore.lockState() == .noPassword)
        #expect(try keystore.search(query("svc", "akpu"), projection: []).isEmpty)
        #expect(try keystore.search(query("svc", "ak"), projection: .secret).count == 1)
    }

    @Test("a second connection sees the first one's unlock and lock")
    func sharedLockState() throws {
        let temp = try TemporaryKeychain()
        let first = try restartedKeychain(temp)
        let second = try temp.open()
        #expect(status(second, .whenUnlocked) == -25308)
        try first.unlock(password: secret(Self.passcode))
        #expect(status(second, .whenUnlocked) == 0)
        try first.lock()
        #expect(status(second, .whenUnlocked) == -25308)
    }

    @Test("setting a password in one connection locks the other's cached keys")
    func passwordSetElsewhere() throws {
        let temp = try TemporaryKeychain()
        let first = try temp.open()
        let second = try temp.open()
        _ = try second.add(.genericPassword, attributes: genericItem("svc", "ak", .whenUnlocked), secret: secret("x"))
        try first.setPassword(secret(Self.passcode), current: nil, parameters: .testing)
        try first.withdrawAllClassKeys()
        #expect(status(second, .whenUnlocked) == -25308)
    }

    @Test("changing accessibility moves the item's key to the new class")
    func accessibilityChange() throws {
        let temp = try TemporaryKeychain()
        let keystore = try restartedKeychain(temp)
        try keystore.unlock(password: secret(Self.passcode))
        #expect(try keystore.update(query("svc", "ak"), changes: ["pdmn": .string("dk")], secret: nil) == 1)
        try keystore.lock()
        let moved = try keystore.search(query("svc", "ak"), projection: [.secret, .attributes])
        #expect(moved.first?.protection == .always)
        #expect(moved.first?.secret?.constantTimeEquals(Array("s-ak".utf8)) == true)
    }

    @Test("a missing device key is a clear errSecDecode and the keychain file is left intact")
    func missingDeviceKey() throws {
        let temp = try TemporaryKeychain()
        do {
            let keystore = try temp.open()
            _ = try keystore.add(.genericPassword, attributes: genericItem("svc", "a", .always), secret: secret("x"))
        }
        let before = FileManager.default.contents(atPath: temp.location.databasePath)
        try FileManager.default.removeItem(atPath: temp.location.deviceKeyPath)
        do {
            _ = try temp.open()
            Issue.record("the keychain opened without its device key")
        } catch let failure as KeychainFailure {
            #expect(failure.status == .decode)
            #expect(failure.detail?.contains("device key") == true)
        }
        #expect(FileManager.default.contents(atPath: temp.location.databasePath) == before)
        #expect(!FileManager.default.fileExists(atPath: temp.location.deviceKeyPath), "no new device key was made")
    }
}
