import Foundation
import KeychainCore
import KeychainServices
import KeychainTesting
import Testing

/// The four SecItem calls, for tests that run one rule against each.
enum Operation: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case add, copy, update, delete

    var testDescription: String {
        "SecItem" + ["add": "Add", "copy": "CopyMatching", "update": "Update", "delete": "Delete"][rawValue]!
    }

    /// Runs the call with `dictionary` as its query (or attributes, for add).
    func callAsFunction(_ dictionary: [String: Any]) -> OSStatus {
        switch self {
        case .add: SecItemAdd(dictionary as CFDictionary, nil)
        case .copy: KeychainServicesTests.copy(dictionary).status
        case .update: SecItemUpdate(dictionary as CFDictionary, [kSecAttrLabel as String: "changed"] as CFDictionary)
        case .delete: SecItemDelete(dictionary as CFDictionary)
        }
    }
}

/// Query validation: docs/APPLE-SEMANTICS.md rules 6, 7, 15 and 16 (SecItemServer.c; SecBasePriv.h maps
/// the internal errSecItem… codes to errSecParam).
@Suite("Validation of query and attribute dictionaries")
struct ValidationTests {
    @Test("A dictionary without kSecClass as String returns errSecParam (-50)", arguments: Operation.allCases)
    func missingClass(operation: Operation) throws {
        try withKeychain {
            #expect(add(genericPassword(), secret: "x") == errSecSuccess)
            var query = genericPassword()
            query[kSecClass as String] = nil
            #expect(operation(query) == errSecParam)
        }
    }

    @Test("An unknown kSecClass as String returns errSecNoSuchClass (-25306)", arguments: Operation.allCases)
    func unknownClass(operation: Operation) throws {
        try withKeychain {
            #expect(operation([kSecClass as String: "nope", kSecAttrAccount as String: "a"]) == errSecNoSuchClass)
        }
    }

    @Test("An attribute of the other class returns errSecNoSuchAttr (-25303)", arguments: Operation.allCases)
    func attributeOfOtherClass(operation: Operation) throws {
        try withKeychain {
            #expect(operation(internetPassword([kSecAttrService as String: "svc"])) == errSecNoSuchAttr)
            #expect(operation(genericPassword([kSecAttrServer as String: "example.com"])) == errSecNoSuchAttr)
        }
    }

    /// Values of the wrong type with a documented outcome: return keys must be CFBoolean, kSecValueData
    /// must be CFData (SecItemServer.c), kSecAttrAccessible must be one of its constants (§2.2 item 12),
    /// kSecMatchLimit one of its constants or a number, kSecAttrSynchronizable a boolean or Any.
    /// (Coercions securityd may apply between strings and numbers are deliberately not asserted.)
    static let wrongTypes: [String] = [
        "kSecReturnData as a string", "kSecReturnAttributes as an array", "kSecValueData as a string",
        "kSecAttrAccessible unknown value", "kSecMatchLimit unknown value", "kSecAttrSynchronizable as a string",
    ]

    static func wrongType(_ name: String) -> (Operation, [String: Any]) {
        switch name {
        case "kSecReturnData as a string": (.copy, genericPassword([kSecReturnData as String: "yes"]))
        case "kSecReturnAttributes as an array": (.copy, genericPassword([kSecReturnAttributes as String: [true]]))
        case "kSecValueData as a string": (.add, genericPassword([kSecValueData as String: "not data"]))
        case "kSecAttrAccessible unknown value": (.add, genericPassword([kSecAttrAccessible as String: "zz"]))
        case "kSecMatchLimit unknown value": (.copy, genericPassword([kSecMatchLimit as String: "m_LimitSome"]))
        default: (.add, genericPassword([kSecAttrSynchronizable as String: "yes"]))
        }
    }

    @Test("A value of the wrong type returns errSecParam (-50)", arguments: wrongTypes)
    func wrongValueType(name: String) throws {
        let (operation, dictionary) = Self.wrongType(name)
        try withKeychain {
            #expect(operation(dictionary) == errSecParam)
            #expect(count(genericPassword(service: nil, account: nil)) == 0)
        }
    }

