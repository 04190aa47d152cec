import Foundation
import KeychainTesting
import Testing

@testable import Keychain
@testable import KeychainCore

/// The public lock API on a real lock: class keys in the kernel user keyring (or, where it is
/// unavailable, in this process), cheap Argon2id parameters, cleanup in `TemporaryKeychain.deinit`.
@Suite("Locking and unlocking")
struct LockTests {
    static var wrongPassword: KeychainPassword { KeychainPassword(copying: Array("wrong".utf8)) }

    @Test("a keychain without a password is always unlocked; lock changes nothing")
    func noPassword() throws {
        let temp = try TemporaryKeychain(opening: true)
        let keychain = Keychain(service: "svc").context(temp.context())
        try keychain.set("v", forKey: "k")
        #expect(try temp.file.lockState == .noPassword)
        try temp.file.lock()
        #expect(try temp.file.lockState == .noPassword)
        #expect(try keychain.string(forKey: "k") == "v")
        // Unlocking a keychain without a password checks nothing.
        try temp.file.unlock(password: Self.wrongPassword)
        #expect(try temp.file.autoLockTimeout == nil)
    }

    @Test("create with a password: unlocked at first, then lock, wrong password, unlock")
    func createLockUnlock() throws {
        let temp = try TemporaryKeychain(opening: true)
        let location = KeychainLocation(
            databasePath: temp.directory + "/data/keychains/work.keychain-db",
            deviceKeyPath: temp.location.deviceKeyPath)
        let file = try KeychainFile.create(
            location: location, password: TemporaryKeychain.password, parameters: .testing)
        defer { try? file.keystore.withdrawAllClassKeys() }
        #expect(file.path == location.databasePath)
        #expect(try file.lockState == .unlocked)
        try file.lock()
        #expect(try file.lockState == .locked)
        #expect(throws: KeychainError.authFailed) { try file.unlock(password: Self.wrongPassword) }
        #expect(try file.lockState == .locked)
        #expect(try file.unlock(password: TemporaryKeychain.password) == KeychainFile.unlockScope)
        #expect(try file.lockState == .unlocked)
        // Another connection (another process, in effect) sees the same state.
        let other = KeychainFile(keystore: try Keystore(location: location, create: false))
        #expect(try other.lockState == .unlocked)
        try other.lock()
        #expect(try file.lockState == .locked)
    }

    @Test("after the device key is lost: interactionNotAllowed, then unlock adopts; ThisDeviceOnly values throw decode")
    func lostDeviceKey() throws {
        let temp = try TemporaryKeychain(password: true)
        try Keychain(service: "svc").context(temp.context()).set("moves", forKey: "a")
        try Keychain(service: "svc").accessibility(.whenUnlockedThisDeviceOnly).context(temp.context()).set(
            "stays", forKey: "b")
        try temp.keystore.withdrawAllClassKeys()
        try FileManager.default.removeItem(atPath: temp.location.deviceKeyPath)

        let reopened = try Keystore(location: temp.location, create: false)
        let file = KeychainFile(keystore: reopened)
        let keychain = Keychain(service: "svc").context(KeychainContext(keystore: reopened, identity: .unsigned))
        #expect(try file.lockState == .locked)
        #expect(throws: KeychainError.interactionNotAllowed) { try keychain.string(forKey: "a") }
        #expect(throws: KeychainError.authFailed) { try file.unlock(password: Self.wrongPassword) }
        try file.unlock(password: TemporaryKeychain.password)
        #expect(try keychain.string(forKey: "a") == "moves")
        #expect(throws: KeychainError.decode) { try keychain.string(forKey: "b") }
        #expect(try keychain.allKeys() == ["a"], "listing skips what cannot be read here")
        try keychain.remove(forKey: "b")
        #expect(try keychain.string(forKey: "b") == nil)
        try reopened.withdrawAllClassKeys()
    }

