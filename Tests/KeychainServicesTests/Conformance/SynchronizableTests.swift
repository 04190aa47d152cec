import Foundation
import KeychainServices
import Testing
import KeychainTesting

/// kSecAttrSynchronizable: docs/APPLE-SEMANTICS.md rule 11 (SecItem.h; SecItemServer.c
/// `query_add_attribute_with_desc`, `query_create_with_limit`).
@Suite("kSecAttrSynchronizable and kSecAttrSynchronizableAny")
struct SynchronizableTests {
    let sync = kSecAttrSynchronizable as String

    func addBoth() {
        #expect(add(genericPassword([sync: kCFBooleanTrue!]), secret: "synced") == errSecSuccess)
        #expect(add(genericPassword(), secret: "local") == errSecSuccess)
    }

    @Test("A synchronizable and a non-synchronizable item with the same service and account are distinct items")
    func syncIsPartOfPrimaryKey() throws {
        try withKeychain {
            addBoth()
            #expect(add(genericPassword([sync: kCFBooleanTrue!]), secret: "again") == errSecDuplicateItem)
        }
    }

    @Test("A query without kSecAttrSynchronizable sees only non-synchronizable items")
    func absentMeansFalse() throws {
        try withKeychain {
            addBoth()
            #expect(count(genericPassword()) == 1)
            #expect(secret(genericPassword()) == "local")
            #expect(add(genericPassword(account: "only-synced", [sync: kCFBooleanTrue!]), secret: "s") == errSecSuccess)
            #expect(copy(genericPassword(account: "only-synced")).status == errSecItemNotFound)
        }
    }

    @Test("kSecAttrSynchronizable true sees only synchronizable items")
    func trueMeansOnlySynced() throws {
        try withKeychain {
            addBoth()
            #expect(count(genericPassword([sync: kCFBooleanTrue!])) == 1)
            #expect(secret(genericPassword([sync: kCFBooleanTrue!])) == "synced")
        }
    }

    @Test("kSecAttrSynchronizableAny sees both kinds in SecItemCopyMatching")
    func anySeesBoth() throws {
        try withKeychain {
            addBoth()
            #expect(count(genericPassword([sync: kSecAttrSynchronizableAny])) == 2)
        }
    }

    @Test("SecItemDelete without kSecAttrSynchronizable leaves synchronizable items; with Any it deletes both")
    func deleteHonoursSync() throws {
        try withKeychain {
            addBoth()
            #expect(delete(genericPassword()) == errSecSuccess)
            #expect(secret(genericPassword([sync: kCFBooleanTrue!])) == "synced")
            #expect(add(genericPassword(), secret: "local") == errSecSuccess)
            #expect(delete(genericPassword([sync: kSecAttrSynchronizableAny])) == errSecSuccess)
            #expect(count(genericPassword([sync: kSecAttrSynchronizableAny])) == 0)
        }
    }

    @Test("SecItemUpdate with kSecAttrSynchronizableAny updates both kinds")
    func updateAny() throws {
        try withKeychain {
            addBoth()
            #expect(update(genericPassword([sync: kSecAttrSynchronizableAny]), [kSecAttrLabel as String: "both"]) == errSecSuccess)
            let result = copy(
                genericPassword([sync: kSecAttrSynchronizableAny, kSecReturnAttributes as String: kCFBooleanTrue!,
                    kSecMatchLimit as String: kSecMatchLimitAll])
            ).result
            #expect((result as? [[String: Any]])?.map { $0[kSecAttrLabel as String] as? String } == ["both", "both"])
        }
    }

    @Test("SecItemAdd with kSecAttrSynchronizableAny stores a non-synchronizable item")
    func addWithAnyStoresLocal() throws {
        try withKeychain {
            #expect(add(genericPassword([sync: kSecAttrSynchronizableAny]), secret: "x") == errSecSuccess)
            #expect(secret(genericPassword()) == "x")
            #expect(copy(genericPassword([sync: kCFBooleanTrue!])).status == errSecItemNotFound)
            #expect(add(genericPassword(), secret: "y") == errSecDuplicateItem)
        }
    }

    /// APPLE-SEMANTICS.md rule 20. SecItem.h says synchronizable items "may only" use migratable
    /// accessibility, but securityd's
    /// `_SecItemAdd` (keychain/securityd/SecItemServer.c, apple-oss-distributions/Security) has no such
    /// check, so iOS stores the item; KeychainAccess's suite, run on iOS, expects success.
    @Test("A synchronizable …ThisDeviceOnly item is stored, as securityd does (no check in _SecItemAdd)")
    func syncThisDeviceOnly() throws {
        try withKeychain {
            let item = genericPassword([sync: kCFBooleanTrue!, kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly])
            #expect(add(item, secret: "x") == errSecSuccess)
            #expect(secret(genericPassword([sync: kCFBooleanTrue!])) == "x")
            let found = attributes(genericPassword([sync: kCFBooleanTrue!]))
            #expect(found?[kSecAttrAccessible as String] as? String == "aku")
            #expect((found?[kSecAttrSynchronizable as String] as? NSNumber)?.boolValue == true)
        }
    }
}
