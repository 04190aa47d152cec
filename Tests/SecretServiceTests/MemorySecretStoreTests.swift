import CGIO
import KeychainCore
import Testing

@testable import SecretService

/// The ``SecretStore`` rules, on the in-memory store (Secret Service API, "Collections and Items",
/// "Locking and Unlocking"; replace = the exact attribute set, as oo7#541 settled).
@Suite("in-memory secret store")
struct MemorySecretStoreTests {
    static let session = MemorySecretStore.sessionCollection

    static func secret(_ text: String) -> StoredSecret {
        StoredSecret(value: SecureBytes(copying: Array(text.utf8)), contentType: "text/plain")
    }

    static func text(_ secret: StoredSecret) -> String {
        secret.value.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    @Test(
        "Collection and item ids accept D-Bus object path elements only: 1 to 255 bytes of [A-Za-z0-9_] (D-Bus Specification)"
    )
    func pathElementIDs() {
        for valid in ["a", "login", "Z_9", String(repeating: "x", count: 255)] {
            #expect(CollectionID(valid)?.rawValue == valid)
            #expect(ItemID(valid)?.description == valid)
        }
        for invalid in ["", "a-b", "a/b", "a.b", "é", " ", String(repeating: "x", count: 256)] {
            #expect(CollectionID(invalid) == nil, "\(invalid)")
            #expect(ItemID(invalid) == nil, "\(invalid)")
        }
    }

    @Test("The session collection exists, is aliased 'session' and starts empty and unlocked")
    func sessionCollection() throws {
        let store = MemorySecretStore(clock: { 1_700_000_000 })
        #expect(store.resolveAlias("session") == Self.session)
        #expect(store.resolveAlias("default") == nil)
        #expect(
            store.collection(Self.session)
                == CollectionInfo(
                    id: Self.session, label: "Session", locked: false, created: 1_700_000_000, modified: 1_700_000_000))
        #expect(try store.items(in: Self.session).isEmpty)
        #expect(!store.holdsUnsavedData)
    }

    @Test("A search matches every item containing the query's pairs exactly; an empty query matches all")
    func search() throws {
        let store = MemorySecretStore()
        let a = try store.createItem(
            in: Self.session, label: "a", attributes: ["service": "x", "user": "alice"], secret: Self.secret("1"),
            replace: false
        ).id
        let b = try store.createItem(
            in: Self.session, label: "b", attributes: ["service": "x", "user": "bob"], secret: Self.secret("2"),
            replace: false
        ).id
        #expect(store.search(["service": "x"], in: nil).map(\.1.id) == [a, b])
        #expect(store.search(["user": "alice"], in: Self.session).map(\.1.id) == [a])
        #expect(store.search(["user": "Alice"], in: nil).isEmpty)
        #expect(store.search(["service": "x", "user": "carol"], in: nil).isEmpty)
        #expect(store.search([:], in: nil).count == 2)
        #expect(store.holdsUnsavedData)
    }

    @Test("replace overwrites only an item with exactly the same attribute set; duplicates are allowed without it")
    func replaceSemantics() throws {
        let store = MemorySecretStore()
        let specific = try store.createItem(
            in: Self.session, label: "specific", attributes: ["service": "x", "user": "alice"],
            secret: Self.secret("s"), replace: false)
        let general = try store.createItem(
            in: Self.session, label: "general", attributes: ["service": "x"], secret: Self.secret("g"), replace: true)
        #expect(!general.replaced)
        #expect(general.id != specific.id)
        #expect(Self.text(try store.secret(of: specific.id, in: Self.session)) == "s")
        let again = try store.createItem(
            in: Self.session, label: "general 2", attributes: ["service": "x"], secret: Self.secret("g2"), replace: true
        )
        #expect(again.replaced)
        #expect(again.id == general.id)
        #expect(Self.text(try store.secret(of: general.id, in: Self.session)) == "g2")
        #expect(try store.item(general.id, in: Self.session).label == "general 2")
        let duplicate = try store.createItem(
            in: Self.session, label: "dup", attributes: ["service": "x"], secret: Self.secret("d"), replace: false)
        #expect(!duplicate.replaced)
        #expect(try store.items(in: Self.session).count == 3)
    }