    @Test("create refuses an existing file; opening a missing one is noSuchKeychain")
    func createAndOpenErrors() throws {
        let temp = try TemporaryKeychain(opening: true)
        #expect(throws: KeychainError.duplicateKeychain) {
            try KeychainFile.create(location: temp.location, password: nil, parameters: .testing)
        }
        do {
            _ = try KeychainFile(path: temp.directory + "/nothing-here.keychain-db")
            Issue.record("opening a missing keychain succeeded")
        } catch {
            #expect(error == .noSuchKeychain)
            #expect(error.operation == .open)
        }
        #expect(try KeychainFile(location: temp.location).lockState == .noPassword)
    }

    @Test("a locked read throws interactionNotAllowed and never returns nil")
    func lockedReadThrows() async throws {
        let temp = try TemporaryKeychain(password: true)
        let keychain = Keychain(service: "svc").context(temp.context())
        try await keychain.set("v", forKey: "k")
        try temp.file.lock()

        #expect(throws: KeychainError.interactionNotAllowed) { try keychain.string(forKey: "k") }
        #expect(throws: KeychainError.interactionNotAllowed) { try keychain.data(forKey: "k") }
        #expect(throws: KeychainError.interactionNotAllowed) { try keychain.value(String.self, forKey: "k") }
        #expect(throws: KeychainError.interactionNotAllowed) { try keychain.contains("k") }
        #expect(throws: KeychainError.interactionNotAllowed) { try keychain.allKeys() }
        #expect(throws: KeychainError.interactionNotAllowed) { try keychain["k"] }
        await #expect(throws: KeychainError.interactionNotAllowed) { try await keychain.string(forKey: "k") }
        // A key that has no item is still nil: nothing needs decrypting.
        #expect(try await keychain.string(forKey: "missing") == nil)

        try await temp.file.unlock(password: TemporaryKeychain.password)
        #expect(try await keychain.string(forKey: "k") == "v")
    }

    @Test("set while locked throws and leaves the old value; so does a new key")
    func lockedSetLeavesOldValue() throws {
        let temp = try TemporaryKeychain(password: true)
        let keychain = Keychain(service: "svc").context(temp.context())
        try keychain.set("old", forKey: "k")
        try temp.file.lock()

        #expect(throws: KeychainError.interactionNotAllowed) { try keychain.set("new", forKey: "k") }
        #expect(throws: KeychainError.interactionNotAllowed) { try keychain.set("new", forKey: "fresh") }

        try temp.file.unlock(password: TemporaryKeychain.password)
        #expect(try keychain.string(forKey: "k") == "old")
        #expect(try keychain.string(forKey: "fresh") == nil)
        #expect(try keychain.allKeys() == ["k"])
    }

    @Test("lock withdraws WhenUnlocked keys only; AfterFirstUnlock and Always items stay readable")
    func lockKeepsAfterFirstUnlock() throws {
        let temp = try TemporaryKeychain(password: true)
        let base = Keychain(service: "svc").context(temp.context())
        for accessibility in Accessibility.allCases {
            try base.accessibility(accessibility).set(accessibility.rawValue, forKey: accessibility.rawValue)
        }
        try temp.file.lock()
        for accessibility in Accessibility.allCases {
            let readable: Set<Accessibility> = [
                .afterFirstUnlock, .afterFirstUnlockThisDeviceOnly, .always, .alwaysThisDeviceOnly,
            ]
            if readable.contains(accessibility) {
                #expect(try base.string(forKey: accessibility.rawValue) == accessibility.rawValue)
            } else {
                #expect(throws: KeychainError.interactionNotAllowed, "\(accessibility)") {
                    try base.string(forKey: accessibility.rawValue)
                }
            }
        }
    }

    @Test("changePassword: the old password stops working, the new one unlocks; no items are rewritten")
    func changePassword() throws {
        let temp = try TemporaryKeychain(password: true)
        let keychain = Keychain(service: "svc").context(temp.context())
        try keychain.set("v", forKey: "k")
        let before = try temp.keystore.search(
            ItemQuery(itemClass: .genericPassword, filters: ["acct": .string("k")], scope: .all),
            projection: .attributes)
        let newBytes = Array("new password".utf8)

        #expect(throws: KeychainError.authFailed) {
            try temp.file.changePassword(
                from: Self.wrongPassword, to: KeychainPassword(copying: newBytes), parameters: .testing)
        }
        #expect(throws: KeychainError.authFailed) {
            try temp.file.changePassword(from: nil, to: KeychainPassword(copying: newBytes), parameters: .testing)
        }
        try temp.file.changePassword(
            from: TemporaryKeychain.password, to: KeychainPassword(copying: newBytes), parameters: .testing)
        #expect(try temp.file.lockState == .unlocked)
        try temp.file.lock()
        #expect(throws: KeychainError.authFailed) { try temp.file.unlock(password: TemporaryKeychain.password) }
        try temp.file.unlock(password: KeychainPassword(copying: newBytes))
        #expect(try keychain.string(forKey: "k") == "v")
        let after = try temp.keystore.search(
            ItemQuery(itemClass: .genericPassword, filters: ["acct": .string("k")], scope: .all),
            projection: .attributes)
        #expect(after.map(\.attributes) == before.map(\.attributes))
    }

    @Test("removing the password makes everything readable and deletes WhenPasscodeSet items")
    func removePassword() throws {
        let temp = try TemporaryKeychain(password: true)
        let keychain = Keychain(service: "svc").context(temp.context())
        try keychain.set("kept", forKey: "normal")
        try keychain.accessibility(.whenPasscodeSetThisDeviceOnly).set("gone", forKey: "passcode")
        try temp.file.changePassword(from: TemporaryKeychain.password, to: nil, parameters: .testing)
        #expect(try temp.file.lockState == .noPassword)
        try temp.file.lock()
        #expect(try keychain.string(forKey: "normal") == "kept")
        #expect(try keychain.string(forKey: "passcode") == nil)
    }

    @Test("the auto-lock timeout is stored in whole seconds, rounded up; invalid values throw param")
    func autoLockTimeout() throws {
        let temp = try TemporaryKeychain(password: true)
        #expect(try temp.file.autoLockTimeout == nil)
        try temp.file.setAutoLockTimeout(.seconds(300))
        #expect(try temp.file.autoLockTimeout == .seconds(300))
        try temp.file.setAutoLockTimeout(.milliseconds(1_500))
        #expect(try temp.file.autoLockTimeout == .seconds(2))
        // Another connection reads the same setting from the file.
        #expect(try KeychainFile(keystore: try Keystore(location: temp.location)).autoLockTimeout == .seconds(2))
        for invalid: Duration in [.zero, .seconds(-1), .seconds(Int64(UInt32.max) + 1)] {
            #expect(throws: KeychainError.param, "\(invalid)") { try temp.file.setAutoLockTimeout(invalid) }
        }
        #expect(try temp.file.autoLockTimeout == .seconds(2))
        try temp.file.setAutoLockTimeout(nil)
        #expect(try temp.file.autoLockTimeout == nil)
        // Setting a timeout does not lock an unlocked keychain.
        #expect(try temp.file.lockState == .unlocked)
    }

    @Test("async unlock and changePassword behave as the synchronous calls")
    func asyncVariants() async throws {
        let temp = try TemporaryKeychain(password: true)
        try temp.file.lock()
        await #expect(throws: KeychainError.authFailed) { try await temp.file.unlock(password: Self.wrongPassword) }
        try await temp.file.unlock(password: TemporaryKeychain.password)
        #expect(try temp.file.lockState == .unlocked)
    }

    @Test("errors of the lock API name the operation and never the password")
    func errorDescriptions() throws {
        let temp = try TemporaryKeychain(password: true)
        do {
            try temp.file.unlock(password: KeychainPassword(copying: Array("hunter2-secret".utf8)))
            Issue.record("a wrong password unlocked the keychain")
        } catch {
            #expect(error.operation == .unlock)
            #expect(error.status == -25293)
            #expect("\(error)".hasPrefix("Keychain unlock failed:"))
            #expect(!"\(error)".contains("hunter2"))
        }
    }
}

