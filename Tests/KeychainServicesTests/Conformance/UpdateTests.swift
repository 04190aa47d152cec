import Foundation
import KeychainServices
import KeychainTesting
import Testing

/// SecItemUpdate: docs/APPLE-SEMANTICS.md rule 7 (SecItem.h; SecItemServer.c `_SecItemUpdate`).
@Suite("SecItemUpdate")
struct UpdateTests {
    @Test(
        "An update giving an item another item's primary key returns errSecDuplicateItem (-25299) and changes nothing")
    func collidingUpdate() throws {
        try withKeychain {
            #expect(
                add(genericPassword(account: "a", [kSecAttrLabel as String: "A"]), secret: "secret-a") == errSecSuccess)
            #expect(
                add(genericPassword(account: "b", [kSecAttrLabel as String: "B"]), secret: "secret-b") == errSecSuccess)
            let changes: [String: Any] = [
                kSecAttrAccount as String: "b", kSecValueData as String: Data("changed".utf8),
            ]
            #expect(update(genericPassword(account: "a"), changes) == errSecDuplicateItem)
            #expect(secret(genericPassword(account: "a")) == "secret-a")
            #expect(secret(genericPassword(account: "b")) == "secret-b")
            #expect(attributes(genericPassword(account: "a"))?[kSecAttrLabel as String] as? String == "A")
            #expect(count(genericPassword(account: nil)) == 2)
        }
    }

    @Test("An update of several items that would collide with each other changes none of them")
    func collidingMultiUpdate() throws {
        try withKeychain {
            #expect(add(genericPassword(account: "a"), secret: "A") == errSecSuccess)
            #expect(add(genericPassword(account: "b"), secret: "B") == errSecSuccess)
            // Both items would get account "same": the second rewrite collides with the first.
            #expect(update(genericPassword(account: nil), [kSecAttrAccount as String: "same"]) == errSecDuplicateItem)
            #expect(secret(genericPassword(account: "a")) == "A")
            #expect(secret(genericPassword(account: "b")) == "B")
            #expect(copy(genericPassword(account: "same")).status == errSecItemNotFound)
        }
    }

    @Test("An update refreshes kSecAttrModificationDate and keeps kSecAttrCreationDate")
    func datesOnUpdate() throws {
        try withKeychain {
            #expect(add(genericPassword(), secret: "x") == errSecSuccess)
            let before = try #require(attributes(genericPassword()))
            let created = try #require(before[kSecAttrCreationDate as String] as? Date)
            let modified = try #require(before[kSecAttrModificationDate as String] as? Date)
            #expect(created == modified)
            Thread.sleep(forTimeInterval: 0.02)
            #expect(update(genericPassword(), [kSecAttrLabel as String: "new label"]) == errSecSuccess)
            let after = try #require(attributes(genericPassword()))
            #expect(after[kSecAttrCreationDate as String] as? Date == created)
            let refreshed = try #require(after[kSecAttrModificationDate as String] as? Date)
            #expect(refreshed > modified)
        }
    }

    @Test("Updating only kSecValueData keeps every attribute; updating an attribute keeps the secret")
    func partialUpdates() throws {
        try withKeychain {
            #expect(
                add(
                    genericPassword([kSecAttrLabel as String: "label", kSecAttrGeneric as String: Data([9])]),
                    secret: "old") == errSecSuccess)
            #expect(update(genericPassword(), [kSecValueData as String: Data("new".utf8)]) == errSecSuccess)
            let found = try #require(attributes(genericPassword()))
            #expect(found[kSecAttrLabel as String] as? String == "label")
            #expect(found[kSecAttrGeneric as String] as? Data == Data([9]))
            #expect(update(genericPassword(), [kSecAttrComment as String: "comment"]) == errSecSuccess)
            #expect(secret(genericPassword()) == "new")
        }
    }

    @Test("An update can move an item to a new primary key, after which the old key finds nothing")
    func renameByUpdate() throws {
        try withKeychain {
            #expect(add(genericPassword(account: "old"), secret: "x") == errSecSuccess)
            #expect(update(genericPassword(account: "old"), [kSecAttrAccount as String: "new"]) == errSecSuccess)
            #expect(copy(genericPassword(account: "old")).status == errSecItemNotFound)
            #expect(secret(genericPassword(account: "new")) == "x")
            #expect(add(genericPassword(account: "old"), secret: "y") == errSecSuccess)
        }
    }

    @Test("An update filtered by a non-key attribute changes only the items that match it")
    func updateFilteredByNonKey() throws {
        try withKeychain {
            #expect(
                add(genericPassword(account: "a", [kSecAttrLabel as String: "tagged"]), secret: "A") == errSecSuccess)
            #expect(add(genericPassword(account: "b"), secret: "B") == errSecSuccess)
            #expect(
                update(
                    genericPassword(account: nil, [kSecAttrLabel as String: "tagged"]),
                    [kSecValueData as String: Data("T".utf8)]) == errSecSuccess)
            #expect(secret(genericPassword(account: "a")) == "T")
            #expect(secret(genericPassword(account: "b")) == "B")
        }
    }
}

