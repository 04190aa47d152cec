import Foundation
import KeychainItems
import KeychainServices
import KeychainTestProcess
import KeychainTesting
import Testing

/// `kSecAttrTokenIDSecureEnclave` keys made and used inside a TPM 2.0 (tracker issue 28), each test on
/// a swtpm of its own. The behaviour is Apple's (kSecAttrTokenIDSecureEnclave, "Protecting keys with
/// the Secure Enclave", SecKeyCopyExternalRepresentation): 256-bit EC keys only, generated inside,
/// signing and key agreement inside, the private key never exported.
@Suite("Secure Enclave keys in a TPM (swtpm)")
struct SecureEnclaveKeyTests {
    /// P-256 `SubjectPublicKeyInfo` DER before the 65-byte point (RFC 5480: id-ecPublicKey, prime256v1).
    private static let spkiPrefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48,
        0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]

    private static func enclaveAttributes(_ extra: [String: Any] = [:], privateAttributes: [String: Any] = [:])
        -> [String: Any]
    {
        var attributes: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
            kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
        ]
        if !privateAttributes.isEmpty { attributes[kSecPrivateKeyAttrs as String] = privateAttributes }
        return attributes.merging(extra) { $1 }
    }

    /// `SecKeyCreateRandomKey`'s key, or its error's status and description.
    private static func create(_ attributes: [String: Any]) -> (key: SecKey?, status: Int, message: String) {
        var error: Unmanaged<CFError>?
        let key = SecKeyCreateRandomKey(attributes as CFDictionary, &error)
        guard let failure = error?.takeRetainedValue() else { return (key, 0, "") }
        return (key, CFErrorGetCode(failure), String(describing: failure))
    }

    /// Runs `body` with a fresh keychain and a swtpm of its own as the enclave keys' TPM.
    private static func withTPM<R>(_ body: (TemporaryKeychain, SoftwareTPM) throws -> R) throws -> R {
        let keychain = try TemporaryKeychain()
        let tpm = try SoftwareTPM(in: keychain.directory + "/tpm")
        defer { tpm.stop() }
        return try EnclaveKey.$tctiOverride.withValue(tpm.tcti) { try keychain.run { try body(keychain, tpm) } }
    }

    /// Runs `openssl` with `arguments` in `directory`; its stdout, or a failed expectation.
    private static func openssl(_ arguments: [String], in directory: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "openssl \(arguments.joined(separator: " ")) failed")
        return data
    }

    private static func publicBytes(_ key: SecKey) throws -> Data {
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        return try #require(SecKeyCopyExternalRepresentation(publicKey, nil) as Data?)
    }

    // MARK: - Refusals

    @Test(
        "a Secure Enclave key other than 256-bit EC is refused with errSecParam, as iOS refuses it",
        arguments: [("RSA", 2048), ("EC", 384), ("EC", 521)])
    func wrongTypeOrSize(name: String, bits: Int) throws {
        let type = name == "RSA" ? kSecAttrKeyTypeRSA : kSecAttrKeyTypeECSECPrimeRandom
        try withKeychain {
            let outcome = Self.create(
                Self.enclaveAttributes([kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: bits]))
            #expect(outcome.key == nil)
            #expect(outcome.status == Int(errSecParam))
            #expect(outcome.message.contains("256-bit"))
        }
    }

    @Test("without a TPM a Secure Enclave key answers errSecUnimplemented and says there is no TPM")
    func noTPM() throws {
        // The test process runs with KEYCHAIN_TCTI=none (Tests/TestKeyring).
        try withKeychain {
            let outcome = Self.create(Self.enclaveAttributes())
            #expect(outcome.key == nil)
            #expect(outcome.status == Int(errSecUnimplemented))
            #expect(outcome.message.contains("Secure Enclave keys are not available on this device: no TPM 2.0"))
        }
    }

    @Test("a Secure Enclave key that is not ThisDeviceOnly, or synchronizable, is refused with errSecParam")
    func notThisDeviceOnly() throws {
        try withKeychain {
            let access = try #require(
                SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .privateKeyUsage, nil))
            let migratable = Self.create(
                Self.enclaveAttributes(privateAttributes: [
                    kSecAttrIsPermanent as String: true, kSecAttrAccessControl as String: access,
                ]))
            #expect(migratable.status == Int(errSecParam))
            let synchronizable = Self.create(Self.enclaveAttributes([kSecAttrSynchronizable as String: true]))
            #expect(synchronizable.status == Int(errSecParam))
        }
    }

    // MARK: - Operations

    @Test("an enclave key signs inside the TPM; openssl verifies both ECDSA algorithms with its public key")
    func signVerifiedByOpenSSL() throws {
        try Self.withTPM { keychain, _ in
            let outcome = Self.create(Self.enclaveAttributes())
            let key = try #require(outcome.key, "\(outcome.message)")
            let point = try Self.publicBytes(key)
            #expect(point.count == 65 && point.first == 0x04)
            let folder = keychain.directory
            try Data(Self.spkiPrefix + point).write(to: URL(fileURLWithPath: folder + "/public.der"))
            _ = try Self.openssl(
                ["pkey", "-pubin", "-inform", "DER", "-in", "public.der", "-out", "public.pem"], in: folder)
            let message = Data("sign me inside the TPM".utf8)
            try message.write(to: URL(fileURLWithPath: folder + "/message"))

            var error: Unmanaged<CFError>?
            let signature = try #require(
                SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message as CFData, &error) as Data?)
            try signature.write(to: URL(fileURLWithPath: folder + "/message.sig"))
            let verified = try Self.openssl(
                ["dgst", "-sha256", "-verify", "public.pem", "-signature", "message.sig", "message"], in: folder)
            #expect(String(decoding: verified, as: UTF8.self) == "Verified OK\n")

            let digest = try Self.openssl(["dgst", "-sha256", "-binary", "message"], in: folder)
            let digestSignature = try #require(
                SecKeyCreateSignature(key, .ecdsaSignatureDigestX962SHA256, digest as CFData, &error) as Data?)
            #expect(
                SecKeyVerifySignature(
                    key, .ecdsaSignatureMessageX962SHA256, message as CFData, digestSignature as CFData, &error))
            #expect(
                !SecKeyVerifySignature(
                    key, .ecdsaSignatureMessageX962SHA256, Data("another".utf8) as CFData, signature as CFData, nil))
            // A digest of the wrong length for ...DigestX962SHA256: errSecParam, before the TPM is asked.
            #expect(
                SecKeyCreateSignature(key, .ecdsaSignatureDigestX962SHA256, Data(count: 20) as CFData, &error) == nil)
            #expect(error.map { CFErrorGetCode($0.takeRetainedValue()) } == Int(errSecParam))
        }
    }

    @Test("ECDH inside the TPM agrees the secret openssl derives with a software peer")
    func keyExchangeWithOpenSSLPeer() throws {
        try Self.withTPM { keychain, _ in
            let key = try #require(Self.create(Self.enclaveAttributes()).key)
            let folder = keychain.directory
            try Data(Self.spkiPrefix + Self.publicBytes(key)).write(to: URL(fileURLWithPath: folder + "/ours.der"))
            _ = try Self.openssl(
                ["pkey", "-pubin", "-inform", "DER", "-in", "ours.der", "-out", "ours.pem"], in: folder)
            _ = try Self.openssl(
                ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "peer.pem"], in: folder)
            let peerDER = try Self.openssl(["pkey", "-in", "peer.pem", "-pubout", "-outform", "DER"], in: folder)
            let expected = try Self.openssl(
                ["pkeyutl", "-derive", "-inkey", "peer.pem", "-peerkey", "ours.pem"], in: folder)
            #expect(expected.count == 32)

            let peerAttributes: [String: Any] = [
                kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
            ]
            let peer = try #require(
                SecKeyCreateWithData(peerDER.suffix(65) as CFData, peerAttributes as CFDictionary, nil))
            var error: Unmanaged<CFError>?
            let standard = SecKeyCopyKeyExchangeResult(key, .ecdhKeyExchangeStandard, peer, [:] as CFDictionary, &error)
            #expect(standard as Data? == expected)
            let cofactor = SecKeyCopyKeyExchangeResult(key, .ecdhKeyExchangeCofactor, peer, [:] as CFDictionary, &error)
            #expect(cofactor as Data? == expected)
            let derived = SecKeyCopyKeyExchangeResult(
                key, .ecdhKeyExchangeStandardX963SHA256, peer,
                [SecKeyKeyExchangeParameter.requestedSize.rawValue as String: 16] as CFDictionary, &error)
            #expect((derived as Data?)?.count == 16)
        }
    }

    @Test("ECIES to the enclave key's public key decrypts with ECDH in the TPM, for Apple's enclave variants")
    func eciesRoundTrip() throws {
        try Self.withTPM { _, _ in
            let key = try #require(Self.create(Self.enclaveAttributes()).key)
            let publicKey = try #require(SecKeyCopyPublicKey(key))
            let plaintext = Data("sealed to the TPM's key".utf8)
            let algorithms: [SecKeyAlgorithm] = [
                .eciesEncryptionCofactorVariableIVX963SHA256AESGCM, .eciesEncryptionCofactorX963SHA256AESGCM,
                .eciesEncryptionStandardVariableIVX963SHA256AESGCM,
            ]
            for algorithm in algorithms {
                var error: Unmanaged<CFError>?
                let ciphertext = try #require(
                    SecKeyCreateEncryptedData(publicKey, algorithm, plaintext as CFData, &error) as Data?)
                #expect(SecKeyCreateDecryptedData(key, algorithm, ciphertext as CFData, &error) as Data? == plaintext)
                var tampered = ciphertext
                tampered[tampered.count - 1] ^= 1
                #expect(SecKeyCreateDecryptedData(key, algorithm, tampered as CFData, nil) == nil)
            }
        }
    }

    @Test("an enclave key's private part is never exported: errSecUnimplemented; its public key exports")
    func privateExportRefused() throws {
        try Self.withTPM { _, _ in
            let key = try #require(Self.create(Self.enclaveAttributes()).key)
            var error: Unmanaged<CFError>?
            #expect(SecKeyCopyExternalRepresentation(key, &error) == nil)
            #expect(error.map { CFErrorGetCode($0.takeRetainedValue()) } == Int(errSecUnimplemented))
            let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
            #expect(attributes[kSecAttrTokenID as String] as? String == kSecAttrTokenIDSecureEnclave as String)
            #expect(attributes[kSecAttrIsExtractable as String] as? Bool == false)
            #expect(attributes[kSecValueData as String] == nil)
            #expect(try Self.publicBytes(key).count == 65)
        }
    }

    // MARK: - Persistence

    @Test("a permanent enclave key is stored ThisDeviceOnly, found by tag and label, and deleted")
    func permanentKeyFoundAndDeleted() throws {
        try Self.withTPM { _, tpm in
            let tag = Data("com.example.enclave".utf8)
            let created = Self.create(
                Self.enclaveAttributes(privateAttributes: [
                    kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag,
                    kSecAttrLabel as String: "Enclave key",
                ]))
            let key = try #require(created.key, "\(created.message)")
            let query: [String: Any] = [
                kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag,
                kSecReturnRef as String: true, kSecReturnAttributes as String: true,
            ]
            var result: CFTypeRef?
            #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
            let found = try #require(result as? [String: Any])
            #expect(
                found[kSecAttrAccessible as String] as? String == kSecAttrAccessibleWhenUnlockedThisDeviceOnly as String
            )
            #expect(found[kSecAttrTokenID as String] as? String == kSecAttrTokenIDSecureEnclave as String)
            #expect(found[kSecAttrLabel as String] as? String == "Enclave key")
            #expect(found[kSecAttrSynchronizable as String] as? Bool != true)
            #expect(found[kSecValueRef as String] is SecKey)

            // The TPM restarts with its state kept: the stored key still signs.
            tpm.stop()
            try tpm.start()
            let byLabel: [String: Any] = [
                kSecClass as String: kSecClassKey, kSecAttrLabel as String: "Enclave key",
                kSecReturnRef as String: true,
            ]
            result = nil
            #expect(SecItemCopyMatching(byLabel as CFDictionary, &result) == errSecSuccess)
            let reloaded = try #require(result as? SecKey)
            var error: Unmanaged<CFError>?
            let signature = try #require(
                SecKeyCreateSignature(reloaded, .ecdsaSignatureMessageX962SHA256, Data("m".utf8) as CFData, &error)
                    as Data?)
            #expect(
                SecKeyVerifySignature(
                    key, .ecdsaSignatureMessageX962SHA256, Data("m".utf8) as CFData, signature as CFData, nil))

            let delete: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag]
            #expect(SecItemDelete(delete as CFDictionary) == errSecSuccess)
            #expect(SecItemCopyMatching(delete as CFDictionary, nil) == errSecItemNotFound)
        }
    }

    // Apple: "Don't use kSecReturnData for cryptographic key … items, as the key material may not be
    // extractable" (Item return result keys); an enclave key is kSecAttrIsExtractable false, so its
    // item's data (here the TPM blob) is refused as any non-extractable key's, and never returned.
    @Test("kSecReturnData on a stored enclave key returns no TPM blob: errSecInteractionNotAllowed")
    func returnDataRefused() throws {
        try Self.withTPM { _, _ in
            let tag = Data("com.example.enclave-data".utf8)
            let created = Self.create(
                Self.enclaveAttributes(privateAttributes: [
                    kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag,
                ]))
            _ = try #require(created.key, "\(created.message)")
            let byTag: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag]
            var result: CFTypeRef?
            let dataAlone = byTag.merging([kSecReturnData as String: true]) { $1 }
            #expect(SecItemCopyMatching(dataAlone as CFDictionary, &result) == errSecInteractionNotAllowed)
            #expect(result == nil)
            let withAttributes = dataAlone.merging([
                kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitAll,
            ]) { $1 }
            #expect(SecItemCopyMatching(withAttributes as CFDictionary, &result) == errSecInteractionNotAllowed)
            #expect(result == nil)

            // By persistent reference, the same.
            let refQuery = byTag.merging([kSecReturnPersistentRef as String: true]) { $1 }
            #expect(SecItemCopyMatching(refQuery as CFDictionary, &result) == errSecSuccess)
            let reference = try #require(result as? Data)
            result = nil
            let byReference: [String: Any] = [
                kSecValuePersistentRef as String: reference, kSecReturnData as String: true,
            ]
            #expect(SecItemCopyMatching(byReference as CFDictionary, &result) == errSecInteractionNotAllowed)
            #expect(result == nil)

            // Attributes and the reference come back, without kSecValueData.
            let refAndAttributes = byTag.merging([
                kSecReturnAttributes as String: true, kSecReturnRef as String: true,
            ]) { $1 }
            #expect(SecItemCopyMatching(refAndAttributes as CFDictionary, &result) == errSecSuccess)
            let found = try #require(result as? [String: Any])
            #expect(found[kSecValueData as String] == nil)
            #expect(found[kSecAttrIsExtractable as String] as? Bool == false)
            #expect(found[kSecValueRef as String] is SecKey)

            // An extr attribute changed afterwards does not make the blob extractable.
            let update = [kSecAttrIsExtractable as String: true] as CFDictionary
            let updated = SecItemUpdate(byTag as CFDictionary, update)
            #expect(
                SecItemCopyMatching(dataAlone as CFDictionary, &result) == errSecInteractionNotAllowed, "\(updated)")
            #expect(result == nil)
        }
    }

    @Test("a permanent enclave key made by one process signs in another after swtpm restarts")
    func permanentKeyAcrossProcesses() throws {
        let keychain = try TemporaryKeychain()
        let tpm = try SoftwareTPM(in: keychain.directory + "/tpm")
        defer { tpm.stop() }
        let environment = keychain.environment.merging(["KEYCHAIN_TCTI": tpm.tcti]) { $1 }
        let created = try HelperProcess.run(["se-create", "process-key"], environment: environment)
        #expect(created.hasPrefix("0 04"), "\(created)")
        let point = try #require(created.split(separator: " ").last.map(String.init))
        tpm.stop()
        try tpm.start()
        let message = Data("from the second process".utf8)
        let signed = try HelperProcess.run(
            ["se-sign", "process-key", message.map { String(format: "%02x", $0) }.joined()], environment: environment)
        #expect(signed.hasPrefix("0 "), "\(signed)")
        let signatureHex = try #require(signed.split(separator: " ").last.map(String.init))
        let publicKey = try #require(
            SecKeyCreateWithData(
                Self.bytes(hex: point) as CFData,
                [
                    kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                    kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
                ] as CFDictionary, nil))
        #expect(
            SecKeyVerifySignature(
                publicKey, .ecdsaSignatureMessageX962SHA256, message as CFData, Self.bytes(hex: signatureHex) as CFData,
                nil))
    }

    @Test("an enclave key used on another TPM fails with errSecNotAvailable naming another machine's TPM")
    func anotherTPMRefuses() throws {
        try Self.withTPM { keychain, _ in
            let key = try #require(Self.create(Self.enclaveAttributes()).key)
            let other = try SoftwareTPM(in: keychain.directory + "/other-tpm")
            defer { other.stop() }
            try EnclaveKey.$tctiOverride.withValue(other.tcti) {
                var error: Unmanaged<CFError>?
                #expect(
                    SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, Data("m".utf8) as CFData, &error)
                        == nil)
                let failure = try #require(error?.takeRetainedValue())
                #expect(CFErrorGetCode(failure) == Int(errSecNotAvailable))
                #expect(String(describing: failure).contains("another machine's TPM"))
            }
        }
    }

    // MARK: - Access control

    @Test("an enclave key with .privateKeyUsage and .userPresence asks through the prompter before each use")
    func accessControlAsksEachUse() throws {
        let fixture = try PasswordKeychain()
        let tpm = try SoftwareTPM(in: fixture.keychain.root + "/tpm")
        defer { tpm.stop() }
        try EnclaveKey.$tctiOverride.withValue(tpm.tcti) {
            try fixture.run {
                let access = accessControl(
                    [.privateKeyUsage, .userPresence], kSecAttrAccessibleWhenUnlockedThisDeviceOnly)
                let tag = Data("com.example.protected".utf8)
                let created = Self.create(
                    Self.enclaveAttributes(privateAttributes: [
                        kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag,
                        kSecAttrAccessControl as String: access,
                    ]))
                let key = try #require(created.key, "\(created.message)")
                #expect(fixture.pinentry.prompts == 0, "making the key asks nothing")
                let message = Data("m".utf8) as CFData
                #expect(SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message, nil) != nil)
                #expect(SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message, nil) != nil)
                #expect(fixture.pinentry.prompts == 2)

                // Found again: fetching the reference asks nothing; each use asks.
                let query: [String: Any] = [
                    kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag,
                    kSecReturnRef as String: true,
                ]
                var result: CFTypeRef?
                #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
                #expect(fixture.pinentry.prompts == 2)
                let stored = try #require(result as? SecKey)
                let software: [String: Any] = [
                    kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                ]
                let peer = try #require(
                    SecKeyCreateRandomKey(software as CFDictionary, nil).flatMap(SecKeyCopyPublicKey))
                #expect(
                    SecKeyCopyKeyExchangeResult(stored, .ecdhKeyExchangeStandard, peer, [:] as CFDictionary, nil) != nil
                )
                #expect(fixture.pinentry.prompts == 3)
            }
        }
    }

    @Test("an enclave key's prompt canceled fails the operation with errSecUserCanceled")
    func accessControlCanceled() throws {
        let fixture = try PasswordKeychain(cancel: true)
        let tpm = try SoftwareTPM(in: fixture.keychain.root + "/tpm")
        defer { tpm.stop() }
        try EnclaveKey.$tctiOverride.withValue(tpm.tcti) {
            try fixture.run {
                let access = accessControl(
                    [.privateKeyUsage, .devicePasscode], kSecAttrAccessibleWhenUnlockedThisDeviceOnly)
                let key = try #require(
                    Self.create(Self.enclaveAttributes(privateAttributes: [kSecAttrAccessControl as String: access]))
                        .key)
                var error: Unmanaged<CFError>?
                #expect(
                    SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, Data("m".utf8) as CFData, &error)
                        == nil)
                #expect(error.map { CFErrorGetCode($0.takeRetainedValue()) } == Int(errSecUserCanceled))
            }
        }
    }

    private static func bytes(hex: String) -> Data {
        var data = Data()
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            data.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return data
    }
}
