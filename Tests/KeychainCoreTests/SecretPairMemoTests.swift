import KeychainTesting
import Testing

@testable import KeychainCore

/// A search's common attribute pairs are digested and counted once while nothing changes
/// (``SecretPairMemo``, tracker issue 29, item 4), and a search answers the same as without the memo:
/// after writes by this connection or another, and when a pair once common becomes rare or absent.
@Suite("Secret Service pair memo")
struct SecretPairMemoTests {
    /// How many pairs this connection served from its memo.
    func hits(_ keystore: Keystore) throws -> Int {
        try keystore.read { (s: borrowing StoreSession) throws(KeychainFailure) in s.secretPairs.hits }
    }

    /// Items 1 to `count`, each with `app` = `mail`, its own `id`, and `group` `a` (odd) or `b` (even).
    func populate(_ keystore: Keystore, _ count: Int) throws {
        for index in 1...count {
            _ = try keystore.createSecretItem(
                label: "item \(index)",
                attributes: ["app": "mail", "id": String(index), "group": index % 2 == 1 ? "a" : "b"],
                secret: plainSecret("s"), replace: false)
        }
    }

    /// Pairs the connection keeps now.
    func kept(_ keystore: Keystore) throws -> Int {
        try keystore.read { (s: borrowing StoreSession) throws(KeychainFailure) in s.secretPairs.count }
    }

    @Test("Pairs several items share are served from the memo on the next search; a rare pair never is kept")
    func commonPairKept() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        try populate(keystore, 4)
        // Both pairs have two matches: both are read, kept, then counted, and the rarer drives the search.
        #expect(try keystore.secretItems(matching: ["app": "mail", "group": "a"]).map(\.number) == [1, 3])
        #expect(try hits(keystore) == 0)
        #expect(try kept(keystore) == 2)
        #expect(try keystore.secretItems(matching: ["app": "mail", "group": "a"]).map(\.number) == [1, 3])
        #expect(try hits(keystore) == 2)
        #expect(try keystore.secretItems(matching: ["app": "mail", "group": "b"]).map(\.number) == [2, 4])
        #expect(try hits(keystore) == 3)
        // An `id` has one match: that item alone is read, whichever pair the search looks at first.
        #expect(try keystore.secretItems(matching: ["app": "mail", "id": "3"]).map(\.number) == [3])
        #expect(try keystore.secretItems(matching: ["group": "b", "id": "3"]).isEmpty)
        #expect(try keystore.secretItems(matching: ["app": "mail", "id": "9"]).isEmpty)
        #expect(try keystore.secretItems(matching: ["app": "news", "group": "a"]).isEmpty)
        #expect(try kept(keystore) == 3)
    }

    @Test("Another connection's write empties the memo, and the search follows it")
    func otherConnectionsWriteSeen() throws {
        let temp = try TemporaryKeychain()
        let reader = try temp.open()
        let writer = try temp.open()
        try populate(writer, 2)
        #expect(try reader.secretItems(matching: ["app": "mail", "id": "1"]).map(\.number) == [1])
        // The common pair is now absent: both items deleted, one new item without it.
        #expect(try writer.deleteSecretItem(1))
        #expect(try writer.deleteSecretItem(2))
        _ = try writer.createSecretItem(
            label: "other", attributes: ["app": "news", "id": "1"], secret: plainSecret("t"), replace: false)
        #expect(try reader.secretItems(matching: ["app": "mail", "id": "1"]).isEmpty)
        #expect(try reader.secretItems(matching: ["app": "news", "id": "1"]).map(\.number) == [3])
        #expect(try hits(reader) == 0)
    }

    @Test("This connection's own write empties the memo; results are those of every pair")
    func ownWriteSeen() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        try populate(keystore, 2)
        #expect(try keystore.secretItems(matching: ["app": "mail", "id": "1"]).map(\.number) == [1])
        try keystore.updateSecretItem(1, label: "renamed", attributes: ["app": "news", "id": "1"])
        #expect(try keystore.secretItems(matching: ["app": "mail", "id": "1"]).isEmpty)
        #expect(try keystore.secretItems(matching: ["app": "news", "id": "1"]).map(\.label) == ["renamed"])
        #expect(try hits(keystore) == 0)
    }

    @Test("At most capacity pairs are kept, and every search still answers right")
    func bounded() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        let pairs = SecretPairMemo.capacity + 4
        for index in 1...2 {
            var attributes = ["q": "w"]
            for pair in 0..<pairs { attributes["p\(pair)"] = "v" }
            _ = try keystore.createSecretItem(
                label: "item \(index)", attributes: attributes, secret: plainSecret("s"), replace: false)
        }
        for pair in 0..<pairs {
            #expect(try keystore.secretItems(matching: ["p\(pair)": "v", "q": "w"]).map(\.number) == [1, 2])
        }
        #expect(try kept(keystore) == SecretPairMemo.capacity)
    }
}
