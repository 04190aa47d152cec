import Foundation
import KeychainServices
import Testing

/// CF names the wrappers use that are not SecItem's (issue 30: Locksmith's `kCFBundleIdentifierKey`).
@Suite("Core Foundation names wrappers use beside SecItem")
struct WrapperCoreFoundationNamesTests {
    @Test("kCFBundle…Key constants have CFBundle.h's values and read Bundle.main.infoDictionary as Locksmith does")
    func bundleKeys() {
        #expect(kCFBundleIdentifierKey as String == "CFBundleIdentifier")
        #expect(kCFBundleVersionKey as String == "CFBundleVersion")
        #expect(kCFBundleNameKey as String == "CFBundleName")
        #expect(kCFBundleExecutableKey as String == "CFBundleExecutable")
        #expect(kCFBundleInfoDictionaryVersionKey as String == "CFBundleInfoDictionaryVersion")
        #expect(kCFBundleDevelopmentRegionKey as String == "CFBundleDevelopmentRegion")
        #expect(kCFBundleLocalizationsKey as String == "CFBundleLocalizations")
        // Locksmith.swift:3, as written: the test runner has no Info.plist, so the fallback is taken.
        let service = Bundle.main.infoDictionary?[String(kCFBundleIdentifierKey)] as? String ?? "fallback"
        #expect(service == (Bundle.main.bundleIdentifier ?? "fallback"))
    }

    @Test("CFBundleGetMainBundle and its getters read the main bundle's Info.plist, as Bundle.main does")
    func mainBundle() {
        let bundle = CFBundleGetMainBundle()
        #expect(bundle === Bundle.main)
        #expect(CFBundleGetIdentifier(bundle).map { $0 as String } == Bundle.main.bundleIdentifier)
        let identifier = CFBundleGetValueForInfoDictionaryKey(bundle, kCFBundleIdentifierKey) as? String
        #expect(identifier == Bundle.main.bundleIdentifier)
        #expect(CFBundleGetValueForInfoDictionaryKey(bundle, "NoSuchInfoPlistKey" as CFString) == nil)
        #expect(
            (CFBundleGetInfoDictionary(bundle) as? [String: Any])?.count == (Bundle.main.infoDictionary?.count ?? 0))
    }

    @Test("kSecAttrAuthenticationType values are Apple's four-character codes")
    func authenticationTypes() {
        let types: [CFString] = [
            kSecAttrAuthenticationTypeNTLM, kSecAttrAuthenticationTypeMSN, kSecAttrAuthenticationTypeDPA,
            kSecAttrAuthenticationTypeRPA, kSecAttrAuthenticationTypeHTTPBasic, kSecAttrAuthenticationTypeHTTPDigest,
            kSecAttrAuthenticationTypeHTMLForm, kSecAttrAuthenticationTypeDefault,
        ]
        #expect(types.map { $0 as String } == ["ntlm", "msna", "dpaa", "rpaa", "http", "httd", "form", "dflt"])
    }

    @Test("CFEqual compares strings with strings, numbers by value, and never a CFBoolean with a CFNumber")
    func cfEqual() {
        #expect(CFEqual(kSecAttrAccount, "acct" as NSString))
        #expect(!CFEqual(kSecAttrAccount, kSecAttrService))
        #expect(CFEqual(kCFBooleanTrue, NSNumber(value: true)))
        #expect(!CFEqual(kCFBooleanTrue, NSNumber(value: 1)))
        #expect(CFEqual(NSNumber(value: 443), NSNumber(value: 443)))
        #expect(CFEqual(Data([1, 2]) as NSData, Data([1, 2]) as NSData))
        #expect(!CFEqual(Data([1]) as NSData, "x" as NSString))
        #expect(CFEqual(nil, nil) && !CFEqual(kSecClass, nil))
    }

    @Test("CFGetTypeID tells a string from a dictionary, as CFGetTypeID(x) == CFGetTypeID(y) does")
    func typeIDs() {
        #expect(CFGetTypeID(kSecClass) == CFGetTypeID(kSecAttrAccount))
        #expect(CFGetTypeID(kSecClass) != CFGetTypeID(NSDictionary()))
    }
}
