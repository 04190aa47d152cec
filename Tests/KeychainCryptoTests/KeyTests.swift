import Foundation
import Testing

@testable import KeychainCrypto

@Suite("Keys: generation and Apple's external representations")
struct KeyTests {
    @Test(
        "EC keys use ANSI X9.63: 04‖X‖Y public, 04‖X‖Y‖K private, with Apple's sizes",
        arguments: CryptoKey.Curve.allCases)
    func ecExternalRepresentation(curve: CryptoKey.Curve) throws {
        let key = Fixtures.ec(curve)
        let expected: (Int, Int, Int) =
            switch curve {
            case .p256: (65, 97, 32)
            case .p384: (97, 145, 48)
            case .p521: (133, 199, 66)
            }
        let publicBytes = try key.publicKeyBytes
        let privateBytes = try key.externalRepresentation().unprotectedCopy
        #expect(publicBytes.count == expected.0)
        #expect(privateBytes.count == expected.1)
        #expect(publicBytes.first == 0x04)
        #expect(Array(privateBytes.prefix(publicBytes.count)) == publicBytes)
        #expect(key.blockSize == expected.2)
        #expect(key.sizeInBits == curve.rawValue)

        let imported = try CryptoKey(externalRepresentation: privateBytes, rsa: false, isPrivate: true)
        #expect(imported == key)
        #expect(try imported.externalRepresentation().unprotectedCopy == privateBytes)
        let publicKey = try key.publicKey()
        #expect(!publicKey.isPrivate)
        #expect(try publicKey.externalRepresentation().unprotectedCopy == publicBytes)
        #expect(try CryptoKey(externalRepresentation: publicBytes, rsa: false, isPrivate: false) == publicKey)
    }

