import CGIO
import Foundation
import KeychainCore
import KeychainDBus
import Testing

@testable import SecretService

/// `keychain-secret-service migrate` against a real gnome-keyring on a private bus: every item arrives
/// unchanged (label, attributes, secret, content type, collection), locked collections are counted as
/// skipped, a second run copies nothing, and a missing provider is a clear error.
@Suite("Migration from another Secret Service provider")
struct MigrationTests: SecretServiceSuite {
    static let gnomeKeyring = "/usr/bin/gnome-keyring-daemon"
    static let hasGnomeKeyring = FileManager.default.isExecutableFile(atPath: gnomeKeyring)

    /// An item as the source holds it.
    struct Expected: Hashable, Comparable {
        var collectionLabel: String
        var label: String
        var attributes: [String: String]
        var secret: [UInt8]
        var contentType: String

        static func < (lhs: Self, rhs: Self) -> Bool {
            if (lhs.collectionLabel, lhs.label) != (rhs.collectionLabel, rhs.label) {
                return (lhs.collectionLabel, lhs.label) < (rhs.collectionLabel, rhs.label)
            }
            return lhs.secret.lexicographicallyPrecedes(rhs.secret)
        }
    }

    /// Starts gnome-keyring-daemon (secrets component, login keyring created and unlocked with a
    /// password on standard input) on `bus`, with its HOME and XDG folders inside the bus's folder.
    static func startGnomeKeyring(on bus: PrivateBus) throws -> Process {
        let home = bus.directory.appendingPathComponent("home")
        let runtime = bus.directory.appendingPathComponent("run")
        for folder in [home, runtime] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        chmod(runtime.path, 0o700)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gnomeKeyring)
        process.arguments = ["--unlock", "--components=secrets", "--foreground"]
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        environment["HOME"] = home.path
        environment["XDG_DATA_HOME"] = home.path + "/data"
        environment["XDG_CONFIG_HOME"] = home.path + "/config"
        environment["XDG_CACHE_HOME"] = home.path + "/cache"
        environment["XDG_RUNTIME_DIR"] = runtime.path
        environment["DISPLAY"] = nil
        environment["WAYLAND_DISPLAY"] = nil
        process.environment = environment
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data("migration-test".utf8))
        try input.fileHandleForWriting.close()
        try bus.waitForOwner()
        return process
    }

    /// SIGKILL: the daemon inherits a signal mask with SIGTERM blocked from Foundation's `Process`.
    /// Runs `body` with gnome-keyring owning the name on a private bus, and stops it afterwards.
    static func withGnomeKeyring(_ body: (PrivateBus) throws -> Void) throws {
        try PrivateBus.with(startProvider: false) { bus in
            let keyring = try startGnomeKeyring(on: bus)
            defer { stop(keyring) }
            try body(bus)
        }
    }

    static func stop(_ process: Process) {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// `CreateItem` in the source with a plain session.
    static func create(_ bus: PrivateBus, in collection: String, _ item: Expected, session: String) throws {
        let properties = Variant.variantMap([
            ("org.freedesktop.Secret.Item.Label", Variant.string(item.label)),
            ("org.freedesktop.Secret.Item.Attributes", Variant.stringMap(item.attributes)),
        ])
        let reply = try bus.expectReply(
            collection, "org.freedesktop.Secret.Collection", "CreateItem",
            [
                properties, PrivateBus.secretValue(session, item.secret, contentType: item.contentType),
                Variant.boolean(false),
            ])
        g_variant_unref(reply)
    }

    /// A gnome-keyring collection made without a prompt, through its internal interface.
    static func createCollection(_ bus: PrivateBus, label: String, session: String) throws -> String {
        let reply = try bus.expectReply(
            service, "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface", "CreateWithMasterPassword",
            [
                Variant.variantMap([("org.freedesktop.Secret.Collection.Label", Variant.string(label))]),
                PrivateBus.secretValue(session, Array("pw-\(label)".utf8)),
            ])
        defer { g_variant_unref(reply) }
        return Variant.withChild(reply, 0, Variant.readString)
    }

    /// Every item the source serves in `collections` (path → label), read with a plain session: what
    /// the migration must reproduce. (gnome-keyring adds `xdg:schema` to items created without one and
    /// answers every content type as `text/plain`, so the source's view, not the created values, is
    /// the reference.)
    static func sourceItems(_ bus: PrivateBus, _ collections: [String: String], session: String) throws -> [Expected] {
        var result: [Expected] = []
        for (path, label) in collections {
            let items = try bus.property(path, "org.freedesktop.Secret.Collection", "Items")
            defer { g_variant_unref(items) }
            for item in Variant.readStrings(items) {
                let itemLabel = try bus.property(item, "org.freedesktop.Secret.Item", "Label")
                let attributes = try bus.property(item, "org.freedesktop.Secret.Item", "Attributes")
                let secret = try bus.expectReply(
                    item, "org.freedesktop.Secret.Item", "GetSecret", [Variant.objectPath(session)])
                let value = Variant.withChild(secret, 0) { tuple in
                    (
                        Variant.withChild(tuple, 2) { Variant.withBytes($0) { Array($0) } },
                        Variant.withChild(tuple, 3, Variant.readString)
                    )
                }
                result.append(
                    Expected(
                        collectionLabel: label, label: Variant.readString(itemLabel),
                        attributes: Variant.readStringMap(attributes), secret: value.0, contentType: value.1))
                for value in [itemLabel, attributes, secret] { g_variant_unref(value) }
            }
        }
        return result.sorted()
    }

    /// Every item of the store, with its collection's label.
    static func contents(of store: MemorySecretStore) throws -> [Expected] {
        var result: [Expected] = []
        for collection in store.collections() where collection.id != store.resolveAlias("session") {
            for item in try store.items(in: collection.id) {
                let secret = try store.secret(of: item.id, in: collection.id)
                result.append(
                    Expected(
                        collectionLabel: collection.label, label: item.label, attributes: item.attributes,
                        secret: secret.value.withUnsafeBytes { Array($0) }, contentType: secret.contentType))
            }
        }
        return result.sorted()
    }

    static func options(unlock: Bool = true) -> SecretServiceMigration.Options {
        var options = SecretServiceMigration.Options()
        options.unlock = unlock
        // Hang guards, not timing assertions: gnome-keyring dismisses a prompt it cannot show.
        options.promptTimeoutSeconds = 60
        options.callTimeoutMilliseconds = 30_000
        return options
    }

    @Test(
        "Every item of gnome-keyring arrives unchanged in the right collection; a locked collection is skipped; a rerun copies nothing",
        .enabled(if: hasGnomeKeyring, "gnome-keyring-daemon is not installed (scripts/setup installs it)"))
    func migratesGnomeKeyring() throws {
        try Self.withGnomeKeyring { bus in
            let session = try bus.openPlainSession()
            let loginItems = [
                Expected(
                    collectionLabel: "Login", label: "GitHub token", attributes: ["service": "gh", "user": "alice"],
                    secret: Array("ghp_first".utf8), contentType: "text/plain"),
                // A duplicate attribute set (allowed by the spec) with another secret.
                Expected(
                    collectionLabel: "Login", label: "GitHub token", attributes: ["service": "gh", "user": "alice"],
                    secret: Array("ghp_second".utf8), contentType: "text/plain"),
                Expected(
                    collectionLabel: "Login", label: "binary key",
                    attributes: ["xdg:schema": "org.example.Binary", "id": "7", "empty": ""],
                    secret: [0, 1, 2, 0xff, 0, 0x80], contentType: "application/octet-stream"),
                Expected(
                    collectionLabel: "Login", label: "é🔑 ünïcode", attributes: [:], secret: Array("ключ".utf8),
                    contentType: "text/plain; charset=utf8"),
            ]
            for item in loginItems { try Self.create(bus, in: Self.login, item, session: session) }
            let work = try Self.createCollection(bus, label: "Work", session: session)
            let workItem = Expected(
                collectionLabel: "Work", label: "VPN", attributes: ["host": "vpn.example.com"],
                secret: Array("correct horse".utf8), contentType: "text/plain")
            try Self.create(bus, in: work, workItem, session: session)
            let vault = try Self.createCollection(bus, label: "Vault", session: session)
            try Self.create(
                bus, in: vault,
                Expected(
                    collectionLabel: "Vault", label: "locked", attributes: ["k": "v"], secret: [1], contentType: ""),
                session: session)
            // An item in the source's in-memory session collection, which is not copied.
            try Self.create(
                bus, in: "/org/freedesktop/secrets/collection/session",
                Expected(collectionLabel: "", label: "transient", attributes: [:], secret: [9], contentType: ""),
                session: session)

            let source = try Self.sourceItems(bus, [Self.login: "Login", work: "Work"], session: session)
            #expect(source.map(\.label) == (loginItems + [workItem]).sorted().map(\.label))
            #expect(source.map(\.secret) == (loginItems + [workItem]).sorted().map(\.secret))
            g_variant_unref(
                try bus.expectReply(Self.service, Self.serviceInterface, "Lock", [Variant.objectPaths([vault])]))

            let store = MemorySecretStore()
            let report = try SecretServiceMigration.run(connection: bus.client!, store: store, options: Self.options())
            #expect(report.encryptedSession)
            #expect(!report.complete)
            #expect(report.sessionItemsNotCopied == 1)
            let byLabel = Dictionary(uniqueKeysWithValues: report.collections.map { ($0.sourceLabel, $0) })
            #expect(byLabel.keys.sorted() == ["Login", "Vault", "Work"])
            #expect(byLabel["Login"].map(MigrationTests.counts) == [4, 4, 0, 0, 0])
            #expect(byLabel["Work"].map(MigrationTests.counts) == [1, 1, 0, 0, 0])
            #expect(byLabel["Vault"].map(MigrationTests.counts) == [1, 0, 0, 1, 0])
            #expect(byLabel["Login"]?.target == store.resolveAlias("login"))
            #expect(try Self.contents(of: store) == source)
            #expect(store.collections().contains { $0.label == "Vault" } == false)
            // The rendered report holds counts and labels, never a secret.
            let text = MigrationCommand.render(report)
            for item in loginItems + [workItem] {
                #expect(!text.contains(String(decoding: item.secret, as: UTF8.self)))
            }

            // A second run finds everything already here.
            let again = try SecretServiceMigration.run(
                connection: bus.client!, store: store, options: Self.options(unlock: false))
            #expect(again.collections.map(\.stored) == [0, 0, 0])
            #expect(again.collections.reduce(0) { $0 + $1.present } == 5)
            #expect(try Self.contents(of: store) == source)
        }
    }

    @Test(
        "A dry run reads every secret but writes nothing",
        .enabled(if: hasGnomeKeyring, "gnome-keyring-daemon is not installed (scripts/setup installs it)"))
    func dryRun() throws {
        try Self.withGnomeKeyring { bus in
            let session = try bus.openPlainSession()
            try Self.create(
                bus, in: Self.login,
                Expected(
                    collectionLabel: "Login", label: "a", attributes: ["a": "1"], secret: [1, 2], contentType: "x"),
                session: session)
            let store = MemorySecretStore()
            let before = store.collections()
            var options = Self.options()
            options.dryRun = true
            let report = try SecretServiceMigration.run(connection: bus.client!, store: store, options: options)
            #expect(report.collections.map(\.stored) == [1])
            #expect(report.complete)
            #expect(store.collections() == before)
        }
    }

    @Test(
        "An empty gnome-keyring migrates nothing and succeeds",
        .enabled(if: hasGnomeKeyring, "gnome-keyring-daemon is not installed (scripts/setup installs it)"))
    func emptySource() throws {
        try Self.withGnomeKeyring { bus in
            let store = MemorySecretStore()
            let before = store.collections()
            let report = try SecretServiceMigration.run(connection: bus.client!, store: store, options: Self.options())
            #expect(report.complete)
            #expect(report.collections.map(\.read) == [0])
            #expect(report.collections.map(\.sourceLabel) == ["Login"])
            #expect(store.collections() == before)
        }
    }

    @Test(
        "The command prints counts per collection and no secret; it exits 0, and 4 when a collection stays locked",
        .enabled(if: hasGnomeKeyring, "gnome-keyring-daemon is not installed (scripts/setup installs it)"))
    func commandOutput() throws {
        try Self.withGnomeKeyring { bus in
            let session = try bus.openPlainSession()
            try Self.create(
                bus, in: Self.login,
                Expected(
                    collectionLabel: "Login", label: "mail", attributes: ["user": "bob"],
                    secret: Array("never-printed-7319".utf8), contentType: "text/plain"),
                session: session)
            // The command writes into the keychains of this home, never the user's.
            let home = try KeychainHome()
            defer { home.remove() }
            func migrate(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
                let stdout = Pipe(), stderr = Pipe()
                let process = Process()
                process.executableURL = URL(fileURLWithPath: PrivateBus.providerExecutable)
                process.arguments = ["migrate"] + arguments
                var environment = ProcessInfo.processInfo.environment
                environment.merge(home.environment) { _, new in new }
                environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
                process.environment = environment
                process.standardOutput = stdout
                process.standardError = stderr
                try process.run()
                let output = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                let errors = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                return (process.terminationStatus, output, errors)
            }
            let first = try migrate([])
            #expect(first.status == 0)
            #expect(first.output.contains("encrypted (DH) session"))
            let row = first.output.split(separator: "\n").first {
                $0.hasPrefix("/org/freedesktop/secrets/collection/login")
            }
            #expect(row.map { $0.split(separator: " ").suffix(5) } == ["1", "1", "0", "0", "0"])
            #expect(!first.output.contains("never-printed-7319") && !first.errors.contains("never-printed-7319"))
            // The item is in the login keychain now, unchanged, and survives the command's exit.
            let login = try Keystore(location: home.location("login"))
            let copied = try login.secretItems(matching: ["user": "bob"])
            #expect(copied.map(\.label) == ["mail"])
            if let number = copied.first?.number {
                let secret = try login.secretItemSecret(number)
                #expect(secret.value.withUnsafeBytes { Array($0) } == Array("never-printed-7319".utf8))
                #expect(secret.contentType == "text/plain")
            }
            let vault = try Self.createCollection(bus, label: "Vault", session: session)
            try Self.create(
                bus, in: vault,
                Expected(collectionLabel: "Vault", label: "v", attributes: [:], secret: [1], contentType: ""),
                session: session)
            g_variant_unref(
                try bus.expectReply(Self.service, Self.serviceInterface, "Lock", [Variant.objectPaths([vault])]))
            let second = try migrate(["--no-unlock", "--dry-run"])
            #expect(second.status == 4)
            #expect(second.output.contains("dry run"))
        }
    }

    /// Runs `keychain-secret-service migrate` on `bus` in a fresh home. - Returns: its status and stderr.
    /// A collection's counts in the report's column order: read, copied, present, locked, failed.
    static func counts(_ collection: SecretServiceMigration.CollectionReport) -> [Int] {
        [collection.read, collection.stored, collection.present, collection.skippedLocked, collection.failed]
    }

    static func migrateCommand(_ bus: PrivateBus) throws -> (status: Int32, stderr: String) {
        let stderr = Pipe()
        let home = try KeychainHome()
        defer { home.remove() }
        let process = try PrivateBus.launchProvider(
            address: bus.address, arguments: ["migrate"], stderr: stderr, keychainHome: home.root)
        process.waitUntilExit()
        return (
            process.terminationStatus,
            String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        )
    }

    @Test("With no provider on the bus the migration says so, activates nothing, and the command exits 3")
    func noProvider() throws {
        try PrivateBus.with(startProvider: false) { bus in
            #expect(throws: SecretServiceMigration.Failure.noProvider("org.freedesktop.secrets")) {
                try SecretServiceMigration.run(
                    connection: bus.client!, store: MemorySecretStore(), options: Self.options())
            }
            let (status, message) = try Self.migrateCommand(bus)
            #expect(status == 3)
            #expect(message.contains("no Secret Service provider owns org.freedesktop.secrets"))
        }
    }

    @Test("Migrating from keychain-secret-service itself is refused with exit status 3")
    func refusesOwnProvider() throws {
        try PrivateBus.with { bus in
            #expect(throws: SecretServiceMigration.Failure.self) {
                try SecretServiceMigration.run(
                    connection: bus.client!, store: MemorySecretStore(), options: Self.options())
            }
            let (status, message) = try Self.migrateCommand(bus)
            #expect(status == 3)
            #expect(message.contains("is keychain-secret-service itself"))
        }
    }

    @Test("migrate rejects unknown options with exit status 1 and prints its help with 0")
    func usage() throws {
        #expect(MigrationCommand.main(arguments: ["--bogus"], makeStore: { _ in MemorySecretStore() }) == 1)
        #expect(
            MigrationCommand.main(arguments: ["--prompt-timeout", "soon"], makeStore: { _ in MemorySecretStore() }) == 1
        )
        #expect(
            MigrationCommand.main(
                arguments: ["--from-bus-name", "not a name"], makeStore: { _ in MemorySecretStore() }) == 1
        )
        #expect(MigrationCommand.main(arguments: ["--help"], makeStore: { _ in MemorySecretStore() }) == 0)
    }
}