    @Test(
        "A locked collection keeps labels, attributes and search readable and answers IsLocked for secrets and changes")
    func lockedBehaviour() throws {
        let store = MemorySecretStore()
        let item = try store.createItem(
            in: Self.session, label: "l", attributes: ["k": "v"], secret: Self.secret("s"), replace: false
        ).id
        try store.lock(Self.session)
        #expect(store.collection(Self.session)?.locked == true)
        #expect(try store.unlockRequirement(Self.session) == .prompt)
        #expect(try store.item(item, in: Self.session).attributes == ["k": "v"])
        #expect(store.search(["k": "v"], in: nil).count == 1)
        #expect(throws: SecretStoreError.isLocked) { try store.secret(of: item, in: Self.session) }
        #expect(throws: SecretStoreError.isLocked) { try store.setSecret(Self.secret("t"), of: item, in: Self.session) }
        #expect(throws: SecretStoreError.isLocked) { try store.deleteItem(item, in: Self.session) }
        #expect(throws: SecretStoreError.isLocked) {
            try store.createItem(
                in: Self.session, label: "n", attributes: [:], secret: Self.secret("n"), replace: false)
        }
        try store.unlock(Self.session)
        #expect(try store.unlockRequirement(Self.session) == .none)
        #expect(Self.text(try store.secret(of: item, in: Self.session)) == "s")
    }

    @Test("Every change is reported once, in order")
    func changes() throws {
        let store = MemorySecretStore()
        var seen: [SecretStoreChange] = []
        store.changeHandler = { seen.append($0) }
        let collection = try store.createCollection(label: "My Keys!")
        #expect(collection.rawValue == "my_keys_")
        let item = try store.createItem(
            in: collection, label: "a", attributes: [:], secret: Self.secret("1"), replace: false
        ).id
        try store.setLabel("b", of: item, in: collection)
        try store.deleteItem(item, in: collection)
        try store.lock(collection)
        try store.lock(collection)
        try store.deleteCollection(collection)
        #expect(
            seen == [
                .collectionCreated(collection), .itemCreated(collection, item), .itemChanged(collection, item),
                .itemDeleted(collection, item), .collectionChanged(collection), .collectionDeleted(collection),
            ])
        #expect(throws: SecretStoreError.noSuchObject) { try store.items(in: collection) }
    }

    @Test("Searches follow attribute changes and deletions")
    func searchFollowsChanges() throws {
        let store = MemorySecretStore()
        let a = try store.createItem(
            in: Self.session, label: "a", attributes: ["k": "1"], secret: Self.secret("a"), replace: false
        ).id
        let b = try store.createItem(
            in: Self.session, label: "b", attributes: ["k": "1", "x": "y"], secret: Self.secret("b"), replace: false
        ).id
        try store.setAttributes(["k": "2"], of: a, in: Self.session)
        #expect(store.search(["k": "1"], in: nil).map(\.1.id) == [b])
        #expect(store.search(["k": "2"], in: nil).map(\.1.id) == [a])
        try store.deleteItem(b, in: Self.session)
        #expect(store.search(["k": "1"], in: nil).isEmpty)
        #expect(store.search(["x": "y"], in: nil).isEmpty)
        #expect(store.search([:], in: nil).map(\.1.id) == [a])
        // replace finds the exact set through the index.
        let replaced = try store.createItem(
            in: Self.session, label: "a2", attributes: ["k": "2"], secret: Self.secret("a2"), replace: true)
        #expect(replaced.id == a)
        #expect(replaced.replaced)
    }

    @Test("Identifiers accept only D-Bus object path elements ([A-Za-z0-9_], not empty), and make valid paths")
    func identifiers() {
        for bad in ["", "a/b", "a-b", "a b", ".", "ä", "a\u{0}"] {
            #expect(CollectionID(bad) == nil, "\(bad)")
            #expect(ItemID(bad) == nil, "\(bad)")
        }
        // D-Bus specification, "Valid Object Paths": elements of [A-Za-z0-9_], no length limit of their own.
        for good in ["login", "A_z_09", "1", "_", String(repeating: "a", count: 200)] {
            #expect(CollectionID(good)?.rawValue == good)
            #expect(ItemID(good)?.rawValue == good)
            #expect(g_variant_is_object_path("/org/freedesktop/secrets/collection/\(good)/\(good)") != 0)
        }
    }
}
