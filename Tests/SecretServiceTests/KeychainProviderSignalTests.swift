import CGIO
import Foundation
import KeychainCore
import Testing

@testable import SecretService

/// Signals for changes other processes make to keychain-backed collections (issue 17, item 5).
@Suite("keychain-secret-service announces other processes' changes")
struct KeychainProviderSignalTests: SecretServiceSuite {
    @Test(
        "Items created, changed and deleted by another process, and a lock, emit ItemCreated/Changed/Deleted and CollectionChanged"
    )
    func externalChanges() throws {
        let home = try KeychainHome()
        defer { home.remove() }
        let keystore = try home.createKeychain("login", password: "pw")
        _ = try keystore.unlock(password: SecureBytes(copying: Array("pw".utf8)))
        try PrivateBus.with(startProvider: false) { bus in
            try bus.startProvider(keychainHome: home.root)
            try bus.recordingSignals { recorder in
                func waitFor(_ member: String, _ path: String) -> Bool {
                    // A hang guard (the provider polls every second), not a timing assertion.
                    bus.awaitSignal(recorder) { $0.member == member && $0.object == path } != nil
                }
                let secret = SecretItemSecret(value: SecureBytes(copying: Array("s".utf8)), contentType: "text/plain")
                let number = try keystore.createSecretItem(
                    label: "x", attributes: ["a": "1"], secret: secret, replace: false
                ).number
                let item = Self.login + "/\(number)"
                #expect(waitFor("ItemCreated", item))
                try keystore.updateSecretItem(number, label: "y")
                #expect(waitFor("ItemChanged", item))
                try keystore.deleteSecretItem(number)
                #expect(waitFor("ItemDeleted", item))
                try keystore.lock()
                #expect(waitFor("CollectionChanged", Self.login))
            }
        }
    }
}
