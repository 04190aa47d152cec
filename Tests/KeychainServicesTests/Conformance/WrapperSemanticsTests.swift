import Foundation
import KeychainServices
import KeychainTesting
import Testing

/// Behaviours iOS wrappers rely on (issue 16, "Behaving"): APPLE-SEMANTICS.md rules 18–21.
@Suite("Semantics wrappers rely on")
struct WrapperSemanticsTests {
    /// APPLE-SEMANTICS.md rule 18: securityd adds `v_Ref` only for classes that have references (keys,
    /// certificates, identities); SecItem.h: kSecReturnRef is for those classes.
    @Test("kSecReturnRef beside other return keys on a password succeeds; the result has no v_Ref")
    func returnRefWithOtherKeys() throws {
        try withKeychain {
            #expect(add(genericPassword(), secret: "pw") == errSecSuccess)
            let (status, result) = copy(
                genericPassword([
                    kSecReturnRef as String: kCFBooleanTrue!, kSecReturnData as String: kCFBooleanTrue!,
                    kSecReturnAttributes as String: kCFBooleanTrue!,
                ]))
            #expect(status == errSecSuccess)
            let found = try #require(result as? [String: Any])
            #expect((found[kSecValueData as String] as? Data) == Data("pw".utf8))
            #expect(found[kSecValueRef as String] == nil)
        }
    }

    @Test("kSecReturnRef alone on a password is errSecParam (-50): a password has no reference")
    func returnRefAlone() throws {
        try withKeychain {
            #expect(add(genericPassword(), secret: "pw") == errSecSuccess)
            #expect(copy(genericPassword([kSecReturnRef as String: kCFBooleanTrue!])).status == errSecParam)
        }
    }

    /// APPLE-SEMANTICS.md rule 19, securityd's `copyNumber` (SecDbItem.c): a string that prints back as
    /// the same Int32 becomes that number; any other string is kept as a string.
    @Test("A numeric string for a numeric attribute is stored as that number", arguments: ["crtr", "type"])
    func numericString(attribute: String) throws {
        try withKeychain {
            #expect(add(genericPassword([attribute: "1234"]), secret: "x") == errSecSuccess)
            let found = try #require(attributes(genericPassword()))
            #expect((found[attribute] as? NSNumber)?.intValue == 1234)
            #expect(count(genericPassword([attribute: 1234])) == 1)
            #expect(count(genericPassword([attribute: "1234"])) == 1)
        }
    }

    @Test("A non-numeric string for a numeric attribute is kept as a string and matches itself")
    func nonNumericString() throws {
        try withKeychain {
            #expect(
                add(
                    genericPassword([kSecAttrCreator as String: "Creator Test", kSecAttrType as String: "+12"]),
                    secret: "x") == errSecSuccess)
            let found = try #require(attributes(genericPassword()))
            #expect(found[kSecAttrCreator as String] as? String == "Creator Test")
            #expect(found[kSecAttrType as String] as? String == "+12")
            #expect(secret(genericPassword([kSecAttrCreator as String: "Creator Test"])) == "x")
            #expect(copy(genericPassword([kSecAttrCreator as String: "Other"])).status == errSecItemNotFound)
        }
    }

    /// APPLE-SEMANTICS.md rule 21: since iOS 11.3 the attributes of every item include
    /// kSecAttrAccessControl (derived from its accessibility);
    /// https://developer.apple.com/documentation/security/ksecattraccesscontrol.
    @Test("Returned attributes carry a SecAccessControl with the item's protection, for every item")
    func accessControlInAttributes() throws {
        try withKeychain {
            #expect(
                add(genericPassword([kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock]), secret: "x")
                    == errSecSuccess)
            let found = try #require(attributes(genericPassword()))
            let access = try #require(found[kSecAttrAccessControl as String] as? SecAccessControl)
            var error: Unmanaged<CFError>?
            let expected = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAfterFirstUnlock, [], &error)
            #expect(access == expected)
        }
    }

    @Test("An item added with kSecAttrAccessControl takes its protection class and returns the same object")
    func accessControlRoundTrip() throws {
        try withKeychain {
            var error: Unmanaged<CFError>?
            let access = try #require(
                SecAccessControlCreateWithFlags(
                    nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .devicePasscode, &error))
            #expect(add(genericPassword([kSecAttrAccessControl as String: access]), secret: "x") == errSecSuccess)
            let found = try #require(attributes(genericPassword()))
            #expect(found[kSecAttrAccessible as String] as? String == "aku")
            #expect(found[kSecAttrAccessControl as String] as? SecAccessControl == access)
        }
    }

    /// APPLE-SEMANTICS.md rule 21, SecDbQuery.c: kSecAttrAccessible beside a kSecAttrAccessControl of
    /// another protection is "conflicting kSecAccess and kSecAccessControl attributes" (errSecParam).
    @Test("kSecAttrAccessible that contradicts kSecAttrAccessControl is errSecParam (-50)")
    func conflictingProtection() throws {
        try withKeychain {
            var error: Unmanaged<CFError>?
            let access = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, [], &error))
            let attributes = genericPassword([
                kSecAttrAccessControl as String: access, kSecAttrAccessible as String: kSecAttrAccessibleAlways,
            ])
            #expect(add(attributes, secret: "x") == errSecParam)
        }
    }

    @Test("A delete or search carrying kSecAttrAccessControl matches by its protection class")
    func deleteWithAccessControl() throws {
        try withKeychain {
            var error: Unmanaged<CFError>?
            let access = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, [], &error))
            #expect(add(genericPassword([kSecAttrAccessControl as String: access]), secret: "x") == errSecSuccess)
            #expect(count(genericPassword([kSecAttrAccessControl as String: access])) == 1)
            #expect(delete(genericPassword([kSecAttrAccessControl as String: access])) == errSecSuccess)
            #expect(count(genericPassword()) == 0)
        }
    }

    @Test("Attributes read back, kSecAttrAccessControl included, can be passed to SecItemUpdate")
    func updateWithReadBackAttributes() throws {
        try withKeychain {
            #expect(add(genericPassword([kSecAttrLabel as String: "old"]), secret: "x") == errSecSuccess)
            var changes = try #require(attributes(genericPassword()))
            changes.removeValue(forKey: kSecClass as String)
            changes[kSecAttrLabel as String] = "new"
            #expect(update(genericPassword(), changes) == errSecSuccess)
            #expect(attributes(genericPassword())?[kSecAttrLabel as String] as? String == "new")
        }
    }
}
