import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// Secret Service rows are read from SQLite once while nothing changes (``SecretRowCache``, tracker
/// issue 29): a search then the reads of its item reuse the row, and any write, by this connection or
/// another, inside a transaction or rolled back, is read at once.
@Suite("Secret Service row cache")
struct SecretRowCacheTests {
    /// How many rows this connection served from its row cache, and how many it keeps.
    func state(_ keystore: Keystore) throws -> (hits: Int, count: Int) {
        try keystore.read { (s: borrowing StoreSession) throws(KeychainFailure) in
            (s.secretRows.hits, s.secretRows.count)
        }
    }

    @Test("A search, then its item's metadata and secret read in other transactions, read the row once")
    func searchThenReadsHit() throws {
        let temp = try TemporaryKeychain()
        let writer = try temp.open()
        _ = try writer.createSecretItem(label: "mail", attributes: ["k": "v"], secret: plainSecret("s"), replace: false)
        let reader = try temp.open()
        #expect(try reader.secretItems(matching: ["k": "v"]).map(\.number) == [1])
        #expect(try reader.secretItem(1)?.label == "mail")
        #expect(try reader.secretItemAndLockState(1).item?.label == "mail")
        #expect(text(of: try reader.secretItemSecret(1)) == "s")
        #expect(try state(reader).hits == 3)
    }

    @Test("Another connection's change is read at once, not the row kept")
    func otherConnectionsChangeSeen() throws {
        let temp = try TemporaryKeychain()
        let writer = try temp.open()
        _ = try writer.createSecretItem(label: "old", attributes: ["k": "v"], secret: plainSecret("a"), replace: false)
        let reader = try temp.open()
        #expect(try reader.secretItem(1)?.label == "old")
        #expect(text(of: try reader.secretItemSecret(1)) == "a")
        try writer.setSecretItemSecret(1, plainSecret("b"))
        #expect(text(of: try reader.secretItemSecret(1)) == "b")
        try writer.updateSecretItem(1, label: "new")
        #expect(try reader.secretItem(1)?.label == "new")
        #expect(try writer.deleteSecretItem(1))
        #expect(try reader.secretItem(1) == nil)
        #expect(try state(reader).hits == 1)
    }

