import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// How Secret Service rows (`SecretItems/`) go through the engine's transactions: their integrity
/// accumulator is batched like the `items` one (``PendingAccumulator``), and whether their tables
/// exist is looked up once per connection, not on every call.
@Suite("Secret Service items in transactions")
struct SecretItemTransactionTests {
    /// Rows the connection changed in one write transaction that creates `count` items of one
    /// attribute pair each (SQLite's `total_changes()`, read inside the transaction).
    func changes(creating count: Int, in keystore: Keystore) throws -> Int64 {
        try keystore.write { (s: borrowing StoreSession) throws(KeychainFailure) -> Int64 in
            let before = try s.database.scalar("SELECT total_changes()")
            for index in 0..<count {
                _ = try s.createSecretItem(
                    label: "item \(index)", attributes: ["n": "\(index)"], secret: plainSecret("s"), replace: false,
                    now: 1)
            }
            return try s.database.scalar("SELECT total_changes()") - before
        }
    }

    @Test("Regression (review of issue 17): a transaction of many Secret Service writes updates ss_accumulator once")
    func accumulatorBatchedPerTransaction() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        _ = try changes(creating: 1, in: keystore)  // makes the tables and the meta entries
        let one = try changes(creating: 1, in: keystore)
        let four = try changes(creating: 4, in: keystore)
        // Each further item is its row, its one index entry and the serial, and its change journal entry with the
        // journal's clock and serial (issue 23): not an accumulator write too (neither ss_ nor sync_accumulator).
        #expect(four - one == 3 * 6, "one: \(one), four: \(four)")
        #expect(try keystore.verifyIntegrity() == 6)
    }

    @Test("A rolled-back Secret Service write leaves the accumulator as it was")
    func rolledBackWriteLeavesAccumulator() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        _ = try keystore.createSecretItem(
            label: "kept", attributes: ["k": "v"], secret: plainSecret("s"), replace: false)
        let stored = { () throws -> [UInt8]? in
            try keystore.read { (s: borrowing StoreSession) throws(KeychainFailure) in
                try Meta.blob(s.database, SecretItemSchema.accumulatorMeta)
            }
        }
        let before = try stored()
        #expect(throws: KeychainFailure.self) {
            try keystore.write { (s: borrowing StoreSession) throws(KeychainFailure) in
                _ = try s.createSecretItem(
                    label: "lost", attributes: [:], secret: plainSecret("t"), replace: false, now: 1)
                throw KeychainFailure(.io, "the test fails the transaction")
            }
        }
        _ = try keystore.createSecretItem(label: "next", attributes: [:], secret: plainSecret("u"), replace: false)
        #expect(try stored() != before)
        #expect(try keystore.secretItems(matching: [:]).map(\.label) == ["kept", "next"])
        #expect(try keystore.verifyIntegrity() == 2)
    }

    /// How many times this connection queried `sqlite_master` for the Secret Service tables.
    func lookups(_ keystore: Keystore) throws -> Int {
        try keystore.read { (s: borrowing StoreSession) throws(KeychainFailure) in s.secretItemTables.lookups }
    }

    @Test("Regression (review of issue 17): whether the Secret Service tables exist is looked up once per connection")
    func tablesLookedUpOnce() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        _ = try keystore.createSecretItem(label: "a", attributes: ["k": "v"], secret: plainSecret("s"), replace: false)
        let reader = try temp.open()
        for _ in 0..<5 {
            #expect(try reader.secretItems(matching: ["k": "v"]).count == 1)
            #expect(try reader.secretItemNumbers() == [1])
            #expect(try reader.secretItemChanges(after: 0).latestSerial == 1)
        }
        #expect(try lookups(reader) == 1)
    }

    @Test("Tables absent: remembered until another connection commits, then looked up again and found")
    func absentTablesRecheckedAfterOtherCommits() throws {
        let temp = try TemporaryKeychain()
        let reader = try temp.open()
        for _ in 0..<5 { #expect(try reader.secretItems(matching: [:]).isEmpty) }
        #expect(try lookups(reader) == 1)
        // Another connection (as another process would) creates the tables and an item.
        let writer = try temp.open()
        _ = try writer.createSecretItem(label: "late", attributes: ["k": "v"], secret: plainSecret("s"), replace: false)
        #expect(try reader.secretItems(matching: ["k": "v"]).map(\.label) == ["late"])
        #expect(try reader.secretItem(1)?.label == "late")
        #expect(try lookups(reader) == 2)
    }

    @Test("Tables created by a transaction that rolls back are not remembered as present")
    func rolledBackTableCreationForgotten() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        #expect(throws: KeychainFailure.self) {
            try keystore.write { (s: borrowing StoreSession) throws(KeychainFailure) in
                _ = try s.createSecretItem(
                    label: "lost", attributes: [:], secret: plainSecret("t"), replace: false, now: 1)
                throw KeychainFailure(.io, "the test fails the transaction")
            }
        }
        // The tables are gone with the transaction: reads answer "no items", not "no such table".
        #expect(try keystore.secretItems(matching: [:]).isEmpty)
        #expect(try keystore.secretItemNumbers().isEmpty)
        #expect(try keystore.secretItem(1) == nil)
        _ = try keystore.createSecretItem(label: "kept", attributes: [:], secret: plainSecret("u"), replace: false)
        #expect(try keystore.secretItems(matching: [:]).map(\.label) == ["kept"])
        #expect(try keystore.verifyIntegrity() == 1)
    }

    @Test("createSecretItems stores, in one transaction, the items createSecretItem makes from the same values")
    func bulkCreateMatchesOneByOne() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        let access = SecretItemAccess(owner: "exe:/usr/bin/client", allowed: ["exe:/usr/bin/other"])
        let single = try keystore.createSecretItem(
            label: "item 0", attributes: ["bench": "1", "id": "0"], secret: plainSecret("secret-0"), replace: false,
            now: 7, access: access)
        let before = try keystore.secretItemChanges(after: 0).latestSerial
        let numbers = try keystore.createSecretItems(count: 3, now: 7) { index in
            (
                "item \(index + 1)", ["bench": "1", "id": String(index + 1)], plainSecret("secret-\(index + 1)"),
                access
            )
        }
        #expect(numbers == [2, 3, 4])
        #expect(single.number == 1)
        let items = try keystore.secretItems(matching: ["bench": "1"]).sorted { $0.number < $1.number }
        #expect(items.count == 4)
        for (index, item) in items.enumerated() {
            #expect(
                item
                    == SecretItem(
                        number: Int64(index + 1), label: "item \(index)",
                        attributes: ["bench": "1", "id": String(index)],
                        created: 7, modified: 7, access: access))
            let secret = try keystore.secretItemSecret(item.number)
            #expect(secret.value.withUnsafeBytes { Array($0) } == Array("secret-\(index)".utf8))
            #expect(secret.contentType == "text/plain")
        }
        #expect(try keystore.secretItems(matching: ["id": "2"]).map(\.number) == [3])
        #expect(try keystore.secretItemChanges(after: before).written.map(\.number) == [2, 3, 4])
        #expect(try keystore.verifyIntegrity() == 4)
    }
}
