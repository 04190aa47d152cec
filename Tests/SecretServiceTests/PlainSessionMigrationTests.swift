import CGIO
import Foundation
import KeychainCore
import KeychainDBus
import Testing

@testable import SecretService

/// The migration from a provider that offers only `plain` sessions: it asks for DH, gets
/// `org.freedesktop.DBus.Error.NotSupported`, opens a `plain` session and copies every item unchanged.
/// The source is this project's provider narrowed to `plain` (``SecretServiceProvider/sessionAlgorithms``),
/// run from a thread of the test process so that the migration does not refuse it as its own.
@Suite("Migration from a provider without DH sessions")
struct PlainSessionMigrationTests {
    typealias Expected = MigrationTests.Expected

    /// Items of the source: duplicates, binary secrets, content types, empty and Unicode values.
    static let loginItems = [
        Expected(
            collectionLabel: "Login", label: "GitHub token", attributes: ["service": "gh", "user": "alice"],
            secret: Array("ghp_plain_1".utf8), contentType: "text/plain"),
        Expected(
            collectionLabel: "Login", label: "GitHub token", attributes: ["service": "gh", "user": "alice"],
            secret: Array("ghp_plain_2".utf8), contentType: "text/plain"),
        Expected(
            collectionLabel: "Login", label: "binary key", attributes: ["id": "7", "empty": ""],
            secret: [0, 1, 2, 0xff, 0, 0x80], contentType: "application/octet-stream"),
        Expected(
            collectionLabel: "Login", label: "é🔑 ünïcode", attributes: [:], secret: Array("ключ".utf8),
            contentType: "text/plain; charset=utf8"),
    ]
    static let workItems = [
        Expected(
            collectionLabel: "Work", label: "VPN", attributes: ["host": "vpn.example.com"],
            secret: Array("correct horse".utf8), contentType: "")
    ]

    /// Our provider serving a ``MemorySecretStore`` filled with `items` from a thread (see
    /// ``ThreadSource``), with only `algorithms` for sessions.
    static func source(address: String, algorithms: Set<String>, items: [Expected]) -> ThreadSource {
        ThreadSource(address: address) { connection in
            let store = MemorySecretStore()
            var collections: [String: CollectionID] = [:]
            do {
                for item in items {
                    let collection: CollectionID
                    if let known = collections[item.collectionLabel] {
                        collection = known
                    } else {
                        collection = try store.createCollection(label: item.collectionLabel)
                        collections[item.collectionLabel] = collection
                        if item.collectionLabel == "Login" {
                            try store.setAlias("login", to: collection)
                            try store.setAlias("default", to: collection)
                        }
                    }
                    _ = try store.createItem(
                        in: collection, label: item.label, attributes: item.attributes,
                        secret: StoredSecret(value: SecureBytes(copying: item.secret), contentType: item.contentType),
                        replace: false)
                }
            } catch {
                return nil
            }
            let provider = SecretServiceProvider(connection: connection, store: store)
            provider.sessionAlgorithms = algorithms
            guard (try? provider.start()) != nil else { return nil }
            return { provider.stop() }
        }
    }

