import Foundation
import Testing

@testable import KeychainCrypto

@Suite("Signatures: Apple's ECDSA and RSA algorithms")
struct SignatureTests {
    static let message = Array("The quick brown fox jumps over the lazy dog".utf8)
    static let sha: [HashFunction] = [.sha1, .sha224, .sha256, .sha384, .sha512]

    static let ecAlgorithms: [KeyAlgorithm] =
        [.ecdsaSignatureRFC4754, .ecdsaSignatureDigestX962] + sha.map { .ecdsaSignatureDigestX962Hash($0) }
        + sha.map { .ecdsaSignatureMessageX962($0) }
    static let rsaAlgorithms: [KeyAlgorithm] =
        [.rsaSignatureDigestPKCS1v15Raw] + ([.md5] + sha).map { .rsaSignatureDigestPKCS1v15($0) }
        + ([.md5] + sha).map { .rsaSignatureMessagePKCS1v15($0) } + sha.map { .rsaSignatureDigestPSS($0) }
        + sha.map { .rsaSignatureMessagePSS($0) }

    /// The input an algorithm signs: the message, or a digest of the right length.
    static func input(_ algorithm: KeyAlgorithm) throws -> [UInt8] {
        switch algorithm {
        case .ecdsaSignatureDigestX962Hash(let hash), .rsaSignatureDigestPKCS1v15(let hash),
            .rsaSignatureDigestPSS(let hash):
            try hash.hash(message)
        case .ecdsaSignatureRFC4754, .ecdsaSignatureDigestX962, .rsaSignatureDigestPKCS1v15Raw:
            try HashFunction.sha256.hash(message)
        default: message
        }
    }

    @Test(
        "every ECDSA algorithm signs and verifies on every curve; a changed input or signature fails with errSecVerifyFailed",
        arguments: ecAlgorithms, CryptoKey.Curve.allCases)
    func ecdsa(algorithm: KeyAlgorithm, curve: CryptoKey.Curve) throws {
        let key = Fixtures.ec(curve)
        let input = try Self.input(algorithm)
        let signature = try key.sign(input, algorithm: algorithm)
        if algorithm == .ecdsaSignatureRFC4754 {
            #expect(signature.count == 2 * key.blockSize)
        } else {
            #expect(signature.first == 0x30)
        }
        try key.publicKey().verify(signature, for: input, algorithm: algorithm)
        try key.verify(signature, for: input, algorithm: algorithm)
        var changed = input
        changed[0] ^= 1
        #expect(throws: CryptoError.verifyFailed) { try key.verify(signature, for: changed, algorithm: algorithm) }
        var tampered = signature
        tampered[tampered.count - 1] ^= 1
        #expect(throws: CryptoError.verifyFailed) { try key.verify(tampered, for: input, algorithm: algorithm) }
    }

    @Test(
        "every RSA algorithm signs and verifies; a changed input or signature fails with errSecVerifyFailed",
        arguments: rsaAlgorithms)
    func rsa(algorithm: KeyAlgorithm) throws {
        let key = Fixtures.rsa2048
        let input = try Self.input(algorithm)
        let signature = try key.sign(input, algorithm: algorithm)
        #expect(signature.count == 256)
        try key.publicKey().verify(signature, for: input, algorithm: algorithm)
        var changed = input
        changed[0] ^= 1
        #expect(throws: CryptoError.verifyFailed) { try key.verify(signature, for: changed, algorithm: algorithm) }
        var tampered = signature
        tampered[7] ^= 1
        #expect(throws: CryptoError.verifyFailed) { try key.verify(tampered, for: input, algorithm: algorithm) }
    }

