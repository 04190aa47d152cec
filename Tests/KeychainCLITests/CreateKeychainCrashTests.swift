import Foundation
import Testing

@testable import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// `Keystore.create` with a password (tracker issue 25): the keychain used to be created without a
/// password and given one in a second step, so another process could open it passwordless in between,
/// and a kill between the steps left a keychain with no password at all.
@Suite("create-keychain with a password, killed at each step")
struct CreateKeychainCrashTests {
    static let points = CrashPoint.passwordChange + [CrashPoint.creationLinking]

    @Test("create-keychain -p killed at any step leaves no keychain, never one without a password", arguments: points)
    func killedCreation(point: String) throws {
        let sandbox = try Sandbox()
        let security = try EndToEndTests.tool("security")
        let path = sandbox.directory + "/made.keychain-db"
        var environment = sandbox.environment
        environment["KEYCHAIN_CRASH_POINT"] = point
        let killed = try EndToEndTests.run(security, ["create-keychain", "-p", "pw", path], environment: environment)
        #expect(killed.status == SIGKILL, "killed at \(point): \(killed)")
        #expect(!FileManager.default.fileExists(atPath: path), "no keychain at \(path) after a kill at \(point)")
        // Made again without the crash point, it has its password.
        #expect(
            try EndToEndTests.run(security, ["create-keychain", "-p", "pw", path], environment: sandbox.environment)
                .status == 0)
        let keystore = try Keystore(
            location: KeychainLocation(databasePath: path, deviceKeyPath: sandbox.location.deviceKeyPath), create: false
        )
        #expect(try keystore.hasPassword())
        #expect(try keystore.unlockPlacement() != nil)
        try keystore.withdrawAllClassKeys()
        #expect(try keystore.lockState() == .locked)
    }
}
