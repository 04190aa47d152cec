import KeychainCore
import Testing

@testable import SecretService

/// The `dh-ietf1024-sha256-aes128-cbc-pkcs7` building blocks against published vectors
/// (RFC 5869 test case 3, NIST SP 800-38A F.2.1) and the spec's public-key range.
@Suite("Secret Service session cryptography")
struct SessionCryptoTests: SecretServiceSuite {
    static func bytes(_ secret: SecureBytes) -> [UInt8] { secret.withUnsafeBytes { Array($0) } }

    @Test("HKDF-SHA256 with no salt and empty info matches RFC 5869 test case 3")
    func hkdfVector() throws {
        let ikm = SecureBytes(copying: [UInt8](repeating: 0x0b, count: 22))
        let okm = try DHIETF1024KeyAgreement.hkdfSHA256(ikm, length: 42)
        #expect(
            Self.bytes(okm)
                == Self.hex("8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"))
    }

    @Test("AES-128-CBC matches NIST SP 800-38A F.2.1 and adds one PKCS #7 block to a full block")
    func aesVector() throws {
        let key = SecureBytes(copying: Self.hex("2b7e151628aed2a6abf7158809cf4f3c"))
        let iv = Self.hex("000102030405060708090a0b0c0d0e0f")
        let plaintext = Self.hex("6bc1bee22e409f96e93d7e117393172a")
        let ciphertext = try plaintext.withUnsafeBytes { try AES128CBC.encrypt($0, key: key, iv: iv) }
        #expect(ciphertext.count == 32)
        #expect(Array(ciphertext.prefix(16)) == Self.hex("7649abac8119b246cee98e9b12e9197d"))
        let decrypted = try ciphertext.withUnsafeBytes { c in
            try iv.withUnsafeBytes { try AES128CBC.decrypt(c, key: key, iv: $0) }
        }
        #expect(Self.bytes(decrypted) == plaintext)
    }

    @Test("A wrong key, a short IV or a truncated ciphertext is refused, never returned as data")
    func aesTampering() throws {
        let key = SecureBytes(copying: [UInt8](repeating: 1, count: 16))
        let iv = [UInt8](repeating: 2, count: 16)
        let ciphertext = try Array("secret".utf8).withUnsafeBytes { try AES128CBC.encrypt($0, key: key, iv: iv) }
        let other = SecureBytes(copying: [UInt8](repeating: 3, count: 16))
        // A wrong key leaves random padding: PKCS #7 rejects it except with probability about 2^-8.
        var refused = 0
        for byte in UInt8(3)..<UInt8(13) {
            let wrong = SecureBytes(copying: [UInt8](repeating: byte, count: 16))
            if (try? ciphertext.withUnsafeBytes { c in
                try iv.withUnsafeBytes { try AES128CBC.decrypt(c, key: wrong, iv: $0) }
            }) == nil {
                refused += 1
            }
        }
        #expect(refused >= 8)
        #expect(throws: SessionCryptoError.invalidParameters) {
            try ciphertext.withUnsafeBytes { c in
                try [UInt8](repeating: 0, count: 8).withUnsafeBytes { try AES128CBC.decrypt(c, key: other, iv: $0) }
            }
        }
        #expect(throws: SessionCryptoError.undecryptable) {
            try ciphertext.prefix(15).withUnsafeBytes { c in
                try iv.withUnsafeBytes { try AES128CBC.decrypt(c, key: key, iv: $0) }
            }
        }
    }

    @Test("Both sides of the DH exchange derive the same 16-byte key from 128-byte public keys")
    func agreement() throws {
        let service = try DHIETF1024KeyAgreement()
        let client = try DHIETF1024KeyAgreement()
        #expect(service.publicKey.count == 128)
        let a = try client.publicKey.withUnsafeBytes { try service.sessionKey(peerPublicKey: $0) }
        let b = try service.publicKey.withUnsafeBytes { try client.sessionKey(peerPublicKey: $0) }
        #expect(a.count == 16)
        #expect(a.constantTimeEquals(b))
        // Leading zeros do not change the key (clients send minimal big-endian integers).
        let padded = [0, 0] + client.publicKey
        let c = try padded.withUnsafeBytes { try service.sessionKey(peerPublicKey: $0) }
        #expect(c.constantTimeEquals(a))
    }

    static var outOfRangeKeys: [[UInt8]] {
        var pMinusOne = prime
        pMinusOne[pMinusOne.count - 1] -= 1
        return [[], [0], [1], [0, 0, 1], pMinusOne, prime, [0x01] + prime, [UInt8](repeating: 0xff, count: 300)]
    }

    @Test("Public keys outside 1 < y < p - 1 are rejected", arguments: outOfRangeKeys)
    func rejectsOutOfRange(key: [UInt8]) throws {
        let service = try DHIETF1024KeyAgreement()
        #expect(throws: SessionCryptoError.invalidPublicKey) {
            try key.withUnsafeBytes { try service.sessionKey(peerPublicKey: $0) }
        }
    }

    @Test("A DH session's encoded secret decodes to the same bytes with a fresh IV each time")
    func transportRoundTrip() throws {
        let key = SecureBytes.random(count: 16)
        let session = TransportSession(id: "1", owner: ":1.1", algorithm: .dhAES(key: key))
        let secret = SecureBytes(copying: Array("pa$$word".utf8))
        let first = try session.encode(secret)
        let second = try session.encode(secret)
        #expect(first.parameters.count == 16)
        #expect(first.parameters != second.parameters)
        let decoded = try first.parameters.withUnsafeBytes { p in
            try first.value.withUnsafeBytes { try session.decode(parameters: p, value: $0) }
        }
        #expect(decoded.constantTimeEquals(secret))
        let plain = TransportSession(id: "2", owner: ":1.1", algorithm: .plain)
        #expect(try plain.encode(secret).value == Array("pa$$word".utf8))
        #expect(try plain.encode(secret).parameters.isEmpty)
    }
}