    @Test("PKCS #1 v1.5 signatures are deterministic: the same digest signed twice gives the same bytes")
    func pkcs1Deterministic() throws {
        let digest = try HashFunction.sha256.hash(Self.message)
        let algorithm = KeyAlgorithm.rsaSignatureDigestPKCS1v15(.sha256)
        #expect(
            try Fixtures.rsa2048.sign(digest, algorithm: algorithm)
                == Fixtures.rsa2048.sign(digest, algorithm: algorithm))
    }

    @Test("raw RSA signing is the private-key operation: verifying recovers the block")
    func rsaRaw() throws {
        var block = [UInt8](repeating: 0x11, count: 256)
        block[0] = 0x00
        let signature = try Fixtures.rsa2048.sign(block, algorithm: .rsaSignatureRaw)
        try Fixtures.rsa2048.verify(signature, for: block, algorithm: .rsaSignatureRaw)
        #expect(throws: CryptoError.parameter("raw RSA input must be 256 bytes")) {
            try Fixtures.rsa2048.sign([1, 2, 3], algorithm: .rsaSignatureRaw)
        }
    }

    @Test("a digest of the wrong length is errSecParam, as SecKeyAdaptors' \"bad digest size\"")
    func digestLength() throws {
        let algorithm = KeyAlgorithm.ecdsaSignatureDigestX962Hash(.sha256)
        #expect(throws: CryptoError.parameter("bad digest size for signing with algorithm \(algorithm.rawValue)")) {
            try Fixtures.p256.sign([UInt8](repeating: 1, count: 20), algorithm: algorithm)
        }
        #expect(CryptoError.parameter("").osStatus == -50)
    }

    @Test("algorithms of the other family, and signing with a public key, are unsupported (errSecUnimplemented)")
    func unsupported() throws {
        #expect(throws: CryptoError.self) {
            try Fixtures.p256.sign(Self.message, algorithm: .rsaSignatureMessagePSS(.sha256))
        }
        #expect(throws: CryptoError.self) {
            try Fixtures.rsa2048.sign(Self.message, algorithm: .ecdsaSignatureMessageX962(.sha256))
        }
        #expect(throws: CryptoError.self) {
            try Fixtures.p256.publicKey().sign(Self.message, algorithm: .ecdsaSignatureMessageX962(.sha256))
        }
        #expect(throws: CryptoError.self) { try Fixtures.p256.sign(Self.message, algorithm: .rsaEncryptionOAEP(.sha1)) }
        #expect(!Fixtures.p256.supports(.rsaSignatureRaw, privateOperation: false))
        #expect(try !Fixtures.p256.publicKey().supports(.ecdsaSignatureDigestX962, privateOperation: true))
        #expect(try Fixtures.p256.publicKey().supports(.ecdsaSignatureDigestX962, privateOperation: false))
        #expect(CryptoError.unsupported("").osStatus == -4)
        #expect(CryptoError.verifyFailed.osStatus == -67808)
    }

    @Test(
        "our signatures verify with openssl dgst -verify, and openssl's verify with ours",
        .enabled(if: OpenSSLTool.available, "openssl is not installed"))
    func opensslInterop() throws {
        let tool = try OpenSSLTool()
        defer { tool.cleanUp() }
        try tool.write("message", Self.message)
        let cases: [(String, CryptoKey, KeyAlgorithm, [String])] = [
            ("p256", Fixtures.p256, .ecdsaSignatureMessageX962(.sha256), ["-sha256"]),
            ("p384", Fixtures.p384, .ecdsaSignatureMessageX962(.sha384), ["-sha384"]),
            ("p521", Fixtures.p521, .ecdsaSignatureMessageX962(.sha512), ["-sha512"]),
            ("p256b", Fixtures.p256, .ecdsaSignatureMessageX962(.sha1), ["-sha1"]),
            ("rsa", Fixtures.rsa2048, .rsaSignatureMessagePKCS1v15(.sha256), ["-sha256"]),
            ("rsa5", Fixtures.rsa2048, .rsaSignatureMessagePKCS1v15(.sha512), ["-sha512"]),
            (
                "pss", Fixtures.rsa2048, .rsaSignatureMessagePSS(.sha256),
                [
                    "-sha256", "-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:32", "-sigopt",
                    "rsa_mgf1_md:sha256",
                ]
            ),
            (
                "pss384", Fixtures.rsa2048, .rsaSignatureMessagePSS(.sha384),
                [
                    "-sha384", "-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:48", "-sigopt",
                    "rsa_mgf1_md:sha384",
                ]
            ),
        ]
        for (name, key, algorithm, options) in cases {
            try tool.write("\(name).pem", try key.pkcs8PEM().unprotectedCopy)
            try tool.write("\(name).pub", try key.subjectPublicKeyInfo)
            try tool.write("\(name).sig", try key.sign(Self.message, algorithm: algorithm))
            let verified = try tool.ok(
                ["dgst"] + options + [
                    "-verify", "\(name).pub", "-keyform", "DER", "-signature", "\(name).sig", "message",
                ])
            #expect(String(decoding: verified, as: UTF8.self).contains("Verified OK"), "\(name)")
            let theirs = try tool.ok(["dgst"] + options + ["-sign", "\(name).pem", "message"])
            try key.publicKey().verify(theirs, for: Self.message, algorithm: algorithm)
        }
    }
}