    @Test("A source that answers NotSupported to DH is read through a plain session; every item arrives unchanged")
    func plainOnlySource() throws {
        try PrivateBus.with(startProvider: false) { bus in
            let source = Self.source(
                address: bus.address, algorithms: [TransportSession.plainName],
                items: Self.loginItems + Self.workItems)
            defer { source.stop() }
            #expect(source.waitUntilServing())
            // The source refuses DH as the spec says, and serves plain.
            #expect(
                bus.errorName(
                    MigrationTests.service, MigrationTests.serviceInterface, "OpenSession",
                    [
                        Variant.string(TransportSession.dhName),
                        Variant.boxed(Variant.bytes([UInt8](repeating: 2, count: 128))),
                    ])
                    == "org.freedesktop.DBus.Error.NotSupported")
            let session = try bus.openPlainSession()
            let collections = try bus.property(
                MigrationTests.service, MigrationTests.serviceInterface, "Collections")
            let paths = Variant.readStrings(collections)
            g_variant_unref(collections)
            var labels: [String: String] = [:]
            for path in paths where !path.hasSuffix("/session") {
                let label = try bus.property(path, "org.freedesktop.Secret.Collection", "Label")
                labels[path] = Variant.readString(label)
                g_variant_unref(label)
            }
            let served = try MigrationTests.sourceItems(bus, labels, session: session)
            #expect(served == (Self.loginItems + Self.workItems).sorted())

            let store = MemorySecretStore()
            let report = try SecretServiceMigration.run(
                connection: bus.client!, store: store, options: MigrationTests.options())
            #expect(!report.encryptedSession)
            #expect(report.complete)
            #expect(MigrationCommand.render(report).contains("plain session"))
            let byLabel = Dictionary(uniqueKeysWithValues: report.collections.map { ($0.sourceLabel, $0) })
            #expect(byLabel["Login"].map(MigrationTests.counts) == [4, 4, 0, 0, 0])
            #expect(byLabel["Work"].map(MigrationTests.counts) == [1, 1, 0, 0, 0])
            #expect(byLabel["Login"]?.target == store.resolveAlias("login"))
            #expect(try MigrationTests.contents(of: store) == served)

            // A rerun, through plain again, finds everything here.
            let again = try SecretServiceMigration.run(
                connection: bus.client!, store: store, options: MigrationTests.options())
            #expect(again.collections.map(\.stored) == [0, 0])
            #expect(again.collections.reduce(0) { $0 + $1.present } == 5)
            #expect(try MigrationTests.contents(of: store) == served)
        }
    }

    @Test("A dry run into a home with no keychain writes nothing: no login keychain, no device key")
    func dryRunWritesNothing() throws {
        try PrivateBus.with(startProvider: false) { bus in
            let source = Self.source(
                address: bus.address, algorithms: [TransportSession.plainName], items: Self.loginItems)
            defer { source.stop() }
            #expect(source.waitUntilServing())
            let home = try KeychainHome()
            defer { home.remove() }
            let login = home.location("login")
            let process = try PrivateBus.launchProvider(
                address: bus.address, arguments: ["migrate", "--dry-run"], keychainHome: home.root)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            #expect(!FileManager.default.fileExists(atPath: login.databasePath))
            #expect(!FileManager.default.fileExists(atPath: login.deviceKeyPath))
            #expect(try FileManager.default.contentsOfDirectory(atPath: home.directory).isEmpty)
        }
    }

    @Test(
        "Into a locked login keychain whose unlock prompt is dismissed: the failure names the keychain and what to do; exit 4"
    )
    func lockedTarget() throws {
        try PrivateBus.with(startProvider: false) { bus in
            let source = Self.source(
                address: bus.address, algorithms: [TransportSession.plainName], items: Self.loginItems)
            defer { source.stop() }
            #expect(source.waitUntilServing())
            let home = try KeychainHome()
            defer { home.remove() }
            #expect(try home.security(["create-keychain", "-p", "pw", "login.keychain"]).status == 0)
            #expect(try home.security(["lock-keychain", "login.keychain"]).status == 0)
            let stderr = Pipe()
            let process = try PrivateBus.launchProvider(
                address: bus.address, arguments: ["migrate"], stderr: stderr, keychainHome: home.root,
                extraEnvironment: ["KEYCHAIN_PINENTRY": try home.scriptedPinentry(password: nil)])
            process.waitUntilExit()
            let message = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationStatus == 4)
            #expect(
                message.contains(
                    "the keychain login here is locked and was not unlocked (its prompt was dismissed); unlock it (security unlock-keychain) and run again"
                ))
            #expect(!message.contains("isLocked"))
        }
    }

    @Test("A source that offers neither algorithm stops the migration with a clear error and writes nothing")
    func noCommonAlgorithm() throws {
        try PrivateBus.with(startProvider: false) { bus in
            let source = Self.source(address: bus.address, algorithms: [], items: Self.workItems)
            defer { source.stop() }
            #expect(source.waitUntilServing())
            let store = MemorySecretStore()
            let before = store.collections()
            #expect {
                try SecretServiceMigration.run(connection: bus.client!, store: store, options: MigrationTests.options())
            } throws: { error in
                guard case .bus(let message) = error as? SecretServiceMigration.Failure else { return false }
                return message.contains("NotSupported")
            }
            #expect(store.collections() == before)
        }
    }
}