    // Apple's client (SecItem.c, SecItemResultProcess) drops the result when the pointer is NULL, so
    // a nil result with return keys answers the status alone; found by issue 30 (-50 here before).
    @Test(
        "A return key with a nil result pointer is allowed: CopyMatching answers whether it matched, Add adds",
        arguments: [kSecReturnData as String, kSecReturnAttributes as String, kSecReturnPersistentRef as String])
    func returnKeyWithoutResult(returnKey: String) throws {
        try withKeychain {
            #expect(add(genericPassword(account: "present"), secret: "x") == errSecSuccess)
            let present = genericPassword(account: "present", [returnKey: kCFBooleanTrue!])
            #expect(SecItemCopyMatching(present as CFDictionary, nil) == errSecSuccess)
            let absent = genericPassword(account: "absent", [returnKey: kCFBooleanTrue!])
            #expect(SecItemCopyMatching(absent as CFDictionary, nil) == errSecItemNotFound)
            let all = genericPassword(
                service: nil, account: nil, [returnKey: kCFBooleanTrue!, kSecMatchLimit as String: kSecMatchLimitAll])
            #expect(SecItemCopyMatching(all as CFDictionary, nil) == errSecSuccess)
            let attributes = genericPassword(
                account: "new", [returnKey: kCFBooleanTrue!, kSecValueData as String: Data("y".utf8)])
            #expect(SecItemAdd(attributes as CFDictionary, nil) == errSecSuccess)
            #expect(secret(genericPassword(account: "new")) == "y")
            #expect(SecItemAdd(attributes as CFDictionary, nil) == errSecDuplicateItem)
        }
    }

