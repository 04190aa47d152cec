import Foundation
import KeychainCore
import Testing

/// `security dump-keychain` lists Secret Service items (issue 17, "What users see in the tools").
@Suite("security dump-keychain with Secret Service items")
struct DumpKeychainSecretItemsTests {
    static let security: String = {
        URL(fileURLWithPath: PrivateBus.providerExecutable).deletingLastPathComponent().appendingPathComponent("security").path
    }()

    func run(_ arguments: [String], _ home: KeychainHome) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.security)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(home.environment) { _, new in new }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

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
        let plain = try run(["dump-keychain", path], home)
        #expect(plain.status == 0)
        #expect(plain.output.contains("class: \"ssvc\""))
        #expect(plain.output.contains("\"labl\"<blob>=\"GitHub token\""))
        #expect(plain.output.contains("\"attr\"<name>=\"service\"") && plain.output.contains("\"attr\"<name>=\"username\""))
        #expect(!plain.output.contains("octocat") && !plain.output.contains("github.com"))
        #expect(!plain.output.contains("ghp_secret"))
        let withData = try run(["dump-keychain", "-d", path], home)
        #expect(withData.status == 0)
        #expect(withData.output.contains("data:\n\"ghp_secret\""))
    }
}
