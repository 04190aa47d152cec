import CGIO
import Foundation
import KeychainCore
import Testing

@testable import SecretService

/// The migration from a source that behaves as KeePassXC 2.7 does (``KeePassXCLikeSource``): entries
/// locked per client until the user allows access, `GetSecrets` failing as a whole, a locked collection
/// that lists nothing and fails `GetAll`. The same behaviours against the real KeePassXC are in
/// `scripts/migration-trial` (not in CI).
@Suite("Migration from a KeePassXC-like provider")
struct KeePassXCLikeMigrationTests {
    typealias Expected = MigrationTests.Expected

    /// Entries as KeePassXC serves them: its own attributes beside a client's.
    static let expected = [
        Expected(
            collectionLabel: "Login", label: "GitHub",
            attributes: [
                "Title": "GitHub", "UserName": "alice", "URL": "https://github.com", "Notes": "", "Path": "/GitHub",
                "Uuid": "8f0c",
            ], secret: Array("ghp_kp".utf8), contentType: "text/plain"),
        Expected(
            collectionLabel: "Login", label: "gh token",
            attributes: ["service": "gh", "user": "dave", "Title": "gh token", "Path": "/gh token", "Uuid": "9a1d"],
            secret: Array("tool-secret".utf8), contentType: "text/plain"),
        Expected(
            collectionLabel: "Login", label: "binary blob",
            attributes: ["app": "org.example.Blob", "FDO_SECRETS_CONTENT_TYPE": "application/octet-stream"],
            secret: [0, 0xff, 0, 0x80], contentType: "application/octet-stream"),
    ]

    static func source(
        _ bus: PrivateBus, collectionLocked: Bool = false, allowed: Bool = false, answer: Bool,
        getSecretsFails: Bool = false
    ) -> ThreadSource {
        let entries = expected.map {
            KeePassXCLikeSource.Entry(
                label: $0.label, attributes: $0.attributes, secret: $0.secret, contentType: $0.contentType,
                allowed: allowed)
        }
        return ThreadSource(address: bus.address) { connection in
            let source = KeePassXCLikeSource(
                connection: connection, entries: entries, collectionLocked: collectionLocked, answer: answer,
                getSecretsFails: getSecretsFails)
            guard source.start() else { return nil }
            return { withExtendedLifetime(source) {} }
        }
    }

    static func counts(_ report: SecretServiceMigration.Report) -> [Int] {
        report.collections.flatMap(MigrationTests.counts)
    }

    @Test("Entries locked until the user allows access are unlocked with one Unlock and copied unchanged")
    func entriesAllowedThroughPrompt() throws {
        try PrivateBus.with(startProvider: false) { bus in
            let source = Self.source(bus, answer: true)
            defer { source.stop() }
            #expect(source.waitUntilServing())
            let store = MemorySecretStore()
            let report = try SecretServiceMigration.run(
                connection: bus.client!, store: store, options: MigrationTests.options())
            #expect(Self.counts(report) == [3, 3, 0, 0, 0])
            #expect(report.complete)
            #expect(report.collections.first?.target == store.resolveAlias("login"))
            #expect(try MigrationTests.contents(of: store) == Self.expected.sorted())
        }
    }

    @Test("Access the user does not allow: the entries count as locked, nothing is made here, the run is incomplete")
    func entriesNotAllowed() throws {
        try PrivateBus.with(startProvider: false) { bus in
            let source = Self.source(bus, answer: false)
            defer { source.stop() }
            #expect(source.waitUntilServing())
            let store = MemorySecretStore()
            let before = store.collections()
            let report = try SecretServiceMigration.run(
                connection: bus.client!, store: store, options: MigrationTests.options())
            #expect(Self.counts(report) == [3, 0, 0, 3, 0])
            #expect(!report.complete)
            #expect(report.collections.first?.target == nil)
            #expect(store.collections() == before)
        }
    }

    @Test("A provider that fails GetSecrets as a whole is read item by item")
    func getSecretsFails() throws {
        try PrivateBus.with(startProvider: false) { bus in
            let source = Self.source(bus, allowed: true, answer: false, getSecretsFails: true)
            defer { source.stop() }
            #expect(source.waitUntilServing())
            let store = MemorySecretStore()
            let report = try SecretServiceMigration.run(
                connection: bus.client!, store: store, options: MigrationTests.options())
            #expect(Self.counts(report) == [3, 3, 0, 0, 0])
            #expect(report.complete)
            #expect(try MigrationTests.contents(of: store) == Self.expected.sorted())
        }
    }

    @Test(
        "A locked collection that lists nothing and fails GetAll: with --no-unlock the run is incomplete; unlocked through its prompt everything is copied"
    )
    func lockedCollection() throws {
        try PrivateBus.with(startProvider: false) { bus in
            let source = Self.source(bus, collectionLocked: true, allowed: true, answer: true)
            defer { source.stop() }
            #expect(source.waitUntilServing())
            let store = MemorySecretStore()
            let before = store.collections()
            let skipped = try SecretServiceMigration.run(
                connection: bus.client!, store: store, options: MigrationTests.options(unlock: false))
            #expect(Self.counts(skipped) == [0, 0, 0, 0, 0])
            #expect(skipped.collections.first?.stayedLocked == true)
            #expect(skipped.collections.first?.sourceLabel == "Passwords")
            #expect(!skipped.complete)
            #expect(MigrationCommand.render(skipped).contains("/collection/Passwords stayed locked"))
            #expect(store.collections() == before)

            let copied = try SecretServiceMigration.run(
                connection: bus.client!, store: store, options: MigrationTests.options())
            #expect(Self.counts(copied) == [3, 3, 0, 0, 0])
            #expect(copied.complete)
            #expect(try MigrationTests.contents(of: store) == Self.expected.sorted())
        }
    }
}
