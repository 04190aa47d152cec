import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// The golden keychains in `Fixtures/golden-v2/` (``GoldenKeychainFixture``) open with their fixed device
/// key and read back every item, attribute for attribute and byte for byte: the on-disk format (the
/// `items` row, its sealing and associated data, the row tags and the keybag) still reads.
@Suite("Golden keychain", .serialized)
struct GoldenKeychainTests {
    /// A copy of one golden keychain and the device key at `temp`'s paths.
    func copy(_ file: String) throws -> TemporaryKeychain {
        let temp = try TemporaryKeychain()
        let manager = FileManager.default
        for (source, target) in [(file, temp.location.databasePath), ("device.key", temp.location.deviceKeyPath)] {
            let folder = (target as NSString).deletingLastPathComponent
            try manager.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let bytes = try Data(contentsOf: GoldenKeychainFixture.folder.appendingPathComponent(source))
            #expect(manager.createFile(atPath: target, contents: bytes, attributes: [.posixPermissions: 0o600]))
        }
        return temp
    }

    func query(_ item: GoldenKeychainFixture.Item) -> ItemQuery {
        let name = ItemCodec.nameAttribute(item.itemClass)
        let account = ItemCodec.accountAttribute(item.itemClass)
        return ItemQuery(
            itemClass: item.itemClass,
            filters: .init(named: [name: item.attributes[name]!, account: item.attributes[account]!]), scope: .all,
            synchronizable: .any)
    }

    /// Every item of `items` reads back exactly, and the keychain holds nothing else.
    func expectEveryItem(_ keystore: Keystore, _ items: [GoldenKeychainFixture.Item]) throws {
        for item in items {
            let found = try keystore.search(query(item), projection: [.attributes, .secret])
            #expect(found.count == 1)
            #expect(found.first?.itemClass == item.itemClass)
            #expect(found.first?.attributes == GoldenKeychainFixture.expectedAttributes(item))
            #expect(found.first?.secret?.constantTimeEquals(item.secret) == true)
            #expect(found.first?.persistentRef.starts(with: Array(item.itemClass.rawValue.utf8)) == true)
        }
        var total = 0
        for itemClass in ItemClass.allCases {
            total += try keystore.search(
                ItemQuery(itemClass: itemClass, scope: .all, synchronizable: .any), projection: .attributes
            ).count
        }
        #expect(total == items.count)
        #expect(try keystore.verifyIntegrity() == items.count)
    }

    @Test("the golden keychain without a password reads back every item of every class")
    func goldenKeychain() throws {
        let temp = try copy("login.keychain-db")
        let keystore = try temp.open()
        #expect(try keystore.hasPassword() == false)
        try expectEveryItem(keystore, GoldenKeychainFixture.items)
    }

    @Test("the golden keychain with a password is locked when copied, and unlocks with its password to read every item")
    func goldenProtectedKeychain() throws {
        let temp = try copy("protected.keychain-db")
        let keystore = try temp.open()
        #expect(try keystore.hasPassword() == true)
        let first = GoldenKeychainFixture.protectedItems[0]
        // Locked: errSecInteractionNotAllowed, never "not found" (APPLE-SEMANTICS); a wrong password: errSecAuthFailed.
        let locked = #expect(throws: KeychainFailure.self) { try keystore.search(query(first), projection: .secret) }
        #expect(locked?.status == .interactionNotAllowed)
        let wrong = #expect(throws: KeychainFailure.self) { try keystore.unlock(password: secret("not the password")) }
        #expect(wrong?.status == .authFailed)
        try keystore.unlock(password: secret(GoldenKeychainFixture.password))
        try expectEveryItem(keystore, GoldenKeychainFixture.protectedItems)
    }

    /// Writes the fixtures (see ``GoldenKeychainFixture``); runs only when `SWKC_WRITE_GOLDEN=1`.
    @Test(
        "writes the golden keychains (only with SWKC_WRITE_GOLDEN=1)",
        .enabled(if: ProcessInfo.processInfo.environment["SWKC_WRITE_GOLDEN"] == "1"))
    func writeFixture() throws {
        let manager = FileManager.default
        let folder = GoldenKeychainFixture.folder.path
        let files = ["login.keychain-db", "protected.keychain-db", "device.key"]
        try manager.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // The device key's folder must be private while the engine reads it.
        try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder)
        for file in files { try? manager.removeItem(atPath: folder + "/" + file) }
        let deviceKeyPath = folder + "/device.key"
        #expect(
            manager.createFile(
                atPath: deviceKeyPath, contents: Data(GoldenKeychainFixture.deviceKey),
                attributes: [.posixPermissions: 0o600]))
        try write(
            folder + "/login.keychain-db", deviceKeyPath: deviceKeyPath, GoldenKeychainFixture.items, password: nil)
        try write(
            folder + "/protected.keychain-db", deviceKeyPath: deviceKeyPath, GoldenKeychainFixture.protectedItems,
            password: GoldenKeychainFixture.password)
        for file in files { try manager.setAttributes([.posixPermissions: 0o644], ofItemAtPath: folder + "/" + file) }
        try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder)
    }

    /// Creates one keychain holding `items`; its connection closes on return, which folds the
    /// write-ahead log into the file.
    func write(_ path: String, deviceKeyPath: String, _ items: [GoldenKeychainFixture.Item], password: String?) throws {
        let keystore = try Keystore(location: KeychainLocation(databasePath: path, deviceKeyPath: deviceKeyPath))
        if let password { try keystore.setPassword(secret(password), current: nil, parameters: .testing) }
        for item in items {
            _ = try keystore.write { (s: borrowing StoreSession) throws(KeychainFailure) -> [UInt8] in
                try s.add(
                    item.itemClass, attributes: item.attributes, secret: SecureBytes(copying: item.secret),
                    now: GoldenKeychainFixture.created)
            }
        }
        try keystore.withdrawAllClassKeys()
    }
}
