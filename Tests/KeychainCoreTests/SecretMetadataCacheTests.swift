import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// Secret Service metadata is opened once per sealed value on a connection (``SecretMetadataCache``,
/// tracker issue 29): reads of an unchanged item reuse it, any write is seen at once, and it is bounded.
@Suite("Secret Service metadata cache")
struct SecretMetadataCacheTests {
    /// How many rows this connection has opened the metadata of.
    func opens(_ keystore: Keystore) throws -> Int {
        try keystore.read { (s: borrowing StoreSession) throws(KeychainFailure) in s.secretMetadata.opens }
    }

    @Test("A search, then reads of the same unchanged item, open its metadata once")
    func unchangedItemOpenedOnce() throws {
        let temp = try TemporaryKeychain()
        let writer = try temp.open()
        _ = try writer.createSecretItem(label: "mail", attributes: ["k": "v"], secret: plainSecret("s"), replace: false)
        let reader = try temp.open()
        for _ in 0..<3 {
            #expect(try reader.secretItems(matching: ["k": "v"]).map(\.label) == ["mail"])
            #expect(try reader.secretItem(1)?.label == "mail")
        }
        #expect(try opens(reader) == 1)
    }

    @Test("Another connection's new label and attributes are read at once: nothing stale is served")
    func otherConnectionsChangeSeen() throws {
        let temp = try TemporaryKeychain()
        let writer = try temp.open()
        _ = try writer.createSecretItem(label: "old", attributes: ["k": "v"], secret: plainSecret("s"), replace: false)
        let reader = try temp.open()
        #expect(try reader.secretItem(1)?.label == "old")
        #expect(try reader.secretItems(matching: ["k": "v"]).count == 1)

        try writer.updateSecretItem(1, label: "new", attributes: ["k": "w"])
        let item = try #require(try reader.secretItem(1))
        #expect(item.label == "new")
        #expect(item.attributes == ["k": "w"])
        #expect(try reader.secretItems(matching: ["k": "v"]).isEmpty)
        #expect(try reader.secretItems(matching: ["k": "w"]).map(\.label) == ["new"])
        // A label changed back to its old text is sealed again too: still not the first entry.
        try writer.updateSecretItem(1, label: "old")
        #expect(try reader.secretItem(1)?.label == "old")
        #expect(try opens(reader) == 3)
    }

    @Test("This connection's own writes are read back as written")
    func ownWritesSeen() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        _ = try keystore.createSecretItem(label: "a", attributes: ["k": "v"], secret: plainSecret("s"), replace: false)
        #expect(try keystore.secretItem(1)?.label == "a")
        try keystore.updateSecretItem(1, label: "b", attributes: ["k": "v", "n": "1"])
        #expect(try keystore.secretItem(1)?.label == "b")
        #expect(try keystore.secretItem(1)?.attributes == ["k": "v", "n": "1"])
        _ = try keystore.createSecretItem(
            label: "c", attributes: ["k": "v", "n": "1"], secret: plainSecret("t"), replace: true)
        #expect(try keystore.secretItems(matching: ["n": "1"]).map(\.label) == ["c"])
    }

    @Test("The cache keeps at most its capacity of items, and at most its byte capacity")
    func bounded() throws {
        let cache = SecretMetadataCache(capacity: 3, byteCapacity: 1000)
        func item(_ number: Int64) -> SecretItem {
            SecretItem(number: number, label: "item \(number)", attributes: [:], created: 1, modified: 1)
        }
        for number in Int64(1)...10 {
            let sealed = [UInt8](repeating: UInt8(number), count: 100)
            let got = try cache.item(number, sealed: sealed, attributeSet: []) { () throws(KeychainFailure) in
                item(number)
            }
            #expect(got.label == "item \(number)")
            #expect(cache.count <= 3)
        }
        #expect(cache.count == 3)
        #expect(cache.opens == 10)
        // The last one is kept and served without opening again.
        let again = try cache.item(10, sealed: [UInt8](repeating: 10, count: 100), attributeSet: []) {
            () throws(KeychainFailure) in
            SecretItem(number: 10, label: "wrong", attributes: [:], created: 1, modified: 1)
        }
        #expect(again.label == "item 10")
        #expect(cache.opens == 10)

        let small = SecretMetadataCache(capacity: 100, byteCapacity: 1000)
        for number in Int64(1)...10 {
            _ = try small.item(number, sealed: [UInt8](repeating: 0, count: 400), attributeSet: []) {
                () throws(KeychainFailure) in item(number)
            }
            #expect(small.count <= 2)
        }
        // One value larger than the byte capacity is returned but not kept.
        _ = try small.item(11, sealed: [UInt8](repeating: 0, count: 2000), attributeSet: []) {
            () throws(KeychainFailure) in item(11)
        }
        _ = try small.item(11, sealed: [UInt8](repeating: 0, count: 2000), attributeSet: []) {
            () throws(KeychainFailure) in item(11)
        }
        #expect(small.opens == 12)
    }

    @Test("A row that does not authenticate is reported and not kept")
    func failedOpenNotKept() throws {
        let cache = SecretMetadataCache()
        #expect(throws: KeychainFailure.self) {
            _ = try cache.item(1, sealed: [1, 2, 3], attributeSet: []) { () throws(KeychainFailure) -> SecretItem in
                throw KeychainFailure(.decode, "test")
            }
        }
        #expect(cache.count == 0)
    }
}
