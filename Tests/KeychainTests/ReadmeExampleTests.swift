import Foundation
import Keychain
import Testing

@testable import KeychainCore

/// The README's `Keychain` example, verbatim apart from the temporary keychain around it.
@Suite("README example")
struct ReadmeExampleTests {
    @Test("the README's Keychain snippet compiles and behaves as its comments say")
    func readme() throws {
        let directory = NSTemporaryDirectory() + "swkc-readme-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keystore = try Keystore(
            location: KeychainLocation(
                databasePath: directory + "/k.keychain-db", deviceKeyPath: directory + "/device.key"))
        try KeychainContext.withOverride(KeychainContext(keystore: keystore, identity: .unsigned)) {
            let keychain = Keychain(service: "com.example.api").accessibility(.afterFirstUnlock)
            try keychain.set("s3cr3t", forKey: "alice")
            let token: String? = try keychain.string(forKey: "alice")
            #expect(token == "s3cr3t")
            var locked = false
            do {
                _ = try keychain.data(forKey: "alice")
            } catch KeychainError.interactionNotAllowed {
                locked = true
            }
            #expect(!locked, "a keychain without a password is never locked")
        }
    }
}
