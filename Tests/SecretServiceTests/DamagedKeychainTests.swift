import CGIO
import Foundation
import KeychainCore
import KeychainDBus
import Testing

@testable import SecretService

/// A login keychain file that cannot be opened stays visible, locked and untouched (issue 24, item 2).
@Suite("keychain-secret-service keeps a damaged keychain visible and protected")
struct DamagedKeychainTests: SecretServiceSuite {
    /// Ways a keychain file gets damaged.
    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case truncated, random, empty
        var testDescription: String { rawValue }

        /// The engine's words for it, which every refusal carries.
        var cause: String {
            switch self {
            case .truncated, .random: "cannot be read as a keychain"
            case .empty: "is empty; refusing to replace it"
            }
        }

        func apply(to original: [UInt8]) -> [UInt8] {
            switch self {
            case .truncated: Array(original.prefix(1000))
            case .random: (0..<8192).map { _ in UInt8.random(in: 0...255) }
            case .empty: []
            }
        }
    }

    @Test(
        "Regression: a damaged login keychain is listed, aliased and locked; Unlock and writes fail naming the file, the cause and security restore-keychain; its bytes are untouched",
        arguments: Damage.allCases)
    func damagedLogin(_ damage: Damage) throws {
        let home = try KeychainHome()
        defer { home.remove() }
        do {
            let keystore = try home.createKeychain("login", password: "pw")
            _ = try keystore.unlock(password: SecureBytes(copying: Array("pw".utf8)))
            let secret = SecretItemSecret(value: SecureBytes(copying: Array("s".utf8)), contentType: "text/plain")
            _ = try keystore.createSecretItem(label: "x", attributes: ["a": "1"], secret: secret, replace: false)
            try keystore.lock()
        }
        let path = home.location("login").databasePath
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let bytes = damage.apply(to: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let folderBefore = try FileManager.default.contentsOfDirectory(atPath: home.directory).sorted()

        let stderr = Pipe()
        try PrivateBus.with(startProvider: false) { bus in
            try bus.startProvider(keychainHome: home.root, stderr: stderr)
            let collections = try bus.property(Self.service, Self.serviceInterface, "Collections")
            #expect(Variant.readStrings(collections).contains(Self.login))
            g_variant_unref(collections)
            let alias = try bus.expectReply(
                Self.service, Self.serviceInterface, "ReadAlias", [Variant.string("default")])
            #expect(Variant.withChild(alias, 0, Variant.readString) == Self.login)
            g_variant_unref(alias)
            let locked = try bus.property(Self.login, Self.collectionInterface, "Locked")
            #expect(Variant.readBoolean(locked))
            g_variant_unref(locked)

            func expectRefusal(_ result: Result<OpaquePointer, PrivateBus.DBusError>, _ what: String) {
                switch result {
                case .success(let reply):
                    g_variant_unref(reply)
                    Issue.record("\(what) succeeded on a damaged keychain")
                case .failure(let error):
                    #expect(error.name == "org.freedesktop.DBus.Error.Failed", "\(what): \(error)")
                    #expect(error.message.contains(path), "\(what): \(error)")
                    #expect(error.message.contains(damage.cause), "\(what): \(error)")
                    #expect(error.message.contains("security restore-keychain"), "\(what): \(error)")
                }
            }
            expectRefusal(
                bus.call(Self.service, Self.serviceInterface, "Unlock", [Variant.objectPaths([Self.login])]), "Unlock")
            let session = try bus.openPlainSession()
            let properties = Variant.variantMap([
                ("org.freedesktop.Secret.Item.Label", Variant.string("new")),
                ("org.freedesktop.Secret.Item.Attributes", Variant.stringMap(["b": "2"])),
            ])
            expectRefusal(
                bus.call(
                    "/org/freedesktop/secrets/aliases/default", Self.collectionInterface, "CreateItem",
                    [properties, PrivateBus.secretValue(session, Array("v".utf8)), Variant.boolean(false)]),
                "CreateItem")
            expectRefusal(bus.call(Self.login, Self.collectionInterface, "Delete"), "Collection.Delete")
            // CreateCollection with the default alias answers the existing (damaged) collection: no
            // prompt offers a new keychain in its place.
            let create = try bus.expectReply(
                Self.service, Self.serviceInterface, "CreateCollection",
                [
                    Variant.variantMap([("org.freedesktop.Secret.Collection.Label", Variant.string("Default keyring"))]
                    ),
                    Variant.string("default"),
                ])
            #expect(Variant.withChild(create, 0, Variant.readString) == Self.login)
            #expect(Variant.withChild(create, 1, Variant.readString) == "/")
            g_variant_unref(create)
        }
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) == bytes, "the damaged file was written")
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.directory).sorted() == folderBefore)
        let log = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        // Once at start, then once for each refused use (Unlock, CreateItem, Delete).
        let lines = log.split(separator: "\n").filter { $0.contains(path) && $0.contains("security restore-keychain") }
        #expect(lines.count >= 4, "\(log)")
    }

    @Test(
        "Engine failures map to Failed with the engine's words, a full disk adding how to free space; never NotSupported"
    )
    func engineFailuresMapToFailed() {
        for status in [KeychainStatus.io, .invalidKeychain, .diskFull, .decode] {
            let mapped = KeychainSecretStore.mapped(KeychainFailure(status, "/k/login.keychain-db: cause"))
            guard case .failed(let message) = mapped else {
                Issue.record("\(status) mapped to \(mapped)")
                continue
            }
            #expect(message.contains("/k/login.keychain-db: cause"))
            #expect(message.contains("free space") == (status == .diskFull))
        }
        #expect(DBusFailure(.failed("m"), path: "/p").name == "org.freedesktop.DBus.Error.Failed")
    }
}