@Suite("KeychainPassword")
struct KeychainPasswordTests {
    @Test("the description is redacted and does not reveal the length")
    func redacted() {
        let short = KeychainPassword(copying: Array("a".utf8))
        let long = KeychainPassword(copying: Array("a much longer password".utf8))
        #expect("\(short)" == "KeychainPassword(redacted)")
        #expect(String(reflecting: long) == "KeychainPassword(redacted)")
        #expect("\(long)" == "\(short)")
    }

    @Test("init(wiping:) leaves the caller's array empty and the password usable")
    func wiping() throws {
        let temp = try TemporaryKeychain(password: true)
        try temp.file.lock()
        var bytes = TemporaryKeychain.passwordBytes
        let password = KeychainPassword(wiping: &bytes)
        #expect(bytes.isEmpty)
        try temp.file.unlock(password: password)
        #expect(try temp.file.lockState == .unlocked)
    }

    @Test("init(capacity:reading:) keeps exactly the bytes read")
    func reading() throws {
        let temp = try TemporaryKeychain(password: true)
        try temp.file.lock()
        let typed = TemporaryKeychain.passwordBytes + Array("\n".utf8)
        let password = try KeychainPassword(capacity: 256) { buffer in
            // A prompt that reads a line and strips the newline.
            buffer.copyBytes(from: typed)
            return typed.count - 1
        }
        try temp.file.unlock(password: password)
        #expect(try temp.file.lockState == .unlocked)
    }

    @Test("a reader that returns an impossible length is refused with param")
    func badReader() {
        #expect(throws: KeychainError.param) { try KeychainPassword(capacity: 4) { _ in 5 } }
        #expect(throws: KeychainError.param) { try KeychainPassword(capacity: 4) { _ in -1 } }
    }
}
