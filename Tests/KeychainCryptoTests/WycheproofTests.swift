import Foundation
import Testing

@testable import KeychainCrypto

/// Published vectors from Project Wycheproof (github.com/C2SP/wycheproof, Apache-2.0), read from
/// outside the repository (`scripts/wycheproof`). "valid" must pass, "invalid" must fail;
/// "acceptable" cases (legacy encodings a library may accept or refuse) are not asserted.
@Suite(
    "Wycheproof vectors",
    .enabled(
        if: Wycheproof.isDownloaded,
        "the Wycheproof vectors are absent: run scripts/wycheproof (it needs github.com, which CI cannot reach) or set WYCHEPROOF_DIR"
    ))
struct WycheproofTests {
    struct Tally: CustomStringConvertible {
        var valid = 0
        var invalid = 0
        var description: String { "\(valid) valid, \(invalid) invalid" }
    }

    @Test(
        "ECDSA X9.62 verification (message variants)",
        arguments: [
            ("ecdsa_secp256r1_sha256_test", HashFunction.sha256), ("ecdsa_secp384r1_sha384_test", .sha384),
            ("ecdsa_secp521r1_sha512_test", .sha512),
        ])
    func ecdsa(file: String, hash: HashFunction) throws {
        try #require(Wycheproof.available(file), "Wycheproof \(file).json is absent: run scripts/wycheproof")
        var tally = Tally()
        for group in try Wycheproof.groups(file) {
            let publicKey = try #require(group["publicKey"] as? [String: Any])
            let key = try CryptoKey(
                externalRepresentation: [UInt8](hex: try #require(publicKey["uncompressed"] as? String)), rsa: false,
                isPrivate: false)
            for test in try #require(group["tests"] as? [[String: Any]]) {
                let message = [UInt8](hex: test["msg"] as! String)
                let signature = [UInt8](hex: test["sig"] as! String)
                let result = test["result"] as! String
                let verified =
                    (try? key.verify(signature, for: message, algorithm: .ecdsaSignatureMessageX962(hash))) != nil
                switch result {
                case "valid":
                    #expect(verified, "tcId \(test["tcId"]!)")
                    tally.valid += 1
                case "invalid":
                    #expect(!verified, "tcId \(test["tcId"]!)")
                    tally.invalid += 1
                default: break
                }
            }
        }
        #expect(tally.valid > 0 && tally.invalid > 0, "\(tally)")
    }

