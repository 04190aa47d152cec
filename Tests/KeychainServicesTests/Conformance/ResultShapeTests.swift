import Foundation
import KeychainServices
import KeychainTesting
import Testing

/// Result shapes: docs/APPLE-SEMANTICS.md rules 4, 5, 13 and 16 (SecItem.h; SecItemServer.c `handle_result`).
@Suite("Result shapes of SecItemCopyMatching and SecItemAdd")
struct ResultShapeTests {
    /// Two items under one service, so that limits matter.
    func twoItems() {
        #expect(add(genericPassword(account: "a"), secret: "secret-a") == errSecSuccess)
        #expect(add(genericPassword(account: "b"), secret: "secret-b") == errSecSuccess)
    }

    @Test("kSecReturnData alone returns bare Data")
    func dataAlone() throws {
        try withKeychain {
            twoItems()
            let result = copy(genericPassword(account: "a", [kSecReturnData as String: kCFBooleanTrue!])).result
            #expect((result as? Data)?.utf8Text == "secret-a")
            #expect(!(result is NSDictionary) && !(result is NSArray))
        }
    }

    @Test("Return keys given as Swift Bool or NSNumber work like kCFBooleanTrue!", arguments: ["Bool", "NSNumber"])
    func swiftBooleans(kind: String) throws {
        try withKeychain {
            twoItems()
            let flag: Any = kind == "Bool" ? true : NSNumber(value: 1)
            #expect(
                (copy(genericPassword(account: "a", [kSecReturnData as String: flag])).result as? Data)?.utf8Text
                    == "secret-a")
        }
    }

    @Test("kSecReturnPersistentRef alone returns bare Data that is not the secret")
    func persistentRefAlone() throws {
        try withKeychain {
            twoItems()
            let result = copy(genericPassword(account: "a", [kSecReturnPersistentRef as String: kCFBooleanTrue!]))
                .result
            let ref = try #require(result as? Data)
            #expect(!ref.isEmpty)
            #expect(ref != Data("secret-a".utf8))
        }
    }

    @Test("kSecReturnAttributes returns a dictionary with the class, the attributes and their defaults")
    func attributesAlone() throws {
        try withKeychain {
            twoItems()
            let found = try #require(attributes(genericPassword(account: "a")))
            #expect(found[kSecClass as String] as? String == kSecClassGenericPassword as String)
            #expect(found[kSecAttrService as String] as? String == "svc")
            #expect(found[kSecAttrAccount as String] as? String == "a")
            #expect(found[kSecAttrAccessGroup as String] as? String != nil)
            // kSecAttrAccessibleWhenUnlocked is the default ([D] ksecattraccessiblewhenunlocked).
            #expect(found[kSecAttrAccessible as String] as? String == kSecAttrAccessibleWhenUnlocked as String)
            #expect(found[kSecAttrCreationDate as String] is Date)
            #expect(found[kSecAttrModificationDate as String] is Date)
            #expect(found[kSecValueData as String] == nil)
        }
    }

    @Test("Every attribute value type reads back with its type, one item or enumerated, with and without data")
    func everyValueType() throws {
        try withKeychain {
            let generic = Data([0, 0xFF, 7])
            let extra: [String: Any] = [
                kSecAttrGeneric as String: generic, kSecAttrLabel as String: "läbel ✓",
                kSecAttrCreator as String: NSNumber(value: 0x4142_4344), kSecAttrIsInvisible as String: true,
                kSecAttrDescription as String: "", kSecAttrComment as String: "c",
            ]
            #expect(add(genericPassword(account: "typed", extra), secret: "s") == errSecSuccess)
            #expect(add(genericPassword(account: "other"), secret: "t") == errSecSuccess)
            for withData in [false, true] {
                let one = try #require(
                    attributes(genericPassword(account: "typed", [kSecReturnData as String: withData])))
                var all: [[String: Any]] = []
                var result: CFTypeRef?
                let query = genericPassword(
                    account: nil,
                    [
                        kSecReturnAttributes as String: true, kSecReturnData as String: withData,
                        kSecMatchLimit as String: kSecMatchLimitAll,
                    ])
                #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
                all = try #require(result as? [[String: Any]])
                #expect(all.count == 2)
                let listed = try #require(all.first { $0[kSecAttrAccount as String] as? String == "typed" })
                for found in [one, listed] {
                    #expect(found[kSecClass as String] as? String == kSecClassGenericPassword as String)
                    #expect(found[kSecAttrGeneric as String] as? Data == generic)
                    #expect(found[kSecAttrLabel as String] as? String == "läbel ✓")
                    #expect((found[kSecAttrCreator as String] as? NSNumber)?.int64Value == 0x4142_4344)
                    #expect(found[kSecAttrIsInvisible as String] as? Bool == true)
                    #expect(found[kSecAttrDescription as String] as? String == "")
                    #expect(found[kSecAttrComment as String] as? String == "c")
                    #expect(found[kSecAttrSynchronizable as String] as? Bool == false)
                    #expect(found[kSecAttrCreationDate as String] is Date)
                    #expect(found[kSecAttrAccessControl as String] != nil)
                    #expect(found["tapp"] == nil)
                    #expect((found[kSecValueData as String] as? Data)?.utf8Text == (withData ? "s" : nil))
                }
            }
        }
    }

    @Test("kSecReturnData with kSecReturnAttributes returns one dictionary holding v_Data")
    func dataAndAttributes() throws {
        try withKeychain {
            twoItems()
            let result = copy(
                genericPassword(
                    account: "b",
                    [kSecReturnData as String: kCFBooleanTrue!, kSecReturnAttributes as String: kCFBooleanTrue!])
            ).result
            let found = try #require(result as? [String: Any])
            #expect((found[kSecValueData as String] as? Data)?.utf8Text == "secret-b")
            #expect(found[kSecAttrAccount as String] as? String == "b")
        }
    }

    @Test("kSecReturnData with kSecReturnPersistentRef returns a dictionary with v_Data and v_PersistentRef")
    func dataAndPersistentRef() throws {
        try withKeychain {
            twoItems()
            let result = copy(
                genericPassword(
                    account: "b",
                    [kSecReturnData as String: kCFBooleanTrue!, kSecReturnPersistentRef as String: kCFBooleanTrue!])
            ).result
            let found = try #require(result as? [String: Any])
            #expect((found[kSecValueData as String] as? Data)?.utf8Text == "secret-b")
            let ref = try #require(found[kSecValuePersistentRef as String] as? Data)
            let alone =
                copy(genericPassword(account: "b", [kSecReturnPersistentRef as String: kCFBooleanTrue!])).result
                as? Data
            #expect(ref == alone)
        }
    }

    @Test("kSecMatchLimitAll with kSecReturnData returns an array of Data (iOS; macOS file keychains refuse it)")
    func allData() throws {
        try withKeychain {
            twoItems()
            let result = copy(
                genericPassword(
                    account: nil,
                    [kSecReturnData as String: kCFBooleanTrue!, kSecMatchLimit as String: kSecMatchLimitAll])
            ).result
            let array = try #require(result as? [Data])
            #expect(Set(array.map(\.utf8Text)) == ["secret-a", "secret-b"])
        }
    }

    @Test("kSecMatchLimitAll with kSecReturnAttributes returns an array of dictionaries")
    func allAttributes() throws {
        try withKeychain {
            twoItems()
            let result = copy(
                genericPassword(
                    account: nil,
                    [kSecReturnAttributes as String: kCFBooleanTrue!, kSecMatchLimit as String: kSecMatchLimitAll])
            ).result
            let array = try #require(result as? [[String: Any]])
            #expect(Set(array.compactMap { $0[kSecAttrAccount as String] as? String }) == ["a", "b"])
        }
    }

    @Test("kSecMatchLimitAll with one match still returns an array")
    func allWithOneMatch() throws {
        try withKeychain {
            twoItems()
            let result = copy(
                genericPassword(
                    account: "a",
                    [kSecReturnData as String: kCFBooleanTrue!, kSecMatchLimit as String: kSecMatchLimitAll])
            ).result
            #expect((result as? [Data])?.map(\.utf8Text) == ["secret-a"])
        }
    }

    @Test("The default limit is one: two matches give one bare object, not an array", arguments: [false, true])
    func defaultLimitIsOne(explicitLimitOne: Bool) throws {
        try withKeychain {
            twoItems()
            var query = genericPassword(account: nil, [kSecReturnData as String: kCFBooleanTrue!])
            if explicitLimitOne { query[kSecMatchLimit as String] = kSecMatchLimitOne }
            let result = copy(query).result
            let data = try #require(result as? Data)
            #expect(["secret-a", "secret-b"].contains(data.utf8Text))
        }
    }

    @Test("A numeric kSecMatchLimit returns an array of at most that many items")
    func numericLimit() throws {
        try withKeychain {
            twoItems()
            #expect(add(genericPassword(account: "c"), secret: "secret-c") == errSecSuccess)
            let result = copy(
                genericPassword(account: nil, [kSecReturnData as String: kCFBooleanTrue!, kSecMatchLimit as String: 2])
            ).result
            #expect((result as? [Data])?.count == 2)
        }
    }

    @Test("Without a return key SecItemCopyMatching returns only a status and leaves the result nil")
    func noReturnKey() throws {
        try withKeychain {
            twoItems()
            let (status, result) = copy(genericPassword(account: "a"))
            #expect(status == errSecSuccess)
            #expect(result == nil)
            // A nil result pointer is fine without a return key (the cheap "exists?" probe).
            #expect(SecItemCopyMatching(genericPassword(account: "a") as CFDictionary, nil) == errSecSuccess)
        }
    }

    @Test("An item added without kSecValueData returns empty Data when its data is asked for")
    func itemWithoutData() throws {
        try withKeychain {
            #expect(add(genericPassword()) == errSecSuccess)
            #expect((copy(genericPassword([kSecReturnData as String: kCFBooleanTrue!])).result as? Data) == Data())
        }
    }

    @Test("SecItemAdd with kSecReturnPersistentRef returns the new item's persistent reference")
    func addReturnsPersistentRef() throws {
        try withKeychain {
            var attributes = genericPassword([kSecValueData as String: Data("s".utf8)])
            attributes[kSecReturnPersistentRef as String] = kCFBooleanTrue!
            var result: CFTypeRef?
            #expect(SecItemAdd(attributes as CFDictionary, &result) == errSecSuccess)
            let ref = try #require(result as? Data)
            #expect(copy(genericPassword([kSecReturnPersistentRef as String: kCFBooleanTrue!])).result as? Data == ref)
        }
    }

    @Test("SecItemAdd with kSecReturnAttributes returns the new item's attributes")
    func addReturnsAttributes() throws {
        try withKeychain {
            var attributes = genericPassword([kSecValueData as String: Data("s".utf8)])
            attributes[kSecReturnAttributes as String] = kCFBooleanTrue!
            var result: CFTypeRef?
            #expect(SecItemAdd(attributes as CFDictionary, &result) == errSecSuccess)
            let found = try #require(result as? [String: Any])
            #expect(found[kSecAttrService as String] as? String == "svc")
        }
    }
}
