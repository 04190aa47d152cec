import CGIO
import Foundation
import KeychainCore
import KeychainDBus
import Testing

@testable import SecretService

/// `secret-tool lookup` on a damaged keychain said nothing and exited 1 (tracker issue 24, the new-user
/// trial): libsecret treats empty `SearchItems` lists as "no such item". An empty search that included
/// a damaged keychain now fails with the keychain's reason, which libsecret's tool prints.
@Suite("keychain-secret-service: a search over a damaged keychain says why")
struct DamagedSearchTests: SecretServiceSuite {
    /// Runs the real `secret-tool` on `bus`: exit status and standard error.
    static func secretTool(_ bus: PrivateBus, _ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/secret-tool")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test(
        "Regression: secret-tool lookup, search and clear on a damaged login keychain print the file, the cause and security restore-keychain",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/secret-tool"), "secret-tool is not installed"))
    func secretToolSaysWhy() throws {
        let home = try KeychainHome()
        defer { home.remove() }
        do {
            let keystore = try home.createKeychain("login", password: "pw")
            _ = try keystore.unlock(password: SecureBytes(copying: Array("pw".utf8)))
            let secret = SecretItemSecret(value: SecureBytes(copying: Array("s".utf8)), contentType: "text/plain")
            _ = try keystore.createSecretItem(
                label: "x", attributes: ["service": "mail"], secret: secret, replace: false)
            try keystore.lock()
        }
        let path = home.location("login").databasePath
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let bytes = Array([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))).prefix(1000))
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        try PrivateBus.with(startProvider: false) { bus in
            try bus.startProvider(keychainHome: home.root, stderr: Pipe())
            for command in [
                ["lookup", "service", "mail"], ["search", "service", "mail"], ["clear", "service", "mail"],
            ] {
                let (status, stderr) = try Self.secretTool(bus, command)
                #expect(status == 1, "\(command[0])")
                #expect(stderr.hasPrefix("secret-tool: "), "\(command[0]): \(stderr)")
                #expect(stderr.contains(path), "\(command[0]): \(stderr)")
                #expect(stderr.contains("cannot be read as a keychain"), "\(command[0]): \(stderr)")
                #expect(stderr.contains("security restore-keychain"), "\(command[0]): \(stderr)")
            }
            // The collection's own SearchItems fails the same way; the session collection's answers empty.
            let failed = bus.call(
                Self.login, Self.collectionInterface, "SearchItems", [Variant.stringMap(["service": "mail"])])
            if case .failure(let error) = failed {
                #expect(error.name == "org.freedesktop.DBus.Error.Failed")
                #expect(error.message.contains(path))
            } else {
                Issue.record("Collection.SearchItems on a damaged keychain succeeded")
            }
            let session = try bus.expectReply(
                "/org/freedesktop/secrets/collection/session", Self.collectionInterface, "SearchItems",
                [Variant.stringMap(["service": "mail"])])
            #expect(Variant.withChild(session, 0, Variant.readStrings) == [])
            g_variant_unref(session)
        }
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) == bytes, "the damaged file was written")
    }
}
