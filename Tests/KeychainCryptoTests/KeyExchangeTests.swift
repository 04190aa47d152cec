import Foundation
import Testing

@testable import KeychainCrypto

@Suite("Key exchange: ECDH standard and cofactor, X9.63 KDF")
struct KeyExchangeTests {
    @Test(
        "both parties derive the same secret, one block long; cofactor equals standard on the NIST curves",
        arguments: CryptoKey.Curve.allCases)
    func agreement(curve: CryptoKey.Curve) throws {
        let alice = Fixtures.ec(curve)
        let bob = try CryptoKey.generate(.ec(curve))
        let standard = KeyAlgorithm.ecdh(cofactor: false, kdf: nil)
        let ab = try alice.keyExchange(with: bob.publicKey(), algorithm: standard, requestedSize: nil, sharedInfo: nil)
        let ba = try bob.keyExchange(with: alice.publicKey(), algorithm: standard, requestedSize: nil, sharedInfo: nil)
        #expect(ab.count == curve.coordinateBytes)
        #expect(ab.unprotectedCopy == ba.unprotectedCopy)
        let cofactor = try alice.keyExchange(
            with: bob.publicKey(), algorithm: .ecdh(cofactor: true, kdf: nil), requestedSize: nil, sharedInfo: nil)
        #expect(cofactor.unprotectedCopy == ab.unprotectedCopy)
    }

    @Test("the X9.63 variants need kSecKeyKeyExchangeParameterRequestedSize and return that many bytes")
    func kdf() throws {
        let bob = try CryptoKey.generate(.ec(.p256)).publicKey()
        let algorithm = KeyAlgorithm.ecdh(cofactor: false, kdf: .sha256)
        #expect(throws: CryptoError.self) {
            try Fixtures.p256.keyExchange(with: bob, algorithm: algorithm, requestedSize: nil, sharedInfo: nil)
        }
        let secret = try Fixtures.p256.keyExchange(
            with: bob, algorithm: algorithm, requestedSize: 42, sharedInfo: [1, 2])
        #expect(secret.count == 42)
        let other = try Fixtures.p256.keyExchange(
            with: bob, algorithm: algorithm, requestedSize: 42, sharedInfo: [1, 3])
        #expect(secret.unprotectedCopy != other.unprotectedCopy)
        #expect(throws: CryptoError.self) {
            try Fixtures.p256.keyExchange(
                with: Fixtures.p384.publicKey(), algorithm: algorithm, requestedSize: 16, sharedInfo: nil)
        }
    }

    /// ANSI X9.63 KDF known answer, from NIST's CAVS 12.0 "ansx963_2001.rsp" (SHA-256, shared
    /// secret 192 bits, shared info 0, key data 128 bits), as used by OpenSSL's own KDF tests.
    @Test("X9.63 KDF reproduces the NIST CAVS known answer")
    func x963KnownAnswer() throws {
        let z = [UInt8](hex: "96c05619d56c328ab95fe84b18264b08725b85e33fd34f08")
        let expected = [UInt8](hex: "443024c3dae66b95e6f5670601558f71")
        let derived = try X963KDF.derive(secret: SensitiveBytes(copying: z), sharedInfo: [], hash: .sha256, count: 16)
        #expect(derived.unprotectedCopy == expected)
    }

    @Test(
        "ECDH and the X9.63 KDF agree with openssl pkeyutl -derive and openssl kdf",
        .enabled(if: OpenSSLTool.available, "openssl is not installed"))
    func opensslInterop() throws {
        let tool = try OpenSSLTool()
        defer { tool.cleanUp() }
        let bob = try CryptoKey.generate(.ec(.p384))
        try tool.write("alice.pem", try Fixtures.p384.pkcs8PEM().unprotectedCopy)
        try tool.write("bob.der", try bob.subjectPublicKeyInfo)
        try tool.ok(["pkey", "-pubin", "-inform", "DER", "-in", "bob.der", "-out", "bob.pem"])
        let theirs = try tool.ok(["pkeyutl", "-derive", "-inkey", "alice.pem", "-peerkey", "bob.pem"])
        let ours = try Fixtures.p384.keyExchange(
            with: bob.publicKey(), algorithm: .ecdh(cofactor: false, kdf: nil), requestedSize: nil, sharedInfo: nil)
        #expect(ours.unprotectedCopy == theirs)
        let info: [UInt8] = [0xde, 0xad, 0xbe, 0xef]
        let kdf = try tool.ok([
            "kdf", "-keylen", "40", "-kdfopt", "digest:SHA512", "-kdfopt", "hexsecret:\(theirs.hex)", "-kdfopt",
            "hexinfo:\(info.hex)", "-binary", "X963KDF",
        ])
        let derived = try Fixtures.p384.keyExchange(
            with: bob.publicKey(), algorithm: .ecdh(cofactor: false, kdf: .sha512), requestedSize: 40, sharedInfo: info)
        #expect(derived.unprotectedCopy == kdf)
    }
}
