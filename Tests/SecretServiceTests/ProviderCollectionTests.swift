import CGIO
import Foundation
import KeychainDBus
import Testing

@testable import SecretService

/// Collections, aliases, writable properties and the provider's lifetime, on a private bus.
@Suite("keychain-secret-service collections and lifetime")
struct ProviderCollectionTests: SecretServiceSuite {

    static func createCollection(_ bus: PrivateBus, label: String, alias: String) throws -> (String, String) {
        let reply = try bus.expectReply(
            service, serviceInterface, "CreateCollection",
            [
                Variant.variantMap([("org.freedesktop.Secret.Collection.Label", Variant.string(label))]),
                Variant.string(alias),
            ])
        defer { g_variant_unref(reply) }
        return (Variant.withChild(reply, 0, Variant.readString), Variant.withChild(reply, 1, Variant.readString))
    }

    @Test(
        "CreateCollection with an alias makes a live alias; a second call with that alias returns the same collection")
    func createWithAlias() throws {
        try PrivateBus.with { bus in
            let (path, prompt) = try Self.createCollection(bus, label: "Default keyring", alias: "default")
            #expect(path == "/org/freedesktop/secrets/collection/default_keyring")
            #expect(prompt == "/")
            let (again, _) = try Self.createCollection(bus, label: "Other", alias: "default")
            #expect(again == path)
            let alias = try bus.expectReply(
                Self.service, Self.serviceInterface, "ReadAlias", [Variant.string("default")])
            #expect(Variant.withChild(alias, 0, Variant.readString) == path)
            g_variant_unref(alias)
            let collections = try bus.property(Self.service, Self.serviceInterface, "Collections")
            #expect(Variant.readStrings(collections) == ["/org/freedesktop/secrets/collection/session", path])
            g_variant_unref(collections)
            // An item created through the alias lives in the collection.
            let session = try bus.openPlainSession()
            let item = try bus.createItem(
                "/org/freedesktop/secrets/aliases/default", label: "i", attributes: ["a": "b"], secret: "s",
                session: session)
            #expect(item.hasPrefix(path + "/"))
            // Any alias name is a live path and a child node of /aliases.
            g_variant_unref(
                try bus.expectReply(
                    Self.service, Self.serviceInterface, "SetAlias", [Variant.string("work"), Variant.objectPath(path)])
            )
            #expect(try bus.introspect("/org/freedesktop/secrets/aliases").contains("<node name=\"work\"/>"))
            let label = try bus.property("/org/freedesktop/secrets/aliases/work", Self.collectionInterface, "Label")
            #expect(Variant.readString(label) == "Default keyring")
            g_variant_unref(label)
            #expect(
                bus.errorName(
                    Self.service, Self.serviceInterface, "CreateCollection",
                    [Variant.variantMap([]), Variant.string("bad/alias")]) == "org.freedesktop.DBus.Error.InvalidArgs")
            // GetSecrets answers each item once, however often it is asked for.
            let secrets = try bus.expectReply(
                Self.service, Self.serviceInterface, "GetSecrets",
                [Variant.objectPaths([item, item]), Variant.objectPath(session)])
            #expect(Variant.withChild(secrets, 0, Variant.childCount) == 1)
            g_variant_unref(secrets)
            // SetAlias to "/" removes it; the collection stays.
            g_variant_unref(
                try bus.expectReply(
                    Self.service, Self.serviceInterface, "SetAlias",
                    [Variant.string("default"), Variant.objectPath("/")]))
            let removed = try bus.expectReply(
                Self.service, Self.serviceInterface, "ReadAlias", [Variant.string("default")])
            #expect(Variant.withChild(removed, 0, Variant.readString) == "/")
            g_variant_unref(removed)
            #expect(bus.errorName(item, Self.itemInterface, "GetSecret", [Variant.objectPath(session)]) == nil)
            // Collection.Delete removes it and its items.
            let deleted = try bus.expectReply(path, Self.collectionInterface, "Delete")
            #expect(Variant.withChild(deleted, 0, Variant.readString) == "/")
            g_variant_unref(deleted)
            #expect(bus.errorName(item, Self.itemInterface, "GetSecret", [Variant.objectPath(session)]) != nil)
        }
    }

    @Test("Label and Attributes are writable through org.freedesktop.DBus.Properties; Created and Locked are not")
    func writableProperties() throws {
        try PrivateBus.with { bus in
            let session = try bus.openPlainSession()
            let item = try bus.createItem(
                "/org/freedesktop/secrets/aliases/session", label: "old", attributes: ["k": "v"], secret: "s",
                session: session)
            func set(_ path: String, _ interface: String, _ name: String, _ value: OpaquePointer) -> String? {
                bus.errorName(
                    path, "org.freedesktop.DBus.Properties", "Set",
                    [Variant.string(interface), Variant.string(name), Variant.boxed(value)])
            }
            #expect(set(item, Self.itemInterface, "Label", Variant.string("new")) == nil)
            #expect(set(item, Self.itemInterface, "Attributes", Variant.stringMap(["k": "w"])) == nil)
            #expect(set(item, Self.itemInterface, "Created", Variant.uint64(1)) != nil)
            #expect(set(item, Self.itemInterface, "Label", Variant.uint32(1)) != nil)
            #expect(
                set(
                    "/org/freedesktop/secrets/collection/session", Self.collectionInterface, "Label",
                    Variant.string("Mine")) == nil)
            let label = try bus.property(item, Self.itemInterface, "Label")
            #expect(Variant.readString(label) == "new")
            g_variant_unref(label)
            let search = try bus.expectReply(
                Self.service, Self.serviceInterface, "SearchItems", [Variant.stringMap(["k": "w"])])
            #expect(Variant.withChild(search, 0, Variant.readStrings) == [item])
            g_variant_unref(search)
            let collectionLabel = try bus.property(
                "/org/freedesktop/secrets/collection/session", Self.collectionInterface, "Label")
            #expect(Variant.readString(collectionLabel) == "Mine")
            g_variant_unref(collectionLabel)
        }
    }

    @Test("With nothing in memory and no session, the provider exits by itself with status 0 after --idle-exit")
    func idleExit() throws {
        try PrivateBus.with(startProvider: false) { bus in
            try bus.startProvider(arguments: ["--idle-exit", "1"])
            let provider = try #require(bus.provider)
            provider.waitUntilExit()
            #expect(provider.terminationStatus == 0)
        }
    }

    @Test("Usage errors exit 1; --help prints the usage and exits 0")
    func usage() throws {
        for (arguments, status) in [(["--bogus"], Int32(1)), (["--idle-exit", "x"], 1), (["--help"], 0)] {
            let process = try PrivateBus.launchProvider(address: "unix:path=/nonexistent", arguments: arguments)
            process.waitUntilExit()
            #expect(process.terminationStatus == status, "\(arguments)")
        }
    }

    @Test("--version prints the program's name and version on stdout and exits 0")
    func version() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: PrivateBus.providerExecutable)
        process.arguments = ["--version"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(text == "keychain-secret-service \(SecretServiceDaemon.version)\n")
    }
}