    @Test(
        "An EC private key from its scalar alone, kept in wiped-on-release storage: K = 1 gives the base point G (SEC 2)",
        arguments: CryptoKey.Curve.allCases)
    func ecPrivateScalar(curve: CryptoKey.Curve) throws {
        // SEC 2 v2 (https://www.secg.org/sec2-v2.pdf), sections 2.4.2, 2.5.1, 2.6.1: the base points.
        let generator: String =
            switch curve {
            case .p256:
                "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"
                    + "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5"
            case .p384:
                "aa87ca22be8b05378eb1c71ef320ad746e1d3b628ba79b9859f741e082542a385502f25dbf55296c3a545e3872760ab7"
                    + "3617de4a96262c6f5d9e98bf9292dc29f8f41dbd289a147ce9da3113b5f0b8c00a60b1ce1d7e819d7a431d7c90ea0e5f"
            case .p521:
                "00c6858e06b70404e9cd9e3ecb662395b4429c648139053fb521f828af606b4d3dbaa14b5e77efe75928fe1dc127a2ffa8de3348b3c1856a429bf97e7e31c2e5bd66"
                    + "011839296a789a3bc0045c8a5fb42c7d1bd998f54449579b446817afbd17273e662c97ee72995ef42640c550b9013fad0761353c7086a272c24088be94769fd16650"
            }
        let width = curve.coordinateBytes
        let one = [UInt8](repeating: 0, count: width - 1) + [1]
        let key = try CryptoKey(ecPrivateScalar: SensitiveBytes(copying: one), curve: curve)
        #expect(key.isPrivate)
        #expect(try key.publicKeyBytes == [0x04] + [UInt8](hex: generator))
        #expect(try key.externalRepresentation().unprotectedCopy == [0x04] + [UInt8](hex: generator) + one)
        // Zero, and a scalar of the wrong length, are not keys.
        #expect(throws: CryptoError.self) {
            try CryptoKey(ecPrivateScalar: SensitiveBytes(copying: [UInt8](repeating: 0, count: width)), curve: curve)
        }
        #expect(throws: CryptoError.self) {
            try CryptoKey(ecPrivateScalar: SensitiveBytes(copying: one + [0]), curve: curve)
        }
    }

    @Test("RSA keys use PKCS #1 DER; block size is the modulus length")
    func rsaExternalRepresentation() throws {
        let key = Fixtures.rsa2048
        #expect(key.kind == .rsa(bits: 2048))
        #expect(key.blockSize == 256)
        let privateBytes = try key.externalRepresentation().unprotectedCopy
        let publicBytes = try key.publicKeyBytes
        #expect(privateBytes.first == 0x30)
        #expect(publicBytes.first == 0x30)
        let imported = try CryptoKey(externalRepresentation: privateBytes, rsa: true, isPrivate: true)
        #expect(imported == key)
        #expect(try CryptoKey(externalRepresentation: publicBytes, rsa: true, isPrivate: false) == key.publicKey())
    }

    @Test("RSA sizes outside 1024…4096 or not a multiple of 8 are refused", arguments: [512, 1000, 4104])
    func rsaSizes(bits: Int) {
        #expect(throws: CryptoError.parameter("RSA key size \(bits) (1024 to 4096 bits, a multiple of 8)")) {
            try CryptoKey.generate(.rsa(bits: bits))
        }
    }

    @Test("malformed key data is a decode error: wrong length, not on the curve, mismatched scalar, trailing bytes")
    func malformed() throws {
        let good = try Fixtures.p256.externalRepresentation().unprotectedCopy
        var offCurve = Array(good.prefix(65))
        offCurve[64] ^= 1
        var wrongScalar = good
        wrongScalar[96] ^= 1
        for bytes in [[], [0x04], Array(good.prefix(64)), offCurve] {
            #expect(throws: CryptoError.self) {
                try CryptoKey(externalRepresentation: bytes, rsa: false, isPrivate: false)
            }
        }
        #expect(throws: CryptoError.self) {
            try CryptoKey(externalRepresentation: wrongScalar, rsa: false, isPrivate: true)
        }
        let rsa = try Fixtures.rsa2048.publicKeyBytes
        #expect(throws: CryptoError.self) {
            try CryptoKey(externalRepresentation: rsa + [0], rsa: true, isPrivate: false)
        }
        #expect(throws: CryptoError.self) { try CryptoKey(externalRepresentation: good, rsa: true, isPrivate: true) }
    }

    @Test("the application label is SHA-1 of the public key's external representation")
    func publicKeyHash() throws {
        for key in [Fixtures.p256, Fixtures.rsa2048] {
            #expect(try key.publicKeyHash == HashFunction.sha1.hash(key.publicKeyBytes))
            #expect(try key.publicKeyHash.count == 20)
        }
    }

    @Test(
        "keys we export load with openssl pkey/ec/rsa, and openssl's keys import into ours",
        .enabled(if: OpenSSLTool.available, "openssl is not installed"))
    func opensslInterop() throws {
        let tool = try OpenSSLTool()
        defer { tool.cleanUp() }
        // Ours → openssl: PKCS #8 PEM and SubjectPublicKeyInfo read by openssl pkey; the EC public point
        // printed by openssl equals our X9.63 bytes; PKCS #1 read by openssl rsa.
        for (name, key) in [("p256", Fixtures.p256), ("p384", Fixtures.p384), ("p521", Fixtures.p521)] {
            try tool.write("\(name).pem", try key.pkcs8PEM().unprotectedCopy)
            try tool.ok(["pkey", "-in", "\(name).pem", "-check", "-noout"])
            let point = try tool.ok(["ec", "-in", "\(name).pem", "-pubout", "-outform", "DER"])
            let publicBytes = try key.publicKeyBytes
            #expect(Array(point.suffix(publicBytes.count)) == publicBytes)
            try tool.write("\(name).spki", try key.subjectPublicKeyInfo)
            try tool.ok(["pkey", "-pubin", "-inform", "DER", "-in", "\(name).spki", "-noout"])
        }
        try tool.write("rsa.der", try Fixtures.rsa2048.externalRepresentation().unprotectedCopy)
        try tool.ok(["rsa", "-inform", "DER", "-in", "rsa.der", "-check", "-noout"])
        try tool.write("rsapub.der", try Fixtures.rsa2048.publicKeyBytes)
        let modulus = try tool.ok([
            "rsa", "-RSAPublicKey_in", "-inform", "DER", "-in", "rsapub.der", "-noout", "-modulus",
        ])
        #expect(!modulus.isEmpty)

        // openssl → ours.
        try tool.ok(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", "theirs.pem"])
        let der = try tool.ok(["pkey", "-in", "theirs.pem", "-outform", "DER"])
        let theirs = try CryptoKey(privateKeyDER: der)
        #expect(theirs.kind == .ec(.p384))
        let theirPublic = try tool.ok(["pkey", "-in", "theirs.pem", "-pubout", "-outform", "DER"])
        #expect(try CryptoKey(subjectPublicKeyInfo: theirPublic) == theirs.publicKey())
        try tool.ok(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "rsa.pem"])
        let pkcs1 = try tool.ok(["rsa", "-in", "rsa.pem", "-outform", "DER", "-traditional"])
        let rsa = try CryptoKey(externalRepresentation: pkcs1, rsa: true, isPrivate: true)
        #expect(rsa.kind == .rsa(bits: 2048))
        #expect(try rsa.externalRepresentation().unprotectedCopy == pkcs1)
    }

    @Test("algorithm raw values are Apple's strings and parse back")
    func algorithmRawValues() {
        #expect(KeyAlgorithm.ecdsaSignatureMessageX962(.sha256).rawValue == "algid:sign:ECDSA:message-X962:SHA256")
        #expect(KeyAlgorithm.rsaSignatureMessagePSS(.sha384).rawValue == "algid:sign:RSA:message-PSS:SHA384:SHA384:48")
        #expect(KeyAlgorithm.rsaSignatureDigestPKCS1v15Raw.rawValue == "algid:sign:RSA:digest-PKCS1v15")
        #expect(KeyAlgorithm.rsaEncryptionOAEP(.sha1).rawValue == "algid:encrypt:RSA:OAEP:SHA1")
        #expect(
            KeyAlgorithm.ecies(cofactor: true, variableIV: true, hash: .sha256).rawValue
                == "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV")
        #expect(
            KeyAlgorithm.ecies(cofactor: false, variableIV: false, hash: .sha1).rawValue
                == "algid:encrypt:ECIES:ECDH:KDFX963:SHA1:AESGCM")
        #expect(KeyAlgorithm.ecdh(cofactor: false, kdf: nil).rawValue == "algid:keyexchange:ECDH")
        #expect(KeyAlgorithm.ecdh(cofactor: true, kdf: .sha512).rawValue == "algid:keyexchange:ECDHC:KDFX963:SHA512")
        for algorithm in KeyAlgorithm.all { #expect(KeyAlgorithm(rawValue: algorithm.rawValue) == algorithm) }
        #expect(KeyAlgorithm.all.count == 73)
        #expect(KeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA1:AESGCM-KDFIV") == nil)
    }
}
