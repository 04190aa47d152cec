import Foundation
import KeychainServices
import KeychainTesting
import Testing

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
            #expect(
                update(genericPassword([sync: kSecAttrSynchronizableAny]), [kSecAttrLabel as String: "both"])
                    == errSecSuccess)
            let result = copy(
                genericPassword([
                    sync: kSecAttrSynchronizableAny, kSecReturnAttributes as String: kCFBooleanTrue!,
                    kSecMatchLimit as String: kSecMatchLimitAll,
                ])
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

    /// APPLE-SEMANTICS.md rule 20: SecItem.h and the kSecAttrSynchronizable page say a synchronizable item
    /// "may only" use an accessibility that is not `…ThisDeviceOnly`; the store refuses the combination
    /// with errSecParam, through SecItemAdd and SecItemUpdate alike, and nothing is stored or changed.
    @Test(
        "SecItemAdd of a synchronizable …ThisDeviceOnly item is errSecParam, and nothing is stored",
        arguments: ["aku", "cku", "dku"])
    func syncThisDeviceOnlyAddRefused(_ accessible: String) throws {
        try withKeychain {
            let item = genericPassword([sync: kCFBooleanTrue!, kSecAttrAccessible as String: accessible])
            #expect(add(item, secret: "x") == errSecParam)
            #expect(count(genericPassword([sync: kSecAttrSynchronizableAny])) == 0)
        }
    }

    @Test(
        "SecItemUpdate that would make an item synchronizable and …ThisDeviceOnly is errSecParam; the item is unchanged"
    )
    func syncThisDeviceOnlyUpdateRefused() throws {
        try withKeychain {
            #expect(add(genericPassword([sync: kCFBooleanTrue!]), secret: "synced") == errSecSuccess)
            #expect(
                update(
                    genericPassword([sync: kCFBooleanTrue!]),
                    [kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly]) == errSecParam)
            #expect(
                add(
                    genericPassword(
                        account: "local", [kSecAttrAccessible as String: kSecAttrAccessibleAlwaysThisDeviceOnly]),
                    secret: "l") == errSecSuccess)
            #expect(update(genericPassword(account: "local"), [sync: kCFBooleanTrue!]) == errSecParam)
            let found = attributes(genericPassword([sync: kCFBooleanTrue!]))
            #expect(found?[kSecAttrAccessible as String] as? String == "ak")
            #expect(secret(genericPassword(account: "local")) == "l")
        }
    }
}
