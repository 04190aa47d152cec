import Foundation
import KeychainCore
import KeychainTesting
import Testing

@testable import KeychainServices

/// The shorter ways through `SecItemUpdate`'s parse (tracker issue 29, item 1): the new secret copied once
/// from its `CFData` into protected memory, attribute keys handed to the attribute step without the
/// parse's `switch`, and match and return keys pruned only when there are some. Each answers as the way it
/// replaces: the same statuses (wrong types, absent items, a locked keychain) and the same stored bytes.
@Suite("SecItemUpdate's parse")
struct UpdateParseTests {
    @Test("A CFData secret is copied into protected memory with the bytes the Data copy had; other types are refused")
    func secureBytesAreTheDataBytes() throws {
        let values: [Any] = [
            NSData(data: Data("secret".utf8)), Data("swift data".utf8), NSData(), Data(), NSMutableData(length: 3)!,
            NSData(data: Data((0..<200).map { UInt8(truncatingIfNeeded: $0) })),
        ]
        for value in values {
            let secure = try #require(SecItemRequest.secureBytes(value))
            let data = try #require(SecItemRequest.data(value))
            #expect(secure.unprotectedCopy == Array(data))
        }
        for value: Any in ["text", NSString(string: "text"), NSNumber(value: 1), true] {
            #expect(SecItemRequest.secureBytes(value) == nil)
            #expect(SecItemRequest.data(value) == nil)
        }
    }

    @Test("Every key the parse reads itself is recognized as such; no attribute of any class is, but those it reads")
    func ownKeysAndAttributes() {
        let ownKeys = [
            "r_Data", "r_Attributes", "r_PersistentRef", "r_Ref", "m_Limit", "v_Data", "v_PersistentRef", "v_Ref",
            "m_ItemList", "accc", "u_AuthUI", "u_NoAuthUI", "u_AuthCtx", "u_OpPrompt", "nleg", "m_CaseInsensitive",
            "m_Other", "sync", "pdmn", "agrp",
        ]
        for key in ownKeys { #expect(SecItemRequest.mayBeOwnKey(key), "\(key)") }
        let readByTheParse: Set = ["accc", "sync", "pdmn", "agrp"]
        for itemClass in ItemClass.allCases {
            for name in itemClass.attributes.map(\.name) where !readByTheParse.contains(name) {
                #expect(!SecItemRequest.mayBeOwnKey(name), "\(name)")
                #expect(!ownKeys.contains(name))
            }
        }
        // Keys that look like an own key only by their bytes still answer as the switch decides.
        for key in ["m", "", "ma", "m\u{301}_Limit", "svce\u{301}"] { #expect(!SecItemRequest.mayBeOwnKey(key)) }
        #expect(SecItemRequest.mayBeOwnKey("m_\u{301}x"))
        for key in ["m_Limit", "m_", "m_\u{301}x", "m\u{301}_x", "r_Data", "mx", "", "m"] {
            #expect(SecItemRequest.hasPrefix(key, "m", "_") == key.hasPrefix("m_"), "\(key)")
            #expect(SecItemRequest.hasPrefix(key, "r", "_") == key.hasPrefix("r_"), "\(key)")
        }
    }

    @Test("Queries with attribute, unknown and odd keys answer as before")
    func queryStatuses() throws {
        try withKeychain {
            #expect(add(genericPassword(), secret: "old") == errSecSuccess)
            let change = [kSecValueData as String: Data("new".utf8)]
            // An unknown attribute, one of another class, and a key that only starts with the bytes "m_".
            #expect(update(genericPassword(["zzzz": "x"]), change) == errSecNoSuchAttr)
            #expect(update(genericPassword([kSecAttrServer as String: "x"]), change) == errSecNoSuchAttr)
            let combining = "m_\u{301}x"
            #expect(
                update(genericPassword([combining: "x"]), change)
                    == (combining.hasPrefix("m_") ? errSecParam : errSecNoSuchAttr))
            #expect(update(genericPassword(["m_Other": "x"]), change) == errSecParam)
            // A wrongly typed attribute value, and the pruned keys.
            #expect(update(genericPassword([kSecAttrLabel as String: 5]), change) == errSecParam)
            #expect(
                update(genericPassword([kSecMatchLimit as String: kSecMatchLimitOne]), change) == errSecParam)
            #expect(
                update(
                    genericPassword([
                        kSecReturnData as String: true, kSecMatchLimit as String: kSecMatchLimitAll,
                        kSecMatchCaseInsensitive as String: true,
                    ]), change) == errSecSuccess)
            #expect(secret(genericPassword()) == "new")
            #expect(
                update(genericPassword([kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked]), change)
                    == errSecSuccess)
            #expect(update(genericPassword([kSecAttrAccessible as String: "nope"]), change) == errSecParam)
        }
    }

    @Test("A new secret: stored as given (CFData, Swift Data, empty); a wrong type, an absent item, no change")
    func changesStatuses() throws {
        try withKeychain {
            #expect(add(genericPassword(), secret: "old") == errSecSuccess)
            #expect(
                update(genericPassword(), [kSecValueData as String: NSData(data: Data("ns".utf8))]) == errSecSuccess)
            #expect(secret(genericPassword()) == "ns")
            #expect(update(genericPassword(), [kSecValueData as String: Data("swift".utf8)]) == errSecSuccess)
            #expect(secret(genericPassword()) == "swift")
            #expect(update(genericPassword(), [kSecValueData as String: Data()]) == errSecSuccess)
            #expect(secret(genericPassword()) == "")
            // A wrong type in the changes, beside a good value or alone: nothing is changed.
            #expect(update(genericPassword(), [kSecValueData as String: "text"]) == errSecParam)
            #expect(
                update(genericPassword(), [kSecValueData as String: Data("x".utf8), kSecAttrLabel as String: 5])
                    == errSecParam)
            #expect(update(genericPassword(), [kSecValueData as String: 7]) == errSecParam)
            #expect(update(genericPassword(), [:]) == errSecParam)
            #expect(update(genericPassword(), ["zzzz": Data("x".utf8)]) == errSecNoSuchAttr)
            #expect(secret(genericPassword()) == "")
            // An absent item, with the same change.
            #expect(
                update(genericPassword(account: "absent"), [kSecValueData as String: Data("x".utf8)])
                    == errSecItemNotFound)
            #expect(count(genericPassword(account: nil)) == 1)
        }
    }

    @Test("A locked keychain refuses the update with -25308 and keeps the secret")
    func lockedKeychain() throws {
        let keychain = try TemporaryKeychain()
        let password = SecureBytes(copying: Array("pw".utf8))
        try Keystore(location: keychain.location).setPassword(password, current: nil, parameters: .testing)
        try keychain.run { #expect(add(genericPassword(), secret: "kept") == errSecSuccess) }
        try Keystore(location: keychain.location).withdrawAllClassKeys()
        try keychain.run {
            #expect(
                update(genericPassword(), [kSecValueData as String: Data("new".utf8)]) == errSecInteractionNotAllowed)
            #expect(update(genericPassword(), [kSecValueData as String: "text"]) == errSecParam)
        }
        try Keystore(location: keychain.location).unlock(password: password)
        try keychain.run { #expect(secret(genericPassword()) == "kept") }
        try Keystore(location: keychain.location).withdrawAllClassKeys()
    }
}
