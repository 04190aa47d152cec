import Foundation
import Testing

@testable import KeychainCore

/// A keychain damaged in an inner page, not its header (tracker issue 24, item 2): before, `security`
/// said only "cannot read the keychain's metadata: database disk image is malformed", with no file
/// and no advice, and `show-keychain-info` said only that the file was not a valid keychain.
@Suite("damaged keychain advice for an inner page")
struct DamagedKeychainAdviceTests {
    /// A keychain with a password and 40 items, made by `security` processes, then its second page
    /// (the first after the header's) overwritten with random bytes.
    static func damagedKeychain(_ sandbox: Sandbox) throws -> String {
        let security = try EndToEndTests.tool("security")
        let path = sandbox.directory + "/damaged.keychain-db"
        #expect(
            try EndToEndTests.run(security, ["create-keychain", "-p", "pw", path], environment: sandbox.environment)
                .status == 0)
        for index in 0..<40 {
            let secret = String(repeating: "v\(index)", count: 40)
            let added = try EndToEndTests.run(
                security, ["add-generic-password", "-a", "a\(index)", "-s", "s\(index)", "-w", secret, path],
                environment: sandbox.environment)
            #expect(added.status == 0)
        }
        // Its unlock leaves the kernel keyring before the file is damaged (nothing can open it after).
        try Keystore(
            location: KeychainLocation(databasePath: path, deviceKeyPath: sandbox.location.deviceKeyPath), create: false
        )
        .withdrawAllClassKeys()
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        #expect(try handle.seekToEnd() > 3 * 4096, "the file has inner pages")
        try handle.seek(toOffset: 4096)
        try handle.write(contentsOf: Data((0..<4096).map { _ in UInt8.random(in: 0...255) }))
        return path
    }

    @Test(
        "find-generic-password and show-keychain-info on a keychain damaged in an inner page name the file and security restore-keychain"
    )
    func innerPageDamage() throws {
        let sandbox = try Sandbox()
        let path = try Self.damagedKeychain(sandbox)
        let security = try EndToEndTests.tool("security")
        let advice = "restore it from a backup with `security restore-keychain -i BACKUP \(path)`"
        let find = try EndToEndTests.run(
            security, ["find-generic-password", "-s", "s3", "-w", path], environment: sandbox.environment)
        #expect(find.status == 49, "\(find)")
        #expect(find.stderr.contains("security: \(path) cannot be read as a keychain: "), "\(find)")
        #expect(find.stderr.contains(advice), "\(find)")
        let info = try EndToEndTests.run(security, ["show-keychain-info", path], environment: sandbox.environment)
        #expect(info.status == 49, "\(info)")
        #expect(info.stderr.contains("security: \(path) cannot be read as a keychain: "), "\(info)")
        #expect(info.stderr.contains(advice), "\(info)")
    }
}
