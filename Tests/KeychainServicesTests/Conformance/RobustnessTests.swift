import Foundation
import KeychainServices
import KeychainTesting
import Testing

/// Malformed dictionaries: every call must return a documented status and never crash the process.
@Suite("Robustness against malformed dictionaries")
struct RobustnessTests {
    /// Keys: every SecItem key, plus strings that are no key at all.
    static let keys: [String] = [
        kSecClass as String, kSecAttrAccessible as String, kSecAttrAccessControl as String,
        kSecAttrAccessGroup as String, kSecAttrSynchronizable as String,
        kSecAttrCreationDate as String, kSecAttrModificationDate as String, kSecAttrDescription as String,
        kSecAttrComment as String, kSecAttrCreator as String,
        kSecAttrType as String, kSecAttrLabel as String, kSecAttrIsInvisible as String, kSecAttrIsNegative as String,
        kSecAttrAccount as String, kSecAttrService as String,
        kSecAttrGeneric as String, kSecAttrSecurityDomain as String, kSecAttrServer as String,
        kSecAttrProtocol as String, kSecAttrAuthenticationType as String,
        kSecAttrPort as String, kSecAttrPath as String, kSecMatchLimit as String, kSecMatchCaseInsensitive as String,
        kSecReturnData as String, kSecReturnAttributes as String,
        kSecReturnRef as String, kSecReturnPersistentRef as String, kSecValueData as String, kSecValueRef as String,
        kSecValuePersistentRef as String,
        kSecUseAuthenticationUI as String, kSecUseDataProtectionKeychain as String, "", "m_", "r_", "v_", "\u{0}",
        "x-unknown",
    ]

    /// Values of every awkward shape.
    static func values() -> [Any] {
        [
            NSNull(), [1, 2, 3], ["nested": ["deeper": [NSNull()]]], NSArray(array: [Data([1]), "s"]),
            NSNumber(value: UInt64.max), NSNumber(value: Int64.min), NSNumber(value: Double.nan),
            NSNumber(value: Double.infinity), NSNumber(value: -1.5), NSNumber(value: 1e300), -1, 0, 1, 2,
            "", "\u{0}", String(repeating: "x", count: 100_000), Data(), Data(count: 64),
            Data([0x67, 0x65, 0x6e, 0x70]), Data(count: 20), Date(), Date.distantPast, kCFBooleanTrue!,
            kCFBooleanFalse!,
            kSecClassGenericPassword, kSecClassInternetPassword, "cert", kSecMatchLimitAll, kSecAttrSynchronizableAny,
            NSDictionary(objects: ["v"], forKeys: [NSNumber(value: 1)]), NSObject(), UUID(),
            URL(fileURLWithPath: "/tmp"),
        ]
    }

    static let documented: Set<OSStatus> = [
        errSecSuccess, errSecParam, errSecDuplicateItem, errSecItemNotFound, errSecNoSuchAttr, errSecNoSuchClass,
        errSecUnimplemented, errSecMissingEntitlement, errSecDataTooLarge,
    ]

    func call(_ operation: Operation, _ dictionary: NSDictionary, withResult: Bool) -> OSStatus {
        var result: CFTypeRef?
        switch operation {
        case .add:
            return withResult ? SecItemAdd(dictionary, &result) : SecItemAdd(dictionary, nil)
        case .copy:
            return withResult ? SecItemCopyMatching(dictionary, &result) : SecItemCopyMatching(dictionary, nil)
        case .update:
            let first = SecItemUpdate(dictionary, [kSecAttrLabel as String: "l"] as CFDictionary)
            let second = SecItemUpdate(
                genericPassword(service: nil, account: nil) as CFDictionary, dictionary)
            return Self.documented.contains(second) ? first : second
        case .delete: return SecItemDelete(dictionary)
        }
    }

    @Test("Every key with every awkward value returns a documented status in each call", arguments: Operation.allCases)
    func oneBadValue(operation: Operation) throws {
        try withKeychain {
            #expect(add(genericPassword(), secret: "survivor") == errSecSuccess)
            var unexpected: [String] = []
            for key in Self.keys {
                for (index, value) in Self.values().enumerated() {
                    for base in [genericPassword(), internetPassword([:]), [:]] {
                        var dictionary = base
                        dictionary[key] = value
                        let status = call(operation, dictionary as NSDictionary, withResult: index % 2 == 0)
                        if !Self.documented.contains(status) { unexpected.append("\(key)=\(value): \(status)") }
                    }
                }
            }
            #expect(unexpected.isEmpty, "\(unexpected.prefix(10))")
        }
    }

    @Test("Dictionaries with non-string keys return errSecParam (-50)", arguments: Operation.allCases)
    func nonStringKeys(operation: Operation) throws {
        try withKeychain {
            let dictionaries: [NSDictionary] = [
                NSDictionary(
                    objects: [kSecClassGenericPassword, "acct"], forKeys: [kSecClass as NSString, NSNumber(value: 7)]),
                NSDictionary(
                    objects: [kSecClassGenericPassword, "x"], forKeys: [kSecClass as NSString, Data([1]) as NSData]),
                NSDictionary(objects: [kSecClassGenericPassword], forKeys: [NSNull()]),
            ]
            for dictionary in dictionaries {
                #expect(call(operation, dictionary, withResult: true) == errSecParam)
            }
        }
    }

    @Test("Random dictionaries built from SecItem keys and awkward values never crash and return documented statuses")
    func randomDictionaries() throws {
        var generator = SystemRandomNumberGenerator()
        let values = Self.values()
        try withKeychain {
            var unexpected: [String] = []
            for round in 0..<600 {
                var dictionary: [String: Any] = [:]
                for _ in 0..<Int.random(in: 1...8, using: &generator) {
                    dictionary[Self.keys.randomElement(using: &generator)!] = values.randomElement(using: &generator)!
                }
                if round % 3 == 0 { dictionary[kSecClass as String] = kSecClassGenericPassword }
                let operation = Operation.allCases[round % 4]
                let status = call(operation, dictionary as NSDictionary, withResult: round % 5 != 0)
                if !Self.documented.contains(status) {
                    unexpected.append("\(operation) \(dictionary.keys.sorted()): \(status)")
                }
            }
            #expect(unexpected.isEmpty, "\(unexpected.prefix(10))")
        }
    }
}
