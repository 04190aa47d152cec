import CGIO
import Foundation
import KeychainCore
import KeychainDBus
import Testing

@testable import SecretService

/// Aliases set with `SetAlias` (a 0600 file beside `keychains.conf`) and collection labels (the keychain
/// file's `meta` table) outlive the provider.
@Suite("keychain-secret-service aliases and labels across restarts")
struct KeychainProviderAliasTests {
    typealias Provider = KeychainProviderTests

    static func readAlias(_ bus: PrivateBus, _ name: String) throws -> String {
        let reply = try bus.expectReply(
            Provider.service, Provider.serviceInterface, "ReadAlias", [Variant.string(name)])
        defer { g_variant_unref(reply) }
        return Variant.withChild(reply, 0, Variant.readString)
    }

    static func aliasesPath(_ home: KeychainHome) -> String {
        home.root + "/config/swift-keychain/secret-service-aliases"
    }

    @Test("An alias set with SetAlias survives a restart of the provider, in a 0600 file; removing it is saved too")
    func aliasSurvivesRestart() throws {
        try Provider.with { bus, home in
            try bus.startProvider(keychainHome: home.root)
            g_variant_unref(
                try bus.expectReply(
                    Provider.service, Provider.serviceInterface, "SetAlias",
                    [Variant.string("work"), Variant.objectPath(Provider.login)]))
            #expect(FileSystem.permissions(Self.aliasesPath(home)) == 0o600)
            bus.stopProvider()
            try bus.startProvider(keychainHome: home.root)
            #expect(try Self.readAlias(bus, "work") == Provider.login)
            g_variant_unref(
                try bus.expectReply(
                    Provider.service, Provider.serviceInterface, "SetAlias",
                    [Variant.string("work"), Variant.objectPath("/")]))
            bus.stopProvider()
            try bus.startProvider(keychainHome: home.root)
            #expect(try Self.readAlias(bus, "work") == "/")
        }
    }

    static func setAlias(_ bus: PrivateBus, _ name: String, _ path: String) throws {
        g_variant_unref(
            try bus.expectReply(
                Provider.service, Provider.serviceInterface, "SetAlias",
                [Variant.string(name), Variant.objectPath(path)]))
    }

    @Test(
        "Built-in aliases pointed at session or removed with / survive a restart; default at a keychain goes to keychains.conf"
    )
    func builtInAliasesSurviveRestart() throws {
        try Provider.with { bus, home in
            let session = "/org/freedesktop/secrets/collection/session"
            let conf = home.root + "/config/swift-keychain/keychains.conf"
            try bus.startProvider(keychainHome: home.root)
            try Self.setAlias(bus, "default", session)
            try Self.setAlias(bus, "login", "/")
            #expect(try Self.readAlias(bus, "default") == session)
            #expect(FileSystem.permissions(Self.aliasesPath(home)) == 0o600)
            bus.stopProvider()
            try bus.startProvider(keychainHome: home.root)
            #expect(try Self.readAlias(bus, "default") == session)
            #expect(try Self.readAlias(bus, "login") == "/")
            #expect(try Self.readAlias(bus, "session") == session)
            // Back to a keychain: the default keychain of keychains.conf again, and nothing of it left in the
            // aliases file, so that `security default-keychain` decides after the next restart too.
            try Self.setAlias(bus, "default", Provider.login)
            try Self.setAlias(bus, "login", Provider.login)
            #expect(KeychainPreferences.load(path: conf).defaultKeychain == home.location("login").databasePath)
            bus.stopProvider()
            try bus.startProvider(keychainHome: home.root)
            #expect(try Self.readAlias(bus, "default") == Provider.login)
            #expect(try Self.readAlias(bus, "login") == Provider.login)
            let saved = try String(contentsOfFile: Self.aliasesPath(home), encoding: .utf8)
            #expect(!saved.contains("default\t"))
        }
    }

    @Test("A corrupt aliases file is reported on standard error and ignored; the provider starts and serves")
    func corruptAliasesFile() throws {
        try Provider.with { bus, home in
            try FileManager.default.createDirectory(
                atPath: home.root + "/config/swift-keychain", withIntermediateDirectories: true)
            try "work\t/not a collection\n".write(toFile: Self.aliasesPath(home), atomically: true, encoding: .utf8)
            let stderr = Pipe()
            try bus.startProvider(keychainHome: home.root, stderr: stderr)
            #expect(try Self.readAlias(bus, "work") == "/")
            #expect(try Self.readAlias(bus, "default") == Provider.login)
            bus.stopProvider()
            let log = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(log.contains("ignoring the aliases file \(Self.aliasesPath(home)): line 1 is not"))
        }
    }

    @Test(
        "SetAlias default changes the default keychain of keychains.conf (security default-keychain), across restarts")
    func defaultAliasIsTheDefaultKeychain() throws {
        try Provider.with { bus, home in
            try home.createKeychain("work", password: nil)
            let conf = home.root + "/config/swift-keychain/keychains.conf"
            try FileManager.default.createDirectory(
                atPath: home.root + "/config/swift-keychain", withIntermediateDirectories: true)
            try "search=\(home.location("login").databasePath)\n".write(toFile: conf, atomically: true, encoding: .utf8)
            try bus.startProvider(keychainHome: home.root)
            let work = "/org/freedesktop/secrets/collection/work"
            #expect(try Self.readAlias(bus, "default") == Provider.login)
            g_variant_unref(
                try bus.expectReply(
                    Provider.service, Provider.serviceInterface, "SetAlias",
                    [Variant.string("default"), Variant.objectPath(work)]))
            #expect(try Self.readAlias(bus, "default") == work)
            // What `security default-keychain` and `list-keychains` read now: the new default, the search list kept.
            let preferences = KeychainPreferences.load(path: conf)
            #expect(preferences.defaultKeychain == home.location("work").databasePath)
            #expect(preferences.searchList == [home.location("login").databasePath])
            bus.stopProvider()
            try bus.startProvider(keychainHome: home.root)
            #expect(try Self.readAlias(bus, "default") == work)
        }
    }

    @Test("A collection's Label set while its keychain is locked is kept in the keychain file and survives a restart")
    func labelSurvivesRestart() throws {
        try Provider.with { bus, home in
            let keystore = try home.createKeychain("work", password: "pw")
            try bus.startProvider(keychainHome: home.root)
            let work = "/org/freedesktop/secrets/collection/work"
            #expect(try Provider.string(bus, work, Provider.collectionInterface, "Label") == "work")
            g_variant_unref(
                try bus.expectReply(
                    work, "org.freedesktop.DBus.Properties", "Set",
                    [
                        Variant.string(Provider.collectionInterface), Variant.string("Label"),
                        Variant.boxed(Variant.string("Work – Ünïcode")),
                    ]))
            #expect(try keystore.lockState() != .unlocked)
            #expect(try keystore.secretCollectionLabel() == "Work – Ünïcode")
            bus.stopProvider()
            try bus.startProvider(keychainHome: home.root)
            #expect(try Provider.string(bus, work, Provider.collectionInterface, "Label") == "Work – Ünïcode")
        }
    }
}
