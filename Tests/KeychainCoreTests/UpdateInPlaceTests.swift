import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// Updates that leave an item's identity alone rewrite only what changed (tracker issue 15): a new
/// secret or a new label keeps the item key and every index column; a change of account is a full
/// rewrite under a fresh item key.
@Suite("Update in place")
struct UpdateInPlaceTests {
    /// Every column of the one row, by name.
    func columns(_ keystore: Keystore) throws -> [String: [UInt8]] {
        try keystore.read { (s: borrowing StoreSession) throws(KeychainFailure) -> [String: [UInt8]] in
            let names = ["persistref", "agrp", "pk", "acct", "name", "wrapped_key", "attributes", "secret", "tag"]
            do {
                let statement = try s.database.prepare(
                    "SELECT \(names.joined(separator: ", ")), pdmn, sync FROM items")
                try statement.bind([])
                defer { statement.finish() }
                guard try statement.step() else { return [:] }
                var row: [String: [UInt8]] = [:]
                for (index, name) in names.enumerated() { row[name] = statement.blob(Int32(index)) }
                row["pdmn"] = [UInt8(statement.int64(Int32(names.count)))]
                row["sync"] = [UInt8(statement.int64(Int32(names.count + 1)))]
                return row
            }
        }
    }

    func stored(_ keystore: Keystore, account: String) throws -> StoredItem? {
        try keystore.search(query("svc", account), projection: [.attributes, .secret]).first
    }

    func prepared() throws -> (TemporaryKeychain, Keystore, [String: [UInt8]]) {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        _ = try keystore.add(
            .genericPassword, attributes: genericItem("svc", "me", .whenUnlocked), secret: secret("one"))
        return (temp, keystore, try columns(keystore))
    }

    static let identity = ["persistref", "agrp", "pk", "acct", "name", "wrapped_key", "pdmn", "sync"]

    @Test("a new secret alone keeps the item key and every index column; the secret, attributes and tag change")
    func secretOnly() throws {
        let (_, keystore, before) = try prepared()
        #expect(try keystore.update(query("svc", "me"), changes: [:], secret: secret("two")) == 1)
        let after = try columns(keystore)
        for name in Self.identity { #expect(after[name] == before[name], "\(name)") }
        for name in ["attributes", "secret", "tag"] { #expect(after[name] != before[name], "\(name)") }
        let item = try #require(try stored(keystore, account: "me"))
        #expect(item.secret?.constantTimeEquals(Array("two".utf8)) == true)
        #expect(try keystore.verifyIntegrity() == 1)
    }

    @Test("a new label alone keeps the secret's ciphertext too, and the secret reads as before")
    func labelOnly() throws {
        let (_, keystore, before) = try prepared()
        #expect(try keystore.update(query("svc", "me"), changes: ["labl": .string("new label")], secret: nil) == 1)
        let after = try columns(keystore)
        for name in Self.identity + ["secret"] { #expect(after[name] == before[name], "\(name)") }
        #expect(after["attributes"] != before["attributes"])
        let item = try #require(try stored(keystore, account: "me"))
        #expect(item.attributes["labl"] == .string("new label"))
        #expect(item.secret?.constantTimeEquals(Array("one".utf8)) == true)
        #expect(try keystore.verifyIntegrity() == 1)
    }

    @Test("a new account rewrites the row under a fresh item key and new digests, keeping the persistent ref")
    func accountChange() throws {
        let (_, keystore, before) = try prepared()
        #expect(try keystore.update(query("svc", "me"), changes: ["acct": .string("you")], secret: nil) == 1)
        let after = try columns(keystore)
        #expect(after["persistref"] == before["persistref"])
        for name in ["pk", "acct", "wrapped_key", "secret"] { #expect(after[name] != before[name], "\(name)") }
        #expect(try stored(keystore, account: "me") == nil)
        #expect(try stored(keystore, account: "you")?.secret?.constantTimeEquals(Array("one".utf8)) == true)
        #expect(try keystore.verifyIntegrity() == 1)
    }

    @Test("an upsert of an existing item with a new secret keeps its item key and index columns")
    func upsertInPlace() throws {
        let (_, keystore, before) = try prepared()
        var attributes = genericItem("svc", "me", .whenUnlocked)
        attributes["agrp"] = nil
        #expect(
            try keystore.upsert(.genericPassword, attributes: attributes, secret: secret("three"), groups: ["test"])
                == .updated(1))
        let after = try columns(keystore)
        for name in Self.identity { #expect(after[name] == before[name], "\(name)") }
        #expect(try stored(keystore, account: "me")?.secret?.constantTimeEquals(Array("three".utf8)) == true)
        #expect(try keystore.verifyIntegrity() == 1)
    }
}