    @Test(
        "ECDH shared secrets (standard and cofactor)",
        arguments: [
            ("ecdh_secp256r1_test", CryptoKey.Curve.p256), ("ecdh_secp384r1_test", .p384),
            ("ecdh_secp521r1_test", .p521),
        ])
    func ecdh(file: String, curve: CryptoKey.Curve) throws {
        try #require(Wycheproof.available(file), "Wycheproof \(file).json is absent: run scripts/wycheproof")
        var tally = Tally()
        for group in try Wycheproof.groups(file) {
            for test in try #require(group["tests"] as? [[String: Any]]) {
                let result = test["result"] as! String
                guard result != "acceptable" else { continue }
                // Wycheproof's private scalars are minimal big-endian integers (sometimes with a sign byte).
                var scalar = [UInt8](hex: test["private"] as! String)
                while scalar.count > curve.coordinateBytes, scalar.first == 0 { scalar.removeFirst() }
                scalar = [UInt8](repeating: 0, count: max(0, curve.coordinateBytes - scalar.count)) + scalar
                let shared = try? derive(
                    scalar: scalar, peerSPKI: [UInt8](hex: test["public"] as! String), curve: curve)
                switch result {
                case "valid":
                    #expect(shared == [UInt8](hex: test["shared"] as! String), "tcId \(test["tcId"]!)")
                    tally.valid += 1
                default:
                    #expect(shared == nil, "tcId \(test["tcId"]!)")
                    tally.invalid += 1
                }
            }
        }
        #expect(tally.valid > 0 && tally.invalid > 0, "\(tally)")
    }

    /// ECDH of the private scalar with the peer's SubjectPublicKeyInfo.
    private func derive(scalar: [UInt8], peerSPKI: [UInt8], curve: CryptoKey.Curve) throws -> [UInt8] {
        let peer = try CryptoKey(subjectPublicKeyInfo: peerSPKI)
        let key = try CryptoKey(ecPrivateScalar: SensitiveBytes(copying: scalar), curve: curve)
        return try key.keyExchange(
            with: peer, algorithm: .ecdh(cofactor: false, kdf: nil), requestedSize: nil, sharedInfo: nil
        )
        .unprotectedCopy
    }

    @Test("RSA PKCS #1 v1.5 signatures (SHA-256, 2048 bits)")
    func rsaPKCS1() throws {
        try rsaSignatures("rsa_signature_2048_sha256_test", algorithm: .rsaSignatureMessagePKCS1v15(.sha256))
    }

    @Test("RSA PSS signatures (SHA-256, MGF1-SHA-256, 32-byte salt: Apple's rsaSignatureMessagePSSSHA256)")
    func rsaPSS() throws {
        try rsaSignatures("rsa_pss_2048_sha256_mgf1_32_test", algorithm: .rsaSignatureMessagePSS(.sha256))
    }

    private func rsaSignatures(_ file: String, algorithm: KeyAlgorithm) throws {
        try #require(Wycheproof.available(file), "Wycheproof \(file).json is absent: run scripts/wycheproof")
        var tally = Tally()
        for group in try Wycheproof.groups(file) {
            let key = try CryptoKey(
                externalRepresentation: [UInt8](hex: try #require(group["publicKeyAsn"] as? String)), rsa: true,
                isPrivate: false)
            for test in try #require(group["tests"] as? [[String: Any]]) {
                let result = test["result"] as! String
                let verified =
                    (try? key.verify(
                        [UInt8](hex: test["sig"] as! String), for: [UInt8](hex: test["msg"] as! String),
                        algorithm: algorithm)) != nil
                switch result {
                case "valid":
                    #expect(verified, "tcId \(test["tcId"]!)")
                    tally.valid += 1
                case "invalid":
                    #expect(!verified, "tcId \(test["tcId"]!)")
                    tally.invalid += 1
                default: break
                }
            }
        }
        #expect(tally.valid > 0 && tally.invalid > 0, "\(tally)")
    }

    @Test(
        "RSA OAEP decryption (empty labels, as Apple's algorithms use)",
        arguments: [
            ("rsa_oaep_2048_sha1_mgf1sha1_test", HashFunction.sha1), ("rsa_oaep_2048_sha256_mgf1sha256_test", .sha256),
        ])
    func oaep(file: String, hash: HashFunction) throws {
        try #require(Wycheproof.available(file), "Wycheproof \(file).json is absent: run scripts/wycheproof")
        var tally = Tally()
        for group in try Wycheproof.groups(file) {
            let key = try CryptoKey(privateKeyDER: [UInt8](hex: try #require(group["privateKeyPkcs8"] as? String)))
            for test in try #require(group["tests"] as? [[String: Any]]) where (test["label"] as? String) == "" {
                let result = test["result"] as! String
                let plaintext = try? key.decrypt(
                    [UInt8](hex: test["ct"] as! String), algorithm: .rsaEncryptionOAEP(hash))
                switch result {
                case "valid":
                    #expect(plaintext?.unprotectedCopy == [UInt8](hex: test["msg"] as! String), "tcId \(test["tcId"]!)")
                    tally.valid += 1
                case "invalid":
                    #expect(plaintext == nil, "tcId \(test["tcId"]!)")
                    tally.invalid += 1
                default: break
                }
            }
        }
        #expect(tally.valid > 0, "\(tally)")
    }
}
