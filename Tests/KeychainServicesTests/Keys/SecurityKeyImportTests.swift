import Foundation
import Security
import Testing

/// iOS code that imports only `Security` signs and verifies as on iOS (a CryptoKit-free signing
/// wrapper, as apps write it).
@Suite("SecKey through import Security")
struct SecurityKeyImportTests {
    @Test("Code that imports only Security creates a P-256 key, signs and verifies")
    func signWithSecurityOnly() throws {
        let attributes: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
            kSecAttrKeySizeInBits as String: 256,
        ]
        var error: Unmanaged<CFError>?
        guard let privateKey = Security.SecKeyCreateRandomKey(attributes as CFDictionary, &error) else {
            throw error!.takeRetainedValue() as any Error
        }
        let publicKey = try #require(SecKeyCopyPublicKey(privateKey))
        let message = Data("payload".utf8)
        let algorithm: SecKeyAlgorithm = .ecdsaSignatureMessageX962SHA256
        #expect(SecKeyIsAlgorithmSupported(privateKey, .sign, algorithm))
        let signature = try #require(SecKeyCreateSignature(privateKey, algorithm, message as CFData, &error)) as Data
        #expect(SecKeyVerifySignature(publicKey, algorithm, message as CFData, signature as CFData, &error))
        let exported = try #require(SecKeyCopyExternalRepresentation(publicKey, &error)) as Data
        #expect(exported.count == 65)
    }
}