    @Test("A secret over the size limit returns errSecDataTooLarge (-25302); one at the limit is stored")
    func secretSizeLimit() throws {
        let limit = 1 << 20  // 1 MiB, the documented limit (docs/ARCHITECTURE.md, "Where Linux differs")
        try withKeychain {
            let tooLarge = genericPassword(account: "big", [kSecValueData as String: Data(count: limit + 1)])
            #expect(SecItemAdd(tooLarge as CFDictionary, nil) == errSecDataTooLarge)
            #expect(copy(genericPassword(account: "big")).status == errSecItemNotFound)
            let atLimit = genericPassword(account: "big", [kSecValueData as String: Data(repeating: 7, count: limit)])
            #expect(SecItemAdd(atLimit as CFDictionary, nil) == errSecSuccess)
            #expect(
                update(genericPassword(account: "big"), [kSecValueData as String: Data(count: limit + 1)])
                    == errSecDataTooLarge)
            #expect(
                (copy(genericPassword(account: "big", [kSecReturnData as String: kCFBooleanTrue!])).result as? Data)?
                    .count == limit)
        }
    }

    /// docs/APPLE-SEMANTICS.md rule 6: macOS's SecItemUpdate and SecItemDelete remove every match key
    /// before the data-protection keychain sees the query (SecItem.cpp, SecItemCopyTranslatedAttributes
    /// with pruneMatch); kSecMatchLimitAll says what update and delete do anyway.
    @Test(
        "kSecMatchLimitAll in a SecItemUpdate or SecItemDelete query is accepted, as on macOS: every match is changed",
        arguments: [Operation.update, .delete])
    func matchLimitAllInUpdateOrDelete(operation: Operation) throws {
        try withKeychain {
            #expect(add(genericPassword(account: "a"), secret: "x") == errSecSuccess)
            #expect(add(genericPassword(account: "b"), secret: "y") == errSecSuccess)
            let status = operation(genericPassword(account: nil, [kSecMatchLimit as String: kSecMatchLimitAll]))
            #expect(status == errSecSuccess)
            #expect(count(genericPassword(account: nil)) == (operation == .delete ? 0 : 2))
            if operation == .update {
                for account in ["a", "b"] {
                    let label = attributes(genericPassword(account: account))?[kSecAttrLabel as String]
                    #expect(label as? String == "changed")
                }
            }
        }
    }

    /// Rule 6: a limit of one (or n) would change every match once removed, as macOS removes it; it
    /// stays errSecParam (iOS's securityd: "match limit not supported by delete"), and nothing changes.
    @Test(
        "kSecMatchLimitOne or a number in a SecItemUpdate or SecItemDelete query returns errSecParam (-50)",
        arguments: [Operation.update, .delete], [false, true])
    func narrowMatchLimitInUpdateOrDelete(operation: Operation, numeric: Bool) throws {
        try withKeychain {
            #expect(add(genericPassword(), secret: "x") == errSecSuccess)
            let limit: Any = numeric ? 1 : kSecMatchLimitOne
            #expect(operation(genericPassword([kSecMatchLimit as String: limit])) == errSecParam)
            #expect(attributes(genericPassword())?[kSecAttrLabel as String] == nil)
            #expect(count(genericPassword()) == 1)
        }
    }

    /// KeychainAccess's `removeAll()` on macOS (the branch Linux compiles) deletes with
    /// `kSecMatchLimit: kSecMatchLimitAll`; macOS accepts it (rule 6) and deletes every item of the service.
    @Test("removeAll with kSecMatchLimitAll on SecItemDelete deletes every item of the service and no other")
    func deleteAllWithMatchLimitAll() throws {
        try withKeychain {
            for account in ["a", "b", "c"] {
                #expect(add(genericPassword(account: account), secret: "x") == errSecSuccess)
            }
            #expect(add(genericPassword(service: "other", account: "a"), secret: "x") == errSecSuccess)
            let query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc",
                kSecMatchLimit as String: kSecMatchLimitAll,
            ]
            #expect(SecItemDelete(query as CFDictionary) == errSecSuccess)
            #expect(count(genericPassword(account: nil)) == 0)
            #expect(count(genericPassword(service: "other", account: nil)) == 1)
            #expect(SecItemDelete(query as CFDictionary) == errSecItemNotFound)
        }
    }

    /// kSecMatchCaseInsensitive is ignored in update and delete, as on macOS (docs/APPLE-SEMANTICS.md rules 6 and 14).
    @Test(
        "kSecMatchCaseInsensitive in a SecItemUpdate or SecItemDelete query is ignored, as on macOS",
        arguments: [Operation.update, .delete])
    func caseInsensitiveInUpdateOrDelete(operation: Operation) throws {
        try withKeychain {
            #expect(add(genericPassword(), secret: "x") == errSecSuccess)
            #expect(operation(genericPassword([kSecMatchCaseInsensitive as String: kCFBooleanTrue!])) == errSecSuccess)
            #expect(count(genericPassword()) == (operation == .delete ? 0 : 1))
        }
    }

    @Test(
        "A kSecMatch as String… key in SecItemAdd returns errSecParam (-50)",
        arguments: [kSecMatchLimit as String, kSecMatchCaseInsensitive as String])
    func matchKeyInAdd(key: String) throws {
        try withKeychain {
            let value: Any = key == kSecMatchLimit as String ? kSecMatchLimitOne : kCFBooleanTrue!
            #expect(add(genericPassword([key: value]), secret: "x") == errSecParam)
            #expect(count(genericPassword()) == 0)
        }
    }

    /// macOS removes every return key from update and delete queries (SecItem.cpp, pruneReturn; rule 6).
    @Test(
        "A return key in a SecItemUpdate or SecItemDelete query is ignored, as on macOS",
        arguments: [Operation.update, .delete])
    func returnKeyInUpdateOrDelete(operation: Operation) throws {
        try withKeychain {
            #expect(add(genericPassword(), secret: "x") == errSecSuccess)
            #expect(operation(genericPassword([kSecReturnData as String: kCFBooleanTrue!])) == errSecSuccess)
            #expect(count(genericPassword()) == (operation == .delete ? 0 : 1))
        }
    }

    /// securityd looks every key of attributesToUpdate up as an attribute (docs/APPLE-SEMANTICS.md rule 7).
    @Test(
        "kSecClass, a return key or a match key in attributesToUpdate returns errSecNoSuchAttr (-25303)",
        arguments: [kSecClass as String, kSecReturnData as String, kSecMatchLimit as String])
    func metaKeyInAttributesToUpdate(key: String) throws {
        let values: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecReturnData as String: kCFBooleanTrue!,
            kSecMatchLimit as String: kSecMatchLimitAll,
        ]
        try withKeychain {
            #expect(add(genericPassword(), secret: "x") == errSecSuccess)
            #expect(
                update(genericPassword(), [key: values[key]!, kSecValueData as String: Data("y".utf8)])
                    == errSecNoSuchAttr)
            #expect(secret(genericPassword()) == "x")
        }
    }

    @Test("More than 128 keys in a query returns errSecParam (-50)")
    func tooManyKeys() throws {
        try withKeychain {
            var query = genericPassword()
            for index in 0..<130 { query["x\(index)"] = "y" }
            #expect(copy(query).status == errSecParam)
        }
    }

    @Test("A certificate added without DER data is errSecParam (-50); an identity without a SecIdentity too")
    func certificateWithoutData() throws {
        // Certificates and identities are stored since tracker issue 18 (KeyItemTests); a certificate
        // item's attributes are derived from its DER, so one without data cannot be added.
        try withKeychain {
            #expect(add([kSecClass as String: kSecClassCertificate, kSecAttrLabel as String: "l"]) == errSecParam)
            #expect(add([kSecClass as String: kSecClassIdentity, kSecAttrLabel as String: "l"]) == errSecParam)
            #expect(count([kSecClass as String: kSecClassCertificate]) == 0)
        }
    }

    @Test("kSecAttrAccessControl that is not a SecAccessControl returns errSecParam (-50), nothing stored")
    func accessControlWrongType() throws {
        // securityd's query_add_attribute rejects a value of another CF type (SecDbQuery.c).
        try withKeychain {
            #expect(add(genericPassword([kSecAttrAccessControl as String: Data([1])]), secret: "x") == errSecParam)
            #expect(count(genericPassword()) == 0)
        }
    }
}
