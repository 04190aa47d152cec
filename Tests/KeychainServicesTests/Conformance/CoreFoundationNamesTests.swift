import Foundation
import KeychainServices
import KeychainTesting
import Testing

/// The CF and Sec names iOS wrappers use, with Apple's types (CFBase.h, CFNumber.h, CFError.h,
/// SecBase.h, SecRandom.h). Each test is written as iOS code writes it: it must compile unchanged.
@Suite("Core Foundation names with Apple's types")
struct CoreFoundationNamesTests {
    @Test("kCFBooleanTrue is CFBoolean! as on Apple platforms: both kCFBooleanTrue and kCFBooleanTrue! work")
    func booleansAreImplicitlyUnwrapped() {
        let forced: CFBoolean = kCFBooleanTrue!
        let implicit: CFBoolean = kCFBooleanTrue
        let optional: CFBoolean? = kCFBooleanFalse
        #expect(forced.boolValue && implicit.boolValue)
        #expect(optional?.boolValue == false)
    }

    @Test("kSec… constants work as String, as AnyObject and as CFTypeRef, with Apple's raw values")
    func constantsAreCFStrings() {
        let asString = kSecClassGenericPassword as String
        let asObject: AnyObject = kSecClassGenericPassword
        let asTypeRef: CFTypeRef = kSecAttrAccessibleWhenUnlocked
        let query: [String: AnyObject] = [
            kSecClass as String: kSecClassGenericPassword, kSecReturnData as String: kCFBooleanTrue,
        ]
        let hashable: [String: AnyHashable] = [kSecClass as String: kSecClassInternetPassword]
        #expect(asString == "genp")
        #expect(asObject as? String == "genp")
        #expect(asTypeRef as? String == "ak")
        #expect(query[kSecClass as String] as? String == "genp")
        #expect(hashable[kSecClass as String] == AnyHashable("inet" as NSString))
    }

    @Test("A dictionary of CFString keys and values, as iOS code builds it, works with SecItem calls")
    func cfStringDictionary() throws {
        try withKeychain {
            let query: NSDictionary = [
                kSecClass: kSecClassGenericPassword, kSecAttrService: "svc" as NSString,
                kSecAttrAccount: "acct" as NSString,
                kSecValueData: Data("pw".utf8) as NSData,
            ]
            #expect(SecItemAdd(query, nil) == errSecSuccess)
            #expect(secret(genericPassword()) == "pw")
        }
    }

    @Test("CFBooleanGetValue reads kCFBooleanTrue and kCFBooleanFalse")
    func booleanGetValue() {
        #expect(CFBooleanGetValue(kCFBooleanTrue) && !CFBooleanGetValue(kCFBooleanFalse))
    }

    @Test("CFErrorCopyFailureReason and CFErrorCopyRecoverySuggestion read the user info, or give nil")
    func errorReasonAndSuggestion() throws {
        let info: NSDictionary = [
            NSLocalizedFailureReasonErrorKey: "locked" as NSString,
            NSLocalizedRecoverySuggestionErrorKey: "unlock it" as NSString,
        ]
        let error: CFError = try #require(CFErrorCreate(nil, kCFErrorDomainOSStatus, -25308, info))
        #expect(CFErrorCopyFailureReason(error) as String? == "locked")
        #expect(CFErrorCopyRecoverySuggestion(error) as String? == "unlock it")
        let bare: CFError = try #require(CFErrorCreate(nil, kCFErrorDomainOSStatus, -50, nil))
        #expect(CFErrorCopyFailureReason(bare) == nil)
    }

    @Test("kCFAllocatorDefault is nil, typed CFAllocator!, as in CFBase.h")
    func allocatorDefault() {
        let allocator: CFAllocator? = kCFAllocatorDefault
        #expect(allocator == nil)
    }

    @Test("CFError from CFErrorCreate: domain, code and user info read back; it converts to Error")
    func cfError() throws {
        let info: NSDictionary = [kCFErrorDescriptionKey: "bad parameter" as NSString]
        let error: CFError = try #require(CFErrorCreate(kCFAllocatorDefault, kCFErrorDomainOSStatus, -50, info))
        #expect(CFErrorGetDomain(error) as String == "NSOSStatusErrorDomain")
        #expect(CFErrorGetCode(error) == -50)
        let userInfo = CFErrorCopyUserInfo(error) as? [String: Any]
        #expect(userInfo?[kCFErrorDescriptionKey as String] as? String == "bad parameter")
        let unmanaged: Unmanaged<CFError>? = Unmanaged.passRetained(error)
        let swiftError = unmanaged!.takeRetainedValue() as any Error
        #expect((swiftError as NSError).code == -50)
    }

    @Test("CFOptionFlags, CFIndex and errSecInternalComponent have Apple's types and value")
    func basicTypes() {
        let flags: CFOptionFlags = SecAccessControlCreateFlags.userPresence.rawValue
        let _: CFIndex.Type = Int.self  // CFIndex is a signed word, as on Apple platforms (checked when compiling)
        #expect(flags == 1)
        #expect(errSecInternalComponent == -2070)
        #expect(SecCopyErrorMessageString(errSecInternalComponent, nil) as String? == "An internal component failed.")
    }

    @Test("SecRandomCopyBytes with kSecRandomDefault fills the buffer and returns errSecSuccess")
    func randomBytes() {
        var first = [UInt8](repeating: 0, count: 32)
        var second = [UInt8](repeating: 0, count: 32)
        #expect(SecRandomCopyBytes(kSecRandomDefault, first.count, &first) == errSecSuccess)
        #expect(SecRandomCopyBytes(kSecRandomDefault, second.count, &second) == errSecSuccess)
        // 2^-256 chance of a false failure: two 32-byte draws are equal or all zero.
        #expect(first != second)
        #expect(first != [UInt8](repeating: 0, count: 32))
    }
}
