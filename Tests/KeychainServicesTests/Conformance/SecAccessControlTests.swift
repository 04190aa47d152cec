import Foundation
import KeychainServices
import Testing

/// `SecAccessControlCreateWithFlags` validation (APPLE-SEMANTICS.md rule 21), as Apple's
/// SecAccessControl.c does it
/// (https://developer.apple.com/documentation/security/secaccesscontrolcreatewithflags(_:_:_:_:)).
@Suite("SecAccessControlCreateWithFlags")
struct SecAccessControlTests {
    /// Calls it as iOS code does and returns the object or the CFError.
    func create(_ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags) -> (SecAccessControl?, CFError?) {
        var error: Unmanaged<CFError>?
        let access = SecAccessControlCreateWithFlags(kCFAllocatorDefault, protection, flags, &error)
        return (access, error?.takeRetainedValue())
    }

    @Test("SecAccessControlCreateFlags have SecAccessControl.h's bit values")
    func flagValues() {
        #expect(SecAccessControlCreateFlags.userPresence.rawValue == 1 << 0)
        #expect(SecAccessControlCreateFlags.biometryAny.rawValue == 1 << 1)
        #expect(SecAccessControlCreateFlags.biometryCurrentSet.rawValue == 1 << 3)
        #expect(SecAccessControlCreateFlags.devicePasscode.rawValue == 1 << 4)
        #expect(SecAccessControlCreateFlags.watch.rawValue == 1 << 5)
        #expect(SecAccessControlCreateFlags.or.rawValue == 1 << 14)
        #expect(SecAccessControlCreateFlags.and.rawValue == 1 << 15)
        #expect(SecAccessControlCreateFlags.privateKeyUsage.rawValue == 1 << 30)
        #expect(SecAccessControlCreateFlags.applicationPassword.rawValue == 1 << 31)
        #expect(SecAccessControlCreateFlags(rawValue: 1 << 4) == .devicePasscode)
    }

    @Test(
        "Every kSecAttrAccessible value is a valid protection",
        arguments: [
            kSecAttrAccessibleWhenUnlocked, kSecAttrAccessibleAfterFirstUnlock, kSecAttrAccessibleAlways,
            kSecAttrAccessibleWhenUnlockedThisDeviceOnly, kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
            kSecAttrAccessibleAlwaysThisDeviceOnly, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly,
        ].map { $0 as String })
    func validProtections(protection: String) {
        let (access, error) = create(protection as NSString, .userPresence)
        #expect(access != nil && error == nil)
    }

    @Test(
        "Valid combinations succeed: no flags, one constraint, .or/.and, .applicationPassword",
        arguments: [
            SecAccessControlCreateFlags(), [.userPresence], [.devicePasscode], [.biometryAny], [.biometryCurrentSet],
            [.biometryAny, .or, .devicePasscode], [.biometryCurrentSet, .and, .devicePasscode],
            [.userPresence, .applicationPassword],
            [.applicationPassword], [.userPresence, .privateKeyUsage],
        ])
    func validFlags(flags: SecAccessControlCreateFlags) {
        #expect(create(kSecAttrAccessibleWhenUnlocked, flags).0 != nil)
    }

    static let invalidArguments: [(String, SecAccessControlCreateFlags)] = [
        ("not-a-protection", .userPresence),
        ("ak", [.devicePasscode, .or, .and]),
        ("ak", [.biometryAny, .biometryCurrentSet]),
        ("ak", [.userPresence, .devicePasscode]),
        ("ak", [.userPresence, .biometryAny, .or]),
    ]

    @Test(
        "Invalid arguments give nil and a CFError in NSOSStatusErrorDomain with errSecParam (-50)",
        arguments: invalidArguments)
    func invalid(protection: String, flags: SecAccessControlCreateFlags) throws {
        let (access, error) = create(protection as NSString, flags)
        #expect(access == nil)
        let cfError = try #require(error)
        #expect(CFErrorGetDomain(cfError) as String == kCFErrorDomainOSStatus as String)
        #expect(CFErrorGetCode(cfError) == CFIndex(errSecParam))
    }

    @Test("A nil error pointer is allowed on failure")
    func nilErrorPointer() {
        #expect(SecAccessControlCreateWithFlags(nil, "bogus" as NSString, [], nil) == nil)
    }

    @Test("SecAccessControl is Hashable: equal when protection and flags are equal, usable in [String: AnyHashable]")
    func hashable() throws {
        let a = try #require(create(kSecAttrAccessibleWhenUnlocked, .userPresence).0)
        let b = try #require(create(kSecAttrAccessibleWhenUnlocked, .userPresence).0)
        let c = try #require(create(kSecAttrAccessibleAfterFirstUnlock, .userPresence).0)
        #expect(a == b && a.hashValue == b.hashValue)
        #expect(a != c)
        let query: [String: AnyHashable] = [kSecAttrAccessControl as String: a]
        #expect(query[kSecAttrAccessControl as String] == AnyHashable(b))
    }
}
