import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// A search runs outside a transaction while no other connection has committed since this connection's
/// last transaction (``Keystore/snapshotRead(_:)``, tracker issue 29): another connection's update,
/// delete, new item, lock or new password is still seen by the very next search, which then runs in a
/// transaction.
@Suite("Searches outside a transaction")
struct SnapshotReadTests {
    /// Searches this connection answered outside a transaction. Read in a transaction of its own.
    func autocommitReads(_ keystore: Keystore) throws -> Int {
        try keystore.read { (s: borrowing StoreSession) throws(KeychainFailure) in s.keys.autocommitReads }
    }

    /// The secret of the one item `query` finds, as text; `nil` for none.
    func secretText(_ keystore: Keystore, _ query: ItemQuery) throws -> String? {
        let found = try keystore.search(query, projection: [.secret])
        #expect(found.count <= 1)
        return found.first?.secret.map { $0.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
    }

    @Test("Repeated searches run outside a transaction; another connection's update, delete and add are seen at once")
    func otherConnectionsWritesSeen() throws {
        let temp = try TemporaryKeychain()
        let writer = try temp.open()
        _ = try writer.add(.genericPassword, attributes: genericItem("svc", "me", .whenUnlocked), secret: secret("one"))
        let reader = try temp.open()
        #expect(try secretText(reader, query("svc", "me")) == "one")
        let start = try autocommitReads(reader)
        #expect(try secretText(reader, query("svc", "me")) == "one")
        #expect(try secretText(reader, query("svc", "me")) == "one")
        #expect(try autocommitReads(reader) == start + 2)

        // Each change by the other connection is read by the next search, which runs in a transaction.
        #expect(try writer.update(query("svc", "me"), changes: [:], secret: secret("two")) == 1)
        #expect(try secretText(reader, query("svc", "me")) == "two")
        #expect(try autocommitReads(reader) == start + 2)
        #expect(try secretText(reader, query("svc", "me")) == "two")
        #expect(try autocommitReads(reader) == start + 3)

        #expect(try writer.update(query("svc", "me"), changes: ["acct": .string("you")], secret: nil) == 1)
        #expect(try secretText(reader, query("svc", "me")) == nil)
        #expect(try secretText(reader, query("svc", "you")) == "two")

        _ = try writer.add(.genericPassword, attributes: genericItem("svc", "new", .whenUnlocked), secret: secret("3"))
        #expect(try secretText(reader, query("svc", "new")) == "3")

        #expect(try writer.delete(query("svc", "you")) == 1)
        #expect(try secretText(reader, query("svc", "you")) == nil)
        #expect(try reader.search(query("svc"), projection: [.attributes]).count == 1)
        // Outside a transaction: the second read of each pair ("you", then the whole service).
        #expect(try autocommitReads(reader) == start + 5)
    }

    @Test("This connection's own writes are read back, and the searches after them run outside a transaction")
    func ownWritesSeen() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        _ = try keystore.add(
            .genericPassword, attributes: genericItem("svc", "me", .whenUnlocked), secret: secret("one"))
        let start = try autocommitReads(keystore)
        #expect(try secretText(keystore, query("svc", "me")) == "one")
        #expect(try keystore.update(query("svc", "me"), changes: [:], secret: secret("two")) == 1)
        #expect(try secretText(keystore, query("svc", "me")) == "two")
        #expect(try keystore.delete(query("svc", "me")) == 1)
        #expect(try secretText(keystore, query("svc", "me")) == nil)
        #expect(try autocommitReads(keystore) == start + 3)
    }

    @Test("After a rolled-back transaction the next search runs in a transaction")
    func rollbackUnsettles() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        _ = try keystore.add(
            .genericPassword, attributes: genericItem("svc", "me", .whenUnlocked), secret: secret("one"))
        let before = try autocommitReads(keystore)
        #expect(throws: KeychainFailure.self) {
            try keystore.write { (s: borrowing StoreSession) throws(KeychainFailure) in
                _ = try s.update(query("svc", "me"), changes: [:], secret: secret("lost"))
                throw KeychainFailure(.io, "the test fails the transaction")
            }
        }
        #expect(try secretText(keystore, query("svc", "me")) == "one")
        #expect(try autocommitReads(keystore) == before)
        #expect(try secretText(keystore, query("svc", "me")) == "one")
        #expect(try autocommitReads(keystore) == before + 1)
    }

    @Test("A lock by another connection is seen by the next search; an unlock too")
    func otherConnectionsLockSeen() throws {
        let temp = try TemporaryKeychain()
        let writer = try temp.open()
        try writer.setPassword(secret("pw"), current: nil, parameters: .testing)
        _ = try writer.add(.genericPassword, attributes: genericItem("svc", "me", .whenUnlocked), secret: secret("one"))
        let reader = try temp.open()
        #expect(try secretText(reader, query("svc", "me")) == "one")
        #expect(try secretText(reader, query("svc", "me")) == "one")
        let before = try autocommitReads(reader)
        try writer.lock()
        let failure = #expect(throws: KeychainFailure.self) {
            try reader.search(query("svc", "me"), projection: [.secret])
        }
        #expect(failure?.status == .interactionNotAllowed)
        // Attributes of a locked item's row need no class key.
        _ = try writer.unlock(password: secret("pw"))
        #expect(try secretText(reader, query("svc", "me")) == "one")
        #expect(try secretText(reader, query("svc", "me")) == "one")
        #expect(try autocommitReads(reader) > before)
    }

    @Test("A password set or changed by another connection is seen by the next search")
    func otherConnectionsPasswordSeen() throws {
        let temp = try TemporaryKeychain()
        let writer = try temp.open()
        _ = try writer.add(.genericPassword, attributes: genericItem("svc", "me", .whenUnlocked), secret: secret("one"))
        let reader = try temp.open()
        #expect(try secretText(reader, query("svc", "me")) == "one")
        // The search after the new password runs in a transaction (the keys are reloaded).
        let before = try autocommitReads(reader)
        try writer.setPassword(secret("pw"), current: nil, parameters: .testing)
        #expect(try secretText(reader, query("svc", "me")) == "one")
        #expect(try autocommitReads(reader) == before)
        #expect(try reader.lockState() == .unlocked)
        try writer.setPassword(secret("pw2"), current: secret("pw"), parameters: .testing)
        try writer.lock()
        let failure = #expect(throws: KeychainFailure.self) {
            try reader.search(query("svc", "me"), projection: [.secret])
        }
        #expect(failure?.status == .interactionNotAllowed)
        #expect(throws: KeychainFailure.self) { try reader.unlock(password: secret("pw")) }
        _ = try reader.unlock(password: secret("pw2"))
        #expect(try secretText(reader, query("svc", "me")) == "one")
        #expect(try secretText(reader, query("svc", "me")) == "one")
    }
}
