import Foundation
import Testing

@testable import KeychainCrypto

@Suite("Encryption: RSA PKCS #1 and OAEP, Apple's ECIES")
struct EncryptionTests {
    static let plaintext = Array("attack at dawn, bring snacks".utf8)
    static let sha: [HashFunction] = [.sha1, .sha224, .sha256, .sha384, .sha512]

    @Test(
        "RSA PKCS #1 and OAEP with every hash round-trip; ciphertexts are one block",
        arguments: [KeyAlgorithm.rsaEncryptionPKCS1] + sha.map { .rsaEncryptionOAEP($0) })
    func rsa(algorithm: KeyAlgorithm) throws {
        let key = Fixtures.rsa2048
        let ciphertext = try key.publicKey().encrypt(Self.plaintext, algorithm: algorithm)
        #expect(ciphertext.count == 256)
        #expect(try key.decrypt(ciphertext, algorithm: algorithm).unprotectedCopy == Self.plaintext)
        var tampered = ciphertext
        tampered[100] ^= 1
        #expect(throws: CryptoError.self) { try key.decrypt(tampered, algorithm: algorithm) }
        #expect(throws: CryptoError.self) { try key.publicKey().decrypt(ciphertext, algorithm: algorithm) }
    }

    @Test("OAEP refuses a plaintext longer than block size − 2·hash − 2 (errSecParam)")
    func oaepLength() throws {
        let key = Fixtures.rsa2048
        _ = try key.encrypt([UInt8](repeating: 7, count: 256 - 2 * 32 - 2), algorithm: .rsaEncryptionOAEP(.sha256))
        #expect(throws: CryptoError.self) {
            try key.encrypt([UInt8](repeating: 7, count: 256 - 2 * 32 - 1), algorithm: .rsaEncryptionOAEP(.sha256))
        }
    }

    @Test("raw RSA encryption needs one block and round-trips it")
    func rsaRaw() throws {
        var block = [UInt8](repeating: 0x42, count: 256)
        block[0] = 0
        let ciphertext = try Fixtures.rsa2048.encrypt(block, algorithm: .rsaEncryptionRaw)
        #expect(try Fixtures.rsa2048.decrypt(ciphertext, algorithm: .rsaEncryptionRaw).unprotectedCopy == block)
        #expect(throws: CryptoError.self) { try Fixtures.rsa2048.encrypt([1], algorithm: .rsaEncryptionRaw) }
    }

    static let eciesAlgorithms: [KeyAlgorithm] = [false, true].flatMap { cofactor in
        sha.map { KeyAlgorithm.ecies(cofactor: cofactor, variableIV: false, hash: $0) }
            + sha.dropFirst().map { KeyAlgorithm.ecies(cofactor: cofactor, variableIV: true, hash: $0) }
    }

    @Test(
        "ECIES: ephemeral key ‖ ciphertext ‖ 16-byte tag, round-trips on every curve; tampering fails",
        arguments: eciesAlgorithms, CryptoKey.Curve.allCases)
    func ecies(algorithm: KeyAlgorithm, curve: CryptoKey.Curve) throws {
        let key = Fixtures.ec(curve)
        let ciphertext = try key.publicKey().encrypt(Self.plaintext, algorithm: algorithm)
        let pointLength = 1 + 2 * curve.coordinateBytes
        #expect(ciphertext.count == pointLength + Self.plaintext.count + 16)
        #expect(ciphertext[0] == 0x04)
        #expect(try key.decrypt(ciphertext, algorithm: algorithm).unprotectedCopy == Self.plaintext)
        for index in [pointLength + 1, ciphertext.count - 1] {
            var tampered = ciphertext
            tampered[index] ^= 1
            #expect(throws: CryptoError.decryptFailed("ECIES authentication tag")) {
                try key.decrypt(tampered, algorithm: algorithm)
            }
        }
        #expect(throws: CryptoError.self) {
            try key.decrypt(Array(ciphertext.prefix(pointLength + 15)), algorithm: algorithm)
        }
    }

    @Test("ECIES of an empty message is the ephemeral key and a tag")
    func eciesEmpty() throws {
        let algorithm = KeyAlgorithm.ecies(cofactor: false, variableIV: true, hash: .sha256)
        let ciphertext = try Fixtures.p256.encrypt([], algorithm: algorithm)
        #expect(ciphertext.count == 65 + 16)
        #expect(try Fixtures.p256.decrypt(ciphertext, algorithm: algorithm).count == 0)
    }

    /// Apple's construction, computed independently with Python's `cryptography` package (X9.63
    /// KDF, ECDH, AES-GCM with a 16-byte nonce): the standard variant uses a zero IV and AES-128
    /// for P-256, AES-256 above; the VariableIV variant takes the IV from KDF bytes after the key.
    @Test(
        "ECIES matches an independent implementation of Apple's construction (Python cryptography)",
        .enabled(if: Self.pythonCryptography, "python3 with the cryptography package is not installed"),
        arguments: [
            (KeyAlgorithm.ecies(cofactor: false, variableIV: false, hash: .sha256), CryptoKey.Curve.p256),
            (.ecies(cofactor: false, variableIV: true, hash: .sha256), .p256),
            (.ecies(cofactor: true, variableIV: true, hash: .sha384), .p384),
            (.ecies(cofactor: false, variableIV: false, hash: .sha512), .p521),
        ])
    func eciesIndependent(algorithm: KeyAlgorithm, curve: CryptoKey.Curve) throws {
        guard case .ecies(_, let variableIV, let hash) = algorithm else { return }
        let key = Fixtures.ec(curve)
        let tool = try OpenSSLTool()
        defer { tool.cleanUp() }
        try tool.write("key.pem", try key.pkcs8PEM().unprotectedCopy)
        let ciphertext = try key.encrypt(Self.plaintext, algorithm: algorithm)
        let script = """
            import sys
            from cryptography.hazmat.primitives import hashes, serialization
            from cryptography.hazmat.primitives.asymmetric import ec
            from cryptography.hazmat.primitives.kdf.x963kdf import X963KDF
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM
            from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
            key = serialization.load_pem_private_key(open(sys.argv[1], 'rb').read(), None)
            data = bytes.fromhex(sys.argv[2]); variable = sys.argv[3] == '1'; h = getattr(hashes, sys.argv[4])()
            n = (key.curve.key_size + 7) // 8; plen = 1 + 2 * n
            eph = ec.EllipticCurvePublicKey.from_encoded_point(key.curve, data[:plen])
            z = key.exchange(ec.ECDH(), eph)
            klen = 16 if key.curve.key_size <= 256 else 32
            m = X963KDF(algorithm=h, length=klen + 16, sharedinfo=data[:plen]).derive(z)
            iv = m[klen:klen + 16] if variable else bytes(16)
            body, tag = data[plen:-16], data[-16:]
            d = Cipher(algorithms.AES(m[:klen]), modes.GCM(iv, tag)).decryptor()
            sys.stdout.write((d.update(body) + d.finalize()).hex())
            """
        try tool.write("ecies.py", script)
        let result = try Self.python([
            tool.path("ecies.py"), tool.path("key.pem"), ciphertext.hex, variableIV ? "1" : "0", hash.rawValue,
        ])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == Self.plaintext.hex)
    }

    static let pythonCryptography: Bool = {
        (try? python(["-c", "import cryptography.hazmat.primitives.kdf.x963kdf"]).status) == 0
    }()

    static func python(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let error = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: error, as: UTF8.self)
        )
    }

    @Test(
        "our OAEP ciphertexts decrypt with openssl pkeyutl, and openssl's decrypt with ours",
        .enabled(if: OpenSSLTool.available, "openssl is not installed"),
        arguments: [HashFunction.sha1, .sha256, .sha512])
    func opensslOAEP(hash: HashFunction) throws {
        let tool = try OpenSSLTool()
        defer { tool.cleanUp() }
        let key = Fixtures.rsa2048
        let name = hash.rawValue.lowercased()
        let options = [
            "-pkeyopt", "rsa_padding_mode:oaep", "-pkeyopt", "rsa_oaep_md:\(name)", "-pkeyopt", "rsa_mgf1_md:\(name)",
        ]
        try tool.write("key.pem", try key.pkcs8PEM().unprotectedCopy)
        try tool.write("pub.der", try key.subjectPublicKeyInfo)
        try tool.write("ours.bin", try key.encrypt(Self.plaintext, algorithm: .rsaEncryptionOAEP(hash)))
        #expect(
            try tool.ok(["pkeyutl", "-decrypt", "-inkey", "key.pem", "-in", "ours.bin"] + options) == Self.plaintext)
        try tool.write("plain", Self.plaintext)
        let theirs = try tool.ok(
            ["pkeyutl", "-encrypt", "-pubin", "-keyform", "DER", "-inkey", "pub.der", "-in", "plain"] + options)
        #expect(try key.decrypt(theirs, algorithm: .rsaEncryptionOAEP(hash)).unprotectedCopy == Self.plaintext)
    }
}
