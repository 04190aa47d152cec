import Foundation
import KeychainServices
import KeychainTesting
import Testing

/// Result dictionaries read as iOS code reads them (issue 30): on Apple platforms a `CFString` key and
/// the `String` with its characters are one `AnyHashable` (NSString's custom `AnyHashable`
/// representation in Apple's Foundation), and a `CFBoolean` or `CFNumber` is the Swift value it holds.
/// Each test reads a result in one of the forms the wrappers use: `[[AnyHashable: Any]]`
/// (SwiftKeychainWrapper), `[[String: Any]]` (keychain-swift, KeychainAccess, SimpleKeychain),
/// `[String: AnyHashable]` (Valet), `NSDictionary` (Locksmith) and `CFDictionary`.
@Suite("Result dictionaries read with Apple's constants")
struct ResultDictionaryKeyTests {
    /// Adds one generic password (account "acct1", service "svc") and returns every item's attributes
    /// under `kSecMatchLimitAll`.
    private func allAttributes(_ extra: [String: Any] = [:]) throws -> CFTypeRef? {
        #expect(add(genericPassword(account: "acct1", extra), secret: "pw") == errSecSuccess)
        let (status, result) = copy(
            genericPassword(
                account: nil,
                [kSecReturnAttributes as String: kCFBooleanTrue!, kSecMatchLimit as String: kSecMatchLimitAll]))
        #expect(status == errSecSuccess)
        return result
    }

    @Test("[[AnyHashable: Any]] results are read with kSecAttrAccount and with kSecAttrAccount as String alike")
    func anyHashableArray() throws {
        try withKeychain {
            let items = try #require(try allAttributes() as? [[AnyHashable: Any]])
            #expect(items.count == 1)
            #expect(items[0][kSecAttrAccount] as? String == "acct1")
            #expect(items[0][kSecAttrAccount as String] as? String == "acct1")
            #expect(items[0][kSecAttrService] as? String == "svc")
            #expect(items[0][kSecClass] as? String == kSecClassGenericPassword as String)
        }
    }

    @Test("A single [AnyHashable: Any] result (kSecMatchLimitOne) is read with the CFString constants")
    func anyHashableSingle() throws {
        try withKeychain {
            #expect(add(genericPassword(account: "acct1"), secret: "pw") == errSecSuccess)
            let (status, result) = copy(
                genericPassword(
                    account: "acct1",
                    [kSecReturnAttributes as String: kCFBooleanTrue!, kSecReturnData as String: kCFBooleanTrue!]))
            #expect(status == errSecSuccess)
            let item = try #require(result as? [AnyHashable: Any])
            #expect(item[kSecAttrAccount] as? String == "acct1")
            #expect(item[kSecValueData] as? Data == Data("pw".utf8))
            #expect(item["v_Data"] as? Data == Data("pw".utf8))
        }
    }

