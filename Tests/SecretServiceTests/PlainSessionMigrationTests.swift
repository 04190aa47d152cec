import CGIO
import Foundation
import KeychainCore
import Synchronization
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

    /// A provider serving a ``MemorySecretStore`` (filled with `items`) on `address`, from its own thread
    /// and GLib main context, owning `org.freedesktop.secrets`, with only `algorithms` for sessions.
    final class ThreadProvider: Sendable {
        private let ready = Synchronization.Atomic<Int>(0)  // 1 serving, -1 failed to start
        private let stopping = Synchronization.Atomic<Bool>(false)
        private let finished = Synchronization.Atomic<Bool>(false)

        init(address: String, algorithms: Set<String>, items: [Expected]) {
            let thread = Thread { [self] in
                serve(address: address, algorithms: algorithms, items: items)
                finished.store(true, ordering: .releasing)
            }
            thread.start()
        }

        /// Waits until it serves (a hang guard, not a timing assertion). - Returns: whether it does.
        func waitUntilServing() -> Bool {
            for _ in 0..<1000 where ready.load(ordering: .acquiring) == 0 { usleep(10_000) }
            return ready.load(ordering: .acquiring) == 1
        }

        /// Stops serving and waits for the thread to finish.
        func stop() {
            stopping.store(true, ordering: .releasing)
            while !finished.load(ordering: .acquiring) { usleep(1_000) }
        }

        private func serve(address: String, algorithms: Set<String>, items: [Expected]) {
            let context = g_main_context_new()
            g_main_context_push_thread_default(context)
            defer {
                g_main_context_pop_thread_default(context)
                g_main_context_unref(context)
            }
            guard
                let connection = g_dbus_connection_new_for_address_sync(
                    address,
                    GDBusConnectionFlags(
                        rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                            | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue), nil, nil, nil)
            else {
                ready.store(-1, ordering: .releasing)
                return
            }
            defer {
                g_dbus_connection_close_sync(connection, nil, nil)
                g_object_unref(UnsafeMutableRawPointer(connection))
            }
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
                ready.store(-1, ordering: .releasing)
                return
            }
            let provider = SecretServiceProvider(connection: connection, store: store)
            provider.sessionAlgorithms = algorithms
            guard (try? provider.start()) != nil else {
                ready.store(-1, ordering: .releasing)
                return
            }
            defer { provider.stop() }
            let request = g_dbus_connection_call_sync(
                connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
                Variant.tuple([Variant.string("org.freedesktop.secrets"), Variant.uint32(0)]), nil,
                G_DBUS_CALL_FLAGS_NONE, 10_000, nil, nil)
            guard let request else {
                ready.store(-1, ordering: .releasing)
                return
            }
            g_variant_unref(request)
            ready.store(1, ordering: .releasing)
            // A wake-up source, so that the loop sees `stopping` when no call comes.
            let timer = g_timeout_source_new(20)!
            g_source_set_callback(timer, { _ in 1 }, nil, nil)
            g_source_attach(timer, context)
            defer {
                g_source_destroy(timer)
                g_source_unref(timer)
            }
            while !stopping.load(ordering: .acquiring) { g_main_context_iteration(context, 1) }
        }
    }

    @Test("A source that answers NotSupported to DH is read through a plain session; every item arrives unchanged")
    func plainOnlySource() throws {
        try PrivateBus.with(startProvider: false) { bus in
            let source = ThreadProvider(
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
            #expect(
                byLabel["Login"].map { [$0.read, $0.stored, $0.present, $0.skippedLocked, $0.failed] } == [
                    4, 4, 0, 0, 0,
                ])
            #expect(
                byLabel["Work"].map { [$0.read, $0.stored, $0.present, $0.skippedLocked, $0.failed] } == [
                    1, 1, 0, 0, 0,
                ])
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

    @Test("A source that offers neither algorithm stops the migration with a clear error and writes nothing")
    func noCommonAlgorithm() throws {
        try PrivateBus.with(startProvider: false) { bus in
            let source = ThreadProvider(address: bus.address, algorithms: [], items: Self.workItems)
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
