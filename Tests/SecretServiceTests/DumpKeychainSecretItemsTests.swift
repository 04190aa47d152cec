import Foundation
import KeychainCore
import Testing

/// `security dump-keychain` lists Secret Service items (issue 17, "What users see in the tools").
@Suite("security dump-keychain with Secret Service items")
struct DumpKeychainSecretItemsTests {
    @Test("Items are listed by label and attribute names; values and secrets stay out unless -d asks for the secret")
    func listsLabelAndNames() throws {
        let home = try KeychainHome()
        defer { home.remove() }
        let keystore = try home.createKeychain("login", password: nil)
        _ = try keystore.createSecretItem(
            label: "GitHub token", attributes: ["service": "github.com", "username": "octocat"],
            secret: SecretItemSecret(value: SecureBytes(copying: Array("ghp_secret".utf8)), contentType: "text/plain"),
            replace: false)
        let path = home.location("login").databasePath
        let plain = try home.security(["dump-keychain", path])
        #expect(plain.status == 0)
        #expect(plain.output.contains("class: \"ssvc\""))
        #expect(plain.output.contains("\"labl\"<blob>=\"GitHub token\""))
        #expect(
            plain.output.contains("\"attr\"<name>=\"service\"") && plain.output.contains("\"attr\"<name>=\"username\""))
        #expect(!plain.output.contains("octocat") && !plain.output.contains("github.com"))
        #expect(!plain.output.contains("ghp_secret"))
        let withData = try home.security(["dump-keychain", "-d", path])
        #expect(withData.status == 0)
        #expect(withData.output.contains("data:\n\"ghp_secret\""))
    }
}