/// Attribute value types: docs/APPLE-SEMANTICS.md rule 17 (inferred from SecItemSchema.c; Valet #113, #226).
@Suite("Attribute value types")
struct ValueTypeTests {
    @Test("An account stored as Data comes back as Data and is matched by a String with the same bytes")
    func dataAccount() throws {
        try withKeychain {
            #expect(
                add(genericPassword(account: nil, [kSecAttrAccount as String: Data("alice".utf8)]), secret: "x")
                    == errSecSuccess)
            let found = try #require(attributes(genericPassword(account: "alice")))
            #expect(found[kSecAttrAccount as String] as? Data == Data("alice".utf8))
            #expect(!(found[kSecAttrAccount as String] is String))
            #expect(secret(genericPassword(account: "alice")) == "x")
        }
    }

    @Test("An account stored as a String comes back as a String and is matched by Data with the same bytes")
    func stringAccount() throws {
        try withKeychain {
            #expect(add(genericPassword(account: "bob"), secret: "y") == errSecSuccess)
            #expect(attributes(genericPassword(account: "bob"))?[kSecAttrAccount as String] as? String == "bob")
            #expect(secret(genericPassword(account: nil, [kSecAttrAccount as String: Data("bob".utf8)])) == "y")
        }
    }

    @Test("A String and a Data account with the same bytes are the same primary key")
    func sameBytesCollide() throws {
        try withKeychain {
            #expect(
                add(genericPassword(account: nil, [kSecAttrAccount as String: Data("carol".utf8)]), secret: "1")
                    == errSecSuccess)
            #expect(add(genericPassword(account: "carol"), secret: "2") == errSecDuplicateItem)
        }
    }

    @Test("Matching is byte-exact: a different case does not match")
    func caseSensitive() throws {
        try withKeychain {
            #expect(add(genericPassword(account: "Dave"), secret: "x") == errSecSuccess)
            #expect(copy(genericPassword(account: "dave")).status == errSecItemNotFound)
        }
    }

    @Test("Numbers and booleans come back as numbers: port, creator, invisible")
    func numbers() throws {
        try withKeychain {
            #expect(
                add(
                    internetPassword([
                        kSecAttrServer as String: "h", kSecAttrPort as String: 8080, kSecAttrCreator as String: 1234,
                        kSecAttrIsInvisible as String: kCFBooleanTrue!,
                    ]), secret: "x") == errSecSuccess)
            let found = try #require(attributes(internetPassword([kSecAttrServer as String: "h"])))
            #expect((found[kSecAttrPort as String] as? NSNumber)?.intValue == 8080)
            #expect((found[kSecAttrCreator as String] as? NSNumber)?.intValue == 1234)
            #expect((found[kSecAttrIsInvisible as String] as? NSNumber)?.boolValue == true)
            #expect(found[kSecAttrProtocol as String] as? String == "")
        }
    }
}
