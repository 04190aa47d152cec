import Foundation
import KeychainServices
import Testing

/// SecKey conformance (SecKey.h): formats, sizes, attributes and error codes Apple documents.
@Suite("SecKey")
struct SecKeyTests {
    static func generate(_ type: CFString, _ bits: Int) throws -> SecKey {
        var error: Unmanaged<CFError>?
        let parameters: [String: Any] = [kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: bits]
        let key = SecKeyCreateRandomKey(parameters as CFDictionary, &error)
        #expect(error == nil)
        return try #require(key)
    }

    static func publicKey(_ key: SecKey) throws -> SecKey { try #require(SecKeyCopyPublicKey(key)) }

    static let p256 = try! generate(kSecAttrKeyTypeECSECPrimeRandom, 256)
    static let rsa = try! generate(kSecAttrKeyTypeRSA, 2048)

    /// The status of a failed call's `CFError`, checking Apple's domain.
    static func status(_ error: Unmanaged<CFError>?) -> Int? {
        guard let error = error?.takeRetainedValue() else { return nil }
        #expect(CFErrorGetDomain(error) as String == "NSOSStatusErrorDomain")
        return CFErrorGetCode(error)
    }

    @Test(
        "EC keys: X9.63 external representations of 65/97/133 and 97/145/199 bytes, block size 32/48/66",
        arguments: [(256, 65, 97, 32), (384, 97, 145, 48), (521, 133, 199, 66)])
    func ecSizes(bits: Int, publicLength: Int, privateLength: Int, blockSize: Int) throws {
        let key = try Self.generate(kSecAttrKeyTypeECSECPrimeRandom, bits)
        var error: Unmanaged<CFError>?
        let privateData = try #require(SecKeyCopyExternalRepresentation(key, &error)) as Data
        let publicKey = try Self.publicKey(key)
        let publicData = try #require(SecKeyCopyExternalRepresentation(publicKey, &error)) as Data
        #expect(privateData.count == privateLength)
        #expect(publicData.count == publicLength)
        #expect(publicData.first == 0x04)
        #expect(privateData.prefix(publicLength) == publicData)
        #expect(SecKeyGetBlockSize(key) == blockSize)
        let attributes: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
            kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
        ]
        let imported = try #require(SecKeyCreateWithData(privateData as CFData, attributes as CFDictionary, &error))
        #expect(imported == key)
        #expect(SecKeyCopyPublicKey(imported) == publicKey)
    }

