import Foundation
import KeychainCore
import KeychainTesting
import Testing

/// Secret Service items over a real sync group (issue 26: "Secret Service items sync when their collection's
/// keychain is marked synchronized"): three keychains with their own homes and a local bare git remote, as the
/// other end-to-end tests; items are stored through the engine calls the Secret Service provider makes.
@Suite("security sync end to end: Secret Service items")
struct SecretItemSyncKeychainTests {
    static func store(_ device: SyncDevice, label: String, application: String, secret: String) throws -> Int64 {
        try device.store.createSecretItem(
            label: label, attributes: ["application": application, "xdg:schema": "org.example.Password"],
            secret: SecretItemSecret(
                value: SecureBytes(copying: Array(secret.utf8)), contentType: "text/plain; charset=utf8"),
            replace: false
        ).number
    }

    static func find(_ device: SyncDevice, application: String) throws -> (label: String, secret: String)? {
        guard let item = try device.store.secretItems(matching: ["application": application]).first else { return nil }
        let secret = try device.store.secretItemSecret(item.number)
        return (item.label, secret.value.withUnsafeBytes { String(decoding: $0, as: UTF8.self) })
    }

    @Test(
        "An item stored on an enabled keychain reaches the others with label, attributes and secret, and its delete follows; a keychain not enabled sends nothing"
    )
    func endToEnd() throws {
        let home = try TemporaryKeychain()
        let tests = SyncKeychainTests()
        let (devices, url) = try tests.group(.git, home: home)
        let enabled = devices[0].security("sync", "enable")
        #expect(enabled.status == 0, "\(enabled)")
        let number = try Self.store(
            devices[0], label: "Chromium Safe Storage e2e", application: "chromium-e2e", secret: "ss-secret-e2e")
        _ = try Self.store(
            devices[1], label: "label-not-enabled", application: "quiet-e2e", secret: "secret-not-enabled")
        tests.syncAll(devices)
        for device in devices[1...] {
            let found = try #require(try Self.find(device, application: "chromium-e2e"))
            #expect(found.label == "Chromium Safe Storage e2e")
            #expect(found.secret == "ss-secret-e2e")
            let attributes = try device.store.secretItems(matching: ["application": "chromium-e2e"]).first?.attributes
            #expect(attributes == ["application": "chromium-e2e", "xdg:schema": "org.example.Password"])
        }
        for device in [devices[0], devices[2]] { #expect(try Self.find(device, application: "quiet-e2e") == nil) }

        #expect(try devices[0].store.deleteSecretItem(number))
        tests.syncAll(devices)
        for device in devices { #expect(try Self.find(device, application: "chromium-e2e") == nil) }
        #expect(try Self.find(devices[1], application: "quiet-e2e")?.secret == "secret-not-enabled")

        let group = SyncGroup.Inspector(kind: .git, url: url, scratch: home.directory)
        let words = [
            "ss-secret-e2e", "Chromium Safe Storage e2e", "chromium-e2e", "secret-not-enabled", "label-not-enabled",
            "quiet-e2e", "org.example.Password",
        ]
        let blobs = try group.everyBlob()
        #expect(blobs.count > 5)
        for blob in blobs {
            for word in words { #expect(!SyncEngineTests.contains(blob, Array(word.utf8)), "the remote holds \(word)") }
        }
    }
}
