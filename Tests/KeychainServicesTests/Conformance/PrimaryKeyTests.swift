import Foundation
import KeychainCore
import KeychainServices
import KeychainTesting
import Testing

/// Uniqueness: docs/APPLE-SEMANTICS.md rules 1 and 3 (SecItemSchema.c `P` flags; errSecDuplicateItem docs;
/// Quinn, "SecItem: Pitfalls and Best Practices").
@Suite("Primary keys and uniqueness")
struct PrimaryKeyTests {
    @Test("Adding a generic password twice with the same service and account returns errSecDuplicateItem (-25299)")
    func duplicateGenericPassword() throws {
        try withKeychain {
            #expect(add(genericPassword(), secret: "one") == errSecSuccess)
            #expect(add(genericPassword(), secret: "two") == errSecDuplicateItem)
            #expect(secret(genericPassword()) == "one")
        }
    }

    /// A generic password's primary key is agrp + sync + acct + svce: changing any one gives a new item.
    @Test(
        "A generic password differing in one primary-key attribute is a distinct item",
        arguments: ["acct", "svce", "agrp", "sync"])
    func genericPasswordKeyAttributes(attribute: String) throws {
        let identity = ApplicationIdentity(accessGroups: ["TEAM.one", "TEAM.two"])
        let base = genericPassword(["agrp": "TEAM.one", "sync": kCFBooleanFalse!])
        let changed: [String: Any] = [
            "acct": "other-account", "svce": "other-service", "agrp": "TEAM.two", "sync": kCFBooleanTrue!,
        ]
        var variant = base
        variant[attribute] = changed[attribute]
        try withKeychain(as: identity) {
            #expect(add(base, secret: "base") == errSecSuccess)
            #expect(add(variant, secret: "variant") == errSecSuccess)
            #expect(add(variant, secret: "again") == errSecDuplicateItem)
            #expect(
                count(
                    genericPassword(
                        service: nil, account: nil, [kSecAttrSynchronizable as String: kSecAttrSynchronizableAny])) == 2
            )
        }
    }

    /// An internet password's primary key is agrp + sync + acct + sdmn + srvr + ptcl + atyp + port + path.
    @Test(
        "An internet password differing in one primary-key attribute is a distinct item",
        arguments: ["acct", "sdmn", "srvr", "ptcl", "atyp", "port", "path"])
    func internetPasswordKeyAttributes(attribute: String) throws {
        let base = internetPassword([
            "acct": "alice", "sdmn": "realm", "srvr": "example.com", "ptcl": kSecAttrProtocolHTTPS,
            "atyp": kSecAttrAuthenticationTypeHTMLForm, "port": 443, "path": "/login",
        ])
        let changed: [String: Any] = [
            "acct": "bob", "sdmn": "other-realm", "srvr": "example.org", "ptcl": kSecAttrProtocolHTTP,
            "atyp": kSecAttrAuthenticationTypeHTTPBasic, "port": 8443, "path": "/other",
        ]
        var variant = base
        variant[attribute] = changed[attribute]
        try withKeychain {
            #expect(add(base, secret: "base") == errSecSuccess)
            #expect(add(variant, secret: "variant") == errSecSuccess)
            #expect(add(variant, secret: "again") == errSecDuplicateItem)
            #expect(secret(variant) == "variant")
            #expect(count(internetPassword([:])) == 2)
        }
    }

    @Test("Internet passwords do not collide with generic passwords of the same account")
    func classesAreSeparate() throws {
        try withKeychain {
            #expect(add(genericPassword(service: nil, account: "alice"), secret: "g") == errSecSuccess)
            #expect(add(internetPassword(["acct": "alice"]), secret: "i") == errSecSuccess)
        }
    }

    /// Missing key attributes default to "" (SecItemSchema.c `E` flag; the KeychainItemWrapper bug).
    @Test("Two generic passwords added without an account collide: the missing account defaults to an empty string")
    func missingAccountDefaultsToEmpty() throws {
        try withKeychain {
            #expect(
                add(genericPassword(account: nil, [kSecAttrLabel as String: "first"]), secret: "1") == errSecSuccess)
            #expect(
                add(genericPassword(account: nil, [kSecAttrLabel as String: "second"]), secret: "2")
                    == errSecDuplicateItem)
            #expect(secret(genericPassword(account: "")) == "1")
            #expect(attributes(genericPassword(account: nil))?[kSecAttrAccount as String] as? String == "")
        }
    }

    @Test("A generic password added without service or account is found with both set to an empty string")
    func missingServiceAndAccount() throws {
        try withKeychain {
            #expect(add(genericPassword(service: nil, account: nil), secret: "bare") == errSecSuccess)
            #expect(add(genericPassword(service: "", account: ""), secret: "explicit") == errSecDuplicateItem)
            #expect(secret(genericPassword(service: "", account: "")) == "bare")
        }
    }

    /// Numeric key attributes default to 0 (SecItemSchema.c `Z` flag).
    @Test("An internet password added without a port is found with port 0 and collides with an explicit port 0")
    func missingPortDefaultsToZero() throws {
        try withKeychain {
            #expect(add(internetPassword(["srvr": "example.com", "acct": "alice"]), secret: "x") == errSecSuccess)
            #expect(secret(internetPassword(["srvr": "example.com", "port": 0])) == "x")
            #expect(
                add(internetPassword(["srvr": "example.com", "acct": "alice", "port": 0]), secret: "y")
                    == errSecDuplicateItem)
            #expect(copy(internetPassword(["srvr": "example.com", "port": 80])).status == errSecItemNotFound)
        }
    }

    /// Non-key attributes narrow searches but play no part in uniqueness (docs/APPLE-SEMANTICS.md rule 1).
    @Test(
        "A non-key attribute does not make an item unique: adding with another value returns errSecDuplicateItem",
        arguments: ["labl", "gena", "desc", "icmt", "pdmn", "crtr", "type", "invi", "nega"])
    func nonKeyAttributeDoesNotMakeUnique(attribute: String) throws {
        let values: [String: (Any, Any)] = [
            "labl": ("label one", "label two"), "gena": (Data([1]), Data([2])), "desc": ("d1", "d2"),
            "icmt": ("c1", "c2"), "pdmn": (kSecAttrAccessibleWhenUnlocked, kSecAttrAccessibleAfterFirstUnlock),
            "crtr": (1, 2), "type": (3, 4), "invi": (kCFBooleanTrue!, kCFBooleanFalse!),
            "nega": (kCFBooleanFalse!, kCFBooleanTrue!),
        ]
        let (first, second) = try #require(values[attribute])
        try withKeychain {
            #expect(add(genericPassword([attribute: first]), secret: "1") == errSecSuccess)
            #expect(add(genericPassword([attribute: second]), secret: "2") == errSecDuplicateItem)
            // The attribute filters searches: the stored value matches, the other does not.
            #expect(copy(genericPassword([attribute: first])).status == errSecSuccess)
            #expect(copy(genericPassword([attribute: second])).status == errSecItemNotFound)
        }
    }

    /// Quinn's pitfall: CopyMatching with an extra non-key attribute → -25300, then Add → -25299.
    @Test("Quinn's pitfall: a search with an extra kSecAttrGeneric finds nothing, yet adding it is a duplicate")
    func quinnsPitfall() throws {
        try withKeychain {
            #expect(add(genericPassword(), secret: "stored") == errSecSuccess)
            let query = genericPassword([kSecAttrGeneric as String: Data("extra".utf8)])
            #expect(copy(query).status == errSecItemNotFound)
            #expect(add(query, secret: "new") == errSecDuplicateItem)
        }
    }
}