    @Test("RSA keys: PKCS #1 external representation, block size 256 for 2048 bits; SPKI public keys import too")
    func rsa() throws {
        var error: Unmanaged<CFError>?
        let data = try #require(SecKeyCopyExternalRepresentation(Self.rsa, &error)) as Data
        #expect(data.first == 0x30)
        #expect(SecKeyGetBlockSize(Self.rsa) == 256)
        let publicData = try #require(SecKeyCopyExternalRepresentation(try Self.publicKey(Self.rsa), &error))
        let attributes: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
            kSecAttrKeySizeInBits as String: 2048,
        ]
        #expect(SecKeyCreateWithData(publicData, attributes as CFDictionary, &error) == SecKeyCopyPublicKey(Self.rsa))
    }

    @Test("SecKeyCopyAttributes reports class, type, size, application label (SHA-1 of the public key) and usage")
    func attributes() throws {
        let attributes = try #require(SecKeyCopyAttributes(Self.p256) as? [String: Any])
        #expect(attributes[kSecClass as String] as? String == kSecClassKey as String)
        #expect(attributes[kSecAttrKeyClass as String] as? String == "1")
        #expect(attributes[kSecAttrKeyType as String] as? String == "73")
        #expect((attributes[kSecAttrKeySizeInBits as String] as? NSNumber)?.intValue == 256)
        #expect((attributes[kSecAttrApplicationLabel as String] as? Data)?.count == 20)
        #expect((attributes[kSecAttrCanSign as String] as? NSNumber)?.boolValue == true)
        #expect((attributes[kSecAttrCanVerify as String] as? NSNumber)?.boolValue == false)
        #expect((attributes[kSecValueData as String] as? Data)?.count == 97)
        let publicAttributes = try #require(SecKeyCopyAttributes(try Self.publicKey(Self.p256)) as? [String: Any])
        #expect(publicAttributes[kSecAttrKeyClass as String] as? String == "0")
        #expect(
            publicAttributes[kSecAttrApplicationLabel as String] as? Data == attributes[
                kSecAttrApplicationLabel as String] as? Data)
    }

    @Test(
        "creation errors: missing type or size and bad sizes are errSecParam; the Secure Enclave is errSecUnimplemented"
    )
    func creationErrors() {
        var error: Unmanaged<CFError>?
        #expect(SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeEC] as CFDictionary, &error) == nil)
        #expect(Self.status(error) == -50)
        let badSize: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeySizeInBits as String: 192,
        ]
        #expect(SecKeyCreateRandomKey(badSize as CFDictionary, &error) == nil)
        #expect(Self.status(error) == -50)
        let enclave: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeySizeInBits as String: 256,
            kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
        ]
        #expect(SecKeyCreateRandomKey(enclave as CFDictionary, &error) == nil)
        #expect(Self.status(error) == -4)
        let attributes: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
        ]
        #expect(SecKeyCreateWithData(Data([4, 1, 2]) as CFData, attributes as CFDictionary, &error) == nil)
        #expect(Self.status(error) == -50)
        #expect(SecKeyCreateWithData(Data([4, 1, 2]) as CFData, [:] as CFDictionary, &error) == nil)
        #expect(Self.status(error) == -50)
    }

    @Test("kSecAttrApplicationTag and kSecAttrLabel given at creation are reported by SecKeyCopyAttributes")
    func creationAttributes() throws {
        var error: Unmanaged<CFError>?
        let parameters: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: "384",
            kSecAttrLabel as String: "top",
            kSecPrivateKeyAttrs as String: [kSecAttrApplicationTag as String: Data("com.example.key".utf8)],
        ]
        let key = try #require(SecKeyCreateRandomKey(parameters as CFDictionary, &error))
        let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
        #expect(attributes[kSecAttrApplicationTag as String] as? Data == Data("com.example.key".utf8))
        #expect(attributes[kSecAttrLabel as String] as? String == "top")
        #expect((attributes[kSecAttrKeySizeInBits as String] as? NSNumber)?.intValue == 384)
    }

    @Test("a non-extractable private key refuses export")
    func nonExtractable() throws {
        var error: Unmanaged<CFError>?
        let parameters: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeySizeInBits as String: 256,
            kSecPrivateKeyAttrs as String: [kSecAttrIsExtractable as String: false],
        ]
        let key = try #require(SecKeyCreateRandomKey(parameters as CFDictionary, &error))
        #expect(SecKeyCopyExternalRepresentation(key, &error) == nil)
        #expect(Self.status(error) == Int(errSecInteractionNotAllowed))
        #expect(SecKeyCopyExternalRepresentation(try Self.publicKey(key), &error) != nil)
    }

    @Test("sign and verify; a wrong signature is errSecVerifyFailed; another family's algorithm is errSecUnimplemented")
    func signatures() throws {
        var error: Unmanaged<CFError>?
        let message = Data("hello".utf8) as CFData
        for (key, algorithm) in [
            (Self.p256, SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256), (Self.rsa, .rsaSignatureMessagePSSSHA256),
            (Self.rsa, .rsaSignatureMessagePKCS1v15SHA512),
        ] {
            let signature = try #require(SecKeyCreateSignature(key, algorithm, message, &error))
            let publicKey = try Self.publicKey(key)
            #expect(SecKeyVerifySignature(publicKey, algorithm, message, signature, &error))
            #expect(!SecKeyVerifySignature(publicKey, algorithm, Data("hellO".utf8) as CFData, signature, &error))
            #expect(Self.status(error) == -67808)
        }
        #expect(SecKeyCreateSignature(Self.p256, .rsaSignatureMessagePSSSHA256, message, &error) == nil)
        #expect(Self.status(error) == -4)
        #expect(SecKeyCreateSignature(Self.p256, .ecdsaSignatureDigestX962SHA256, message, &error) == nil)
        #expect(Self.status(error) == -50)
        #expect(
            SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256.rawValue as String == "algid:sign:ECDSA:message-X962:SHA256"
        )
    }

    @Test("SecKeyIsAlgorithmSupported follows family, operation and key class")
    func supported() throws {
        let publicKey = try Self.publicKey(Self.p256)
        #expect(SecKeyIsAlgorithmSupported(Self.p256, .sign, .ecdsaSignatureMessageX962SHA256))
        #expect(!SecKeyIsAlgorithmSupported(publicKey, .sign, .ecdsaSignatureMessageX962SHA256))
        #expect(SecKeyIsAlgorithmSupported(publicKey, .verify, .ecdsaSignatureMessageX962SHA256))
        #expect(SecKeyIsAlgorithmSupported(publicKey, .encrypt, .eciesEncryptionStandardVariableIVX963SHA256AESGCM))
        #expect(SecKeyIsAlgorithmSupported(Self.p256, .decrypt, .eciesEncryptionCofactorX963SHA256AESGCM))
        #expect(SecKeyIsAlgorithmSupported(Self.p256, .keyExchange, .ecdhKeyExchangeStandardX963SHA256))
        #expect(!SecKeyIsAlgorithmSupported(Self.p256, .encrypt, .rsaEncryptionOAEPSHA256))
        #expect(!SecKeyIsAlgorithmSupported(Self.rsa, .sign, .rsaEncryptionOAEPSHA256))
        #expect(SecKeyIsAlgorithmSupported(Self.rsa, .decrypt, .rsaEncryptionOAEPSHA256))
    }

    @Test("encryption round-trips with OAEP and ECIES; ECIES output is ephemeral key ‖ ciphertext ‖ tag")
    func encryption() throws {
        var error: Unmanaged<CFError>?
        let plaintext = Data("top secret".utf8)
        for (key, algorithm) in [
            (Self.rsa, SecKeyAlgorithm.rsaEncryptionOAEPSHA256),
            (Self.p256, .eciesEncryptionStandardVariableIVX963SHA256AESGCM),
            (Self.p256, .eciesEncryptionCofactorX963SHA1AESGCM),
        ] {
            let ciphertext = try #require(
                SecKeyCreateEncryptedData(try Self.publicKey(key), algorithm, plaintext as CFData, &error))
            if key == Self.p256 { #expect((ciphertext as Data).count == 65 + plaintext.count + 16) }
            #expect(SecKeyCreateDecryptedData(key, algorithm, ciphertext, &error) as Data? == plaintext)
            var tampered = ciphertext as Data
            tampered[tampered.count - 1] ^= 1
            #expect(SecKeyCreateDecryptedData(key, algorithm, tampered as CFData, &error) == nil)
            #expect(Self.status(error) == -50)
        }
    }

    @Test("key exchange: both sides agree; the X9.63 variants return requestedSize bytes and need it")
    func keyExchange() throws {
        var error: Unmanaged<CFError>?
        let other = try Self.generate(kSecAttrKeyTypeECSECPrimeRandom, 256)
        let parameters =
            [
                SecKeyKeyExchangeParameter.requestedSize.rawValue as String: 32,
                SecKeyKeyExchangeParameter.sharedInfo.rawValue as String: Data("info".utf8),
            ] as CFDictionary
        let algorithm = SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA256
        let mine = try #require(
            SecKeyCopyKeyExchangeResult(Self.p256, algorithm, try Self.publicKey(other), parameters, &error))
        let theirs = try #require(
            SecKeyCopyKeyExchangeResult(other, algorithm, try Self.publicKey(Self.p256), parameters, &error))
        #expect((mine as Data).count == 32)
        #expect(mine as Data == theirs as Data)
        let raw = SecKeyCopyKeyExchangeResult(
            Self.p256, .ecdhKeyExchangeStandard, try Self.publicKey(other), [:] as CFDictionary, &error)
        #expect((raw as Data?)?.count == 32)
        #expect(
            SecKeyCopyKeyExchangeResult(Self.p256, algorithm, try Self.publicKey(other), [:] as CFDictionary, &error)
                == nil)
        #expect(Self.status(error) == -50)
    }
}
