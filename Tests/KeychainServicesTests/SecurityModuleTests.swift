import Foundation
import KeychainTesting
import Security
import Testing

/// `import Security` alone gives iOS code the SecItem API (design brief: product `Security`,
/// module `Security`; https://developer.apple.com/documentation/security).
@Suite("The Security module")
struct SecurityModuleTests {
    @Test("Code that imports only Security adds and reads a password as on iOS")
    func importSecurityOnly() throws {
        try withKeychain {
            let query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: "com.example.security-module",
                kSecAttrAccount as String: "user",
            ]
            var attributes = query
            attributes[kSecValueData as String] = Data("pw".utf8)
            #expect(Security.SecItemAdd(attributes as CFDictionary, nil) == errSecSuccess)
            var read = query
            read[kSecReturnData as String] = true
            var result: CFTypeRef?
            #expect(Security.SecItemCopyMatching(read as CFDictionary, &result) == errSecSuccess)
            #expect((result as? Data) == Data("pw".utf8))
            #expect(Security.SecItemDelete(query as CFDictionary) == errSecSuccess)
        }
    }
}