    @Test("This connection's own write is read back within its transaction and after it")
    func ownWritesSeen() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        _ = try keystore.createSecretItem(label: "a", attributes: ["k": "v"], secret: plainSecret("1"), replace: false)
        #expect(text(of: try keystore.secretItemSecret(1)) == "1")
        let inside = try keystore.write { (s: borrowing StoreSession) throws(KeychainFailure) -> String in
            _ = try s.secretItemSecret(1)
            try s.setSecretItemSecret(1, plainSecret("2"), now: 5)
            return text(of: try s.secretItemSecret(1))
        }
        #expect(inside == "2")
        #expect(text(of: try keystore.secretItemSecret(1)) == "2")
        try keystore.updateSecretItem(1, label: "b")
        #expect(try keystore.secretItem(1)?.label == "b")
        #expect(try keystore.deleteSecretItem(1))
        #expect(try keystore.secretItem(1) == nil)
    }

    @Test("A rolled-back write leaves no row kept: the row as committed is read again")
    func rolledBackWriteForgotten() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        _ = try keystore.createSecretItem(label: "a", attributes: ["k": "v"], secret: plainSecret("1"), replace: false)
        #expect(try keystore.secretItem(1)?.label == "a")
        #expect(throws: KeychainFailure.self) {
            try keystore.write { (s: borrowing StoreSession) throws(KeychainFailure) in
                try s.updateSecretItem(1, label: "lost", attributes: nil, now: 5)
                #expect(try s.secretItem(1)?.label == "lost")
                throw KeychainFailure(.io, "the test fails the transaction")
            }
        }
        #expect(try state(keystore).count == 0)
        #expect(try keystore.secretItem(1)?.label == "a")
        #expect(try keystore.verifyIntegrity() == 1)
    }

    @Test("At most capacity rows are kept")
    func bounded() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        let count = SecretRowCache.capacity + 6
        _ = try keystore.createSecretItems(count: count, now: 1) { index in
            ("item \(index)", ["n": String(index)], plainSecret("s"), nil)
        }
        for number in 1...Int64(count) { #expect(try keystore.secretItem(number)?.label == "item \(number - 1)") }
        #expect(try state(keystore).count == SecretRowCache.capacity)
    }

    @Test(
        "The Secret Service reads' lock state, from the class key entry's presence, follows unlock and lock as lockState() does"
    )
    func lockStateFromEntryFollowsLock() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        _ = try keystore.createSecretItem(label: "a", attributes: ["k": "v"], secret: plainSecret("1"), replace: false)
        #expect(try keystore.secretItemAndLockState(1).lockState == .noPassword)
        try keystore.setPassword(SecureBytes(copying: Array("pw".utf8)), current: nil, parameters: .testing)
        for _ in 0..<2 {
            try keystore.lock()
            #expect(try keystore.lockState() == .locked)
            #expect(try keystore.secretItemAndLockState(1).lockState == .locked)
            #expect(try keystore.secretItemsAndLockState(matching: ["k": "v"]).lockState == .locked)
            try keystore.unlock(password: SecureBytes(copying: Array("pw".utf8)))
            #expect(try keystore.lockState() == .unlocked)
            #expect(try keystore.secretItemAndLockState(1).lockState == .unlocked)
            #expect(try keystore.secretItemsAndLockState(matching: ["k": "v"]).lockState == .unlocked)
        }
    }

    /// Reads this connection answered outside a transaction (``Keystore/unchangedRead(_:)``).
    func unchangedReads(_ keystore: Keystore) throws -> Int {
        try keystore.read { (s: borrowing StoreSession) throws(KeychainFailure) in s.keys.unchangedReads }
    }

    @Test(
        "Reads of a kept row while nothing changed run without a transaction, and stop at another connection's commit")
    func unchangedReadsWithoutTransaction() throws {
        let temp = try TemporaryKeychain()
        let writer = try temp.open()
        _ = try writer.createSecretItem(label: "old", attributes: ["k": "v"], secret: plainSecret("a"), replace: false)
        let reader = try temp.open()
        #expect(try reader.secretItems(matching: ["k": "v"]).map(\.number) == [1])
        #expect(try unchangedReads(reader) == 0)
        #expect(try reader.secretItem(1)?.label == "old")
        #expect(try reader.secretItemAndLockState(1).item?.label == "old")
        let found = try reader.secretItem(1) { _ in true }
        #expect(found.flatMap { $0.secret.map { text(of: $0) } } == "a")
        #expect(try unchangedReads(reader) == 3)
        try writer.updateSecretItem(1, label: "new")
        #expect(try reader.secretItem(1)?.label == "new")
        #expect(try reader.secretItemAndLockState(1).item?.label == "new")
        // The first read after the commit read the row in a transaction; the second had it kept.
        #expect(try unchangedReads(reader) == 4)
        #expect(try writer.deleteSecretItem(1))
        #expect(try reader.secretItem(1) == nil)
        #expect(try reader.secretItem(1) { _ in true } == nil)
    }

    @Test("A lock by another connection is seen by the next read of a kept row: no secret, the lock state locked")
    func unchangedReadSeesLock() throws {
        let temp = try TemporaryKeychain()
        let writer = try temp.open()
        try writer.setPassword(SecureBytes(copying: Array("pw".utf8)), current: nil, parameters: .testing)
        _ = try writer.createSecretItem(label: "a", attributes: ["k": "v"], secret: plainSecret("s"), replace: false)
        let reader = try temp.open()
        #expect(try reader.secretItem(1) { _ in true }.flatMap { $0.secret.map { text(of: $0) } } == "s")
        #expect(try reader.secretItemAndLockState(1).lockState == .unlocked)
        let before = try unchangedReads(reader)
        try writer.lock()
        #expect(throws: KeychainFailure.self) { try reader.secretItem(1) { _ in true } }
        #expect(try reader.secretItemAndLockState(1).lockState == .locked)
        #expect(try reader.secretItem(1) { _ in false }?.secret == nil)
        try writer.unlock(password: SecureBytes(copying: Array("pw".utf8)))
        #expect(try reader.secretItem(1) { _ in true }.flatMap { $0.secret.map { text(of: $0) } } == "s")
        // Locking and unlocking change the kernel's entries, not the file: the three reads that answered
        // did so without a transaction (the refused one counts no answer).
        #expect(try unchangedReads(reader) - before == 3)
    }
}