    /// SwiftKeychainWrapper's `allKeys()` stores its account as `Data` and reads it back with
    /// `attributes[kSecAttrAccount] as? Data` from `[[AnyHashable: Any]]`: the account is kept as given
    /// (SecItem.h: kSecAttrAccount is a CFString, but securityd stores it as a blob and returns the data).
    @Test("A Data account reads back as Data through attributes[kSecAttrAccount] (SwiftKeychainWrapper allKeys)")
    func dataAccountThroughCFStringKey() throws {
        try withKeychain {
            let account = Data("key1".utf8)
            let item: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc",
                kSecAttrAccount as String: account, kSecAttrGeneric as String: account,
                kSecValueData as String: Data("v".utf8),
            ]
            #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
            let query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc",
                kSecReturnAttributes as String: kCFBooleanTrue!, kSecMatchLimit as String: kSecMatchLimitAll,
            ]
            var result: AnyObject?
            #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
            let items = try #require(result as? [[AnyHashable: Any]])
            #expect(items.map { $0[kSecAttrAccount] as? Data } == [account])
        }
    }

    @Test("[[String: Any]] and [String: AnyHashable] results are read with kSecAttrAccount as String")
    func stringKeyedForms() throws {
        try withKeychain {
            let result = try allAttributes()
            let items = try #require(result as? [[String: Any]])
            #expect(items[0][kSecAttrAccount as String] as? String == "acct1")
            let hashable = try #require(result as? [[String: AnyHashable]])
            #expect(hashable[0][kSecAttrAccount as String] == AnyHashable("acct1"))
            #expect(hashable[0][kSecAttrAccessible as String] == AnyHashable(kSecAttrAccessibleWhenUnlocked))
        }
    }

    @Test("NSDictionary and CFDictionary results are read with the CFString constant and with a String")
    func foundationForms() throws {
        try withKeychain {
            let result = try allAttributes()
            let array = try #require(result as? NSArray)
            let dictionary = try #require(array.firstObject as? NSDictionary)
            #expect(dictionary[kSecAttrAccount] as? String == "acct1")
            #expect(dictionary["acct"] as? String == "acct1")
            #expect(dictionary.object(forKey: kSecAttrAccount) as? String == "acct1")
            let cfDictionary: CFDictionary = dictionary
            #expect((cfDictionary as? [AnyHashable: Any])?[kSecAttrAccount] as? String == "acct1")
        }
    }

    @Test("A result's keys, as a Set<AnyHashable>, contain the CFString constants")
    func keySets() throws {
        try withKeychain {
            let items = try #require(try allAttributes() as? [[AnyHashable: Any]])
            let keys = Set(items[0].keys)
            #expect(keys.contains(AnyHashable(kSecAttrAccount)))
            #expect(keys.contains(AnyHashable(kSecAttrAccessible)))
            #expect(keys.contains("acct"))
        }
    }

    @Test("kSecAttrAccessible and kSecClass values equal the CFString constants, as String and as CFString")
    func constantValues() throws {
        try withKeychain {
            let items = try #require(
                try allAttributes([kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock])
                    as? [[AnyHashable: Any]])
            let accessible = items[0][kSecAttrAccessible]
            #expect(accessible as? String == kSecAttrAccessibleAfterFirstUnlock as String)
            #expect(accessible as? CFString == kSecAttrAccessibleAfterFirstUnlock)
            #expect(items[0][kSecClass] as? CFString == kSecClassGenericPassword)
            let value = try #require(accessible as? AnyHashable)
            #expect(value == AnyHashable(kSecAttrAccessibleAfterFirstUnlock))
            #expect(value == AnyHashable("ck"))
        }
    }

    @Test("kSecAttrSynchronizable values read as Bool, as CFBoolean and as AnyHashable(true/false)")
    func booleanValues() throws {
        try withKeychain {
            #expect(
                add(
                    genericPassword(account: "acct1", [kSecAttrSynchronizable as String: kCFBooleanTrue!]), secret: "pw"
                )
                    == errSecSuccess)
            let (status, result) = copy(
                genericPassword(
                    account: "acct1",
                    [
                        kSecReturnAttributes as String: kCFBooleanTrue!,
                        kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
                    ]))
            #expect(status == errSecSuccess)
            let item = try #require(result as? [AnyHashable: Any])
            let synchronizable = item[kSecAttrSynchronizable]
            #expect(synchronizable as? Bool == true)
            #expect(synchronizable as? CFBoolean == kCFBooleanTrue)
            #expect((synchronizable as? AnyHashable) == AnyHashable(true))
        }
    }

    @Test("CFString and String keys are one AnyHashable; CFBoolean and CFNumber are their Swift values")
    func anyHashableEquality() {
        #expect(AnyHashable(kSecAttrAccount) == AnyHashable("acct"))
        #expect(AnyHashable(kSecAttrAccount).hashValue == AnyHashable("acct").hashValue)
        #expect(AnyHashable(NSMutableString(string: "acct")) == AnyHashable(kSecAttrAccount))
        #expect(AnyHashable(kCFBooleanTrue!) == AnyHashable(true))
        #expect(AnyHashable(kCFBooleanFalse!) == AnyHashable(false))
        #expect(AnyHashable(kCFBooleanTrue!) != AnyHashable(1))
        #expect(AnyHashable(NSNumber(value: 443)) == AnyHashable(443))
        #expect(AnyHashable(NSNumber(value: 1.5)) == AnyHashable(1.5))
        #expect(AnyHashable(kSecAttrAccount) != AnyHashable(kSecAttrService))
    }

    @Test("A query with CFString keys equals the same query with String keys, as dictionaries and NSDictionaries")
    func queryForms() {
        let cfKeys: [AnyHashable: Any] = [
            kSecClass: kSecClassGenericPassword, kSecAttrService: "svc", kSecReturnData: kCFBooleanTrue!,
        ]
        let stringKeys: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc",
            kSecReturnData as String: true,
        ]
        #expect(cfKeys[kSecClass as String] as? String == "genp")
        #expect(Set(cfKeys.keys) == Set(stringKeys.keys.map(AnyHashable.init)))
        #expect(NSDictionary(dictionary: cfKeys).isEqual(to: stringKeys))
        #expect((cfKeys as NSDictionary) == (stringKeys as NSDictionary))
    }
}
