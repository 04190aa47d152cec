import Foundation
import KeychainCore
import KeychainTesting
import Testing

@testable import KeychainServices

/// kSecClassKey, kSecClassCertificate and kSecClassIdentity items (tracker issue 18): Apple's derived
/// attributes, primary keys (APPLE-SEMANTICS.md rule 3), default accessibility (rule 12), references.
@Suite("Key, certificate and identity items")
struct KeyItemTests {
    static func newKey(_ extra: [String: Any] = [:], bits: Int = 256) throws -> SecKey {
        var parameters: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: bits,
        ]
        parameters.merge(extra) { _, new in new }
        var error: Unmanaged<CFError>?
        guard let key = SecKeyCreateRandomKey(parameters as CFDictionary, &error) else {
            throw error!.takeRetainedValue() as any Error
        }
        return key
    }

    static func addKey(_ key: SecKey, _ extra: [String: Any] = [:]) -> OSStatus {
        var item: [String: Any] = [kSecClass as String: kSecClassKey, kSecValueRef as String: key]
        item.merge(extra) { _, new in new }
        return SecItemAdd(item as CFDictionary, nil)
    }

    static func applicationLabel(_ key: SecKey) -> Data? {
        (SecKeyCopyAttributes(key) as? [String: Any])?[kSecAttrApplicationLabel as String] as? Data
    }

    @Test("a SecKey added by reference has Apple's derived attributes; its default accessibility is WhenUnlocked")
    func keyAttributes() throws {
        try withKeychain {
            let key = try Self.newKey()
            #expect(Self.addKey(key, [kSecAttrApplicationTag as String: Data("tag".utf8)]) == errSecSuccess)
            let found = try #require(
                attributes([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("tag".utf8)]))
            #expect(found[kSecClass as String] as? String == "keys")
            // securityd stores kcls and type as numbers (SecItemSchema.c: Number), so they come back as 1 and 73.
            #expect((found[kSecAttrKeyClass as String] as? NSNumber)?.intValue == 1)
            #expect((found[kSecAttrKeyType as String] as? NSNumber)?.intValue == 73)
            #expect((found[kSecAttrKeySizeInBits as String] as? NSNumber)?.intValue == 256)
            #expect((found[kSecAttrEffectiveKeySize as String] as? NSNumber)?.intValue == 256)
            #expect(found[kSecAttrApplicationLabel as String] as? Data == Self.applicationLabel(key))
            #expect((found[kSecAttrApplicationLabel as String] as? Data)?.count == 20)
            #expect(found[kSecAttrApplicationTag as String] as? Data == Data("tag".utf8))
            #expect((found[kSecAttrCanSign as String] as? NSNumber)?.boolValue == true)
            #expect((found[kSecAttrCanVerify as String] as? NSNumber)?.boolValue == false)
            #expect(found[kSecAttrAccessible as String] as? String == kSecAttrAccessibleWhenUnlocked as String)
        }
    }

    @Test("a duplicate key (same class, label, tag, type and sizes) is errSecDuplicateItem; its public key is not")
    func keyDuplicate() throws {
        try withKeychain {
            let key = try Self.newKey()
            #expect(Self.addKey(key) == errSecSuccess)
            #expect(Self.addKey(key, [kSecAttrLabel as String: "another label"]) == errSecDuplicateItem)
            #expect(Self.addKey(try #require(SecKeyCopyPublicKey(key))) == errSecSuccess)
            #expect(Self.addKey(key, [kSecAttrApplicationTag as String: Data("t".utf8)]) == errSecSuccess)
            #expect(count([kSecClass as String: kSecClassKey]) == 3)
        }
    }

    @Test("kSecReturnRef gives a SecKey equal to the one added, that signs; kSecReturnData its external representation")
    func keyReference() throws {
        try withKeychain {
            let key = try Self.newKey()
            #expect(Self.addKey(key, [kSecAttrApplicationTag as String: Data("ref".utf8)]) == errSecSuccess)
            let query: [String: Any] = [
                kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("ref".utf8),
                kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
            ]
            var refQuery = query
            refQuery[kSecReturnRef as String] = true
            let (status, result) = copy(refQuery)
            #expect(status == errSecSuccess)
            let stored = try #require(result as? SecKey)
            #expect(stored == key)
            var error: Unmanaged<CFError>?
            let message = Data("message".utf8)
            let signature = try #require(
                SecKeyCreateSignature(stored, .ecdsaSignatureMessageX962SHA256, message as CFData, &error))
            #expect(
                SecKeyVerifySignature(
                    try #require(SecKeyCopyPublicKey(key)), .ecdsaSignatureMessageX962SHA256, message as CFData,
                    signature, &error))
            let data = try #require(copy(query.merging([kSecReturnData as String: true]) { $1 }).result as? Data)
            #expect(data == SecKeyCopyExternalRepresentation(key, &error) as Data?)
            #expect(data.count == 97)
            // In a dictionary the reference is v_Ref.
            let both = copy(
                query.merging([kSecReturnRef as String: true, kSecReturnAttributes as String: true]) { $1 })
            let dictionary = try #require(both.result as? [String: Any])
            #expect(dictionary[kSecValueRef as String] as? SecKey == key)
        }
    }

    @Test(
        "kSecAttrIsExtractable false: the key is stored, its reference is returned, its data is errSecInteractionNotAllowed"
    )
    func notExtractable() throws {
        try withKeychain {
            let key = try Self.newKey([kSecAttrIsExtractable as String: false])
            #expect(Self.addKey(key) == errSecSuccess)
            let query: [String: Any] = [kSecClass as String: kSecClassKey]
            #expect(copy(query.merging([kSecReturnData as String: true]) { $1 }).status == errSecInteractionNotAllowed)
            let stored = try #require(copy(query.merging([kSecReturnRef as String: true]) { $1 }).result as? SecKey)
            var error: Unmanaged<CFError>?
            #expect(SecKeyCopyExternalRepresentation(stored, &error) == nil)
            let found = try #require(attributes(query))
            #expect((found[kSecAttrIsExtractable as String] as? NSNumber)?.boolValue == false)
        }
    }

    @Test("kSecAttrIsPermanent in SecKeyCreateRandomKey stores the private key (and the public key when asked)")
    func permanent() throws {
        try withKeychain {
            let tag = Data("com.example.permanent".utf8)
            let key = try Self.newKey([
                kSecPrivateKeyAttrs as String: [
                    kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag,
                ] as [String: Any]
            ])
            let query: [String: Any] = [
                kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag, kSecReturnRef as String: true,
            ]
            #expect(copy(query).result as? SecKey == key)
            #expect(count([kSecClass as String: kSecClassKey]) == 1)
            // Both halves with a top-level kSecAttrIsPermanent.
            _ = try Self.newKey([kSecAttrIsPermanent as String: true, kSecAttrLabel as String: "pair"])
            #expect(count([kSecClass as String: kSecClassKey, kSecAttrLabel as String: "pair"]) == 2)
            #expect(
                count([
                    kSecClass as String: kSecClassKey, kSecAttrLabel as String: "pair",
                    kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
                ]) == 1)
        }
    }

    @Test(
        "a key added as kSecValueData with kSecAttrKeyType and kSecAttrKeyClass derives its label and returns a SecKey")
    func keyAsData() throws {
        try withKeychain {
            let key = try Self.newKey(bits: 384)
            var error: Unmanaged<CFError>?
            let data = try #require(SecKeyCopyExternalRepresentation(key, &error) as Data?)
            let item: [String: Any] = [
                kSecClass as String: kSecClassKey, kSecValueData as String: data,
                kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
            ]
            #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
            let label = try #require(Self.applicationLabel(key))
            let found = try #require(
                attributes([kSecClass as String: kSecClassKey, kSecAttrApplicationLabel as String: label]))
            #expect((found[kSecAttrKeySizeInBits as String] as? NSNumber)?.intValue == 384)
            #expect(copy([kSecClass as String: kSecClassKey, kSecReturnRef as String: true]).result as? SecKey == key)
            #expect(SecItemAdd(item as CFDictionary, nil) == errSecDuplicateItem)
        }
    }

    @Test("a key item whose data is not a key of its type: attributes and data return, kSecReturnRef is errSecDecode")
    func keyDataNotAKey() throws {
        try withKeychain {
            let item: [String: Any] = [
                kSecClass as String: kSecClassKey, kSecValueData as String: Data([4, 1, 2, 3]),
                kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                kSecAttrKeyClass as String: kSecAttrKeyClassPublic, kSecAttrApplicationTag as String: Data("odd".utf8),
            ]
            #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
            let query: [String: Any] = [
                kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("odd".utf8),
            ]
            #expect(copy(query.merging([kSecReturnData as String: true]) { $1 }).result as? Data == Data([4, 1, 2, 3]))
            #expect(copy(query.merging([kSecReturnRef as String: true]) { $1 }).status == errSecDecode)
            #expect(delete(query) == errSecSuccess)
        }
    }

    @Test("kSecValueRef of another class is errSecParam; on a password too")
    func wrongReference() throws {
        try withKeychain {
            let key = try Self.newKey()
            #expect(add([kSecClass as String: kSecClassCertificate, kSecValueRef as String: key]) == errSecParam)
            #expect(add(genericPassword([kSecValueRef as String: key]), secret: "x") == errSecParam)
        }
    }

    @Test("kSecMatchItemList limits a search to the listed references or persistent references")
    func itemList() throws {
        try withKeychain {
            let first = try Self.newKey()
            let second = try Self.newKey()
            #expect(Self.addKey(first) == errSecSuccess)
            #expect(Self.addKey(second) == errSecSuccess)
            let all: [String: Any] = [
                kSecClass as String: kSecClassKey, kSecMatchLimit as String: kSecMatchLimitAll,
                kSecReturnRef as String: true,
            ]
            #expect((copy(all).result as? [SecKey])?.count == 2)
            let listed = copy(all.merging([kSecMatchItemList as String: [second]]) { $1 })
            #expect(listed.result as? [SecKey] == [second])
            let refs = try #require(
                copy([
                    kSecClass as String: kSecClassKey, kSecMatchLimit as String: kSecMatchLimitAll,
                    kSecReturnPersistentRef as String: true,
                ]).result as? [Data])
            let byRef = copy(all.merging([kSecMatchItemList as String: [refs[0]]]) { $1 })
            #expect((byRef.result as? [SecKey])?.count == 1)
            // An item list in a delete is errSecParam (rule 6: removed, it would delete every key).
            #expect(delete([kSecClass as String: kSecClassKey, kSecMatchItemList as String: [second]]) == errSecParam)
            // Delete by reference: kSecValueRef stands for the key's primary key.
            #expect(delete([kSecClass as String: kSecClassKey, kSecValueRef as String: first]) == errSecSuccess)
            #expect(copy(all).result as? [SecKey] == [second])
        }
    }

    // MARK: - Certificates and identities (need the openssl tool for the files)

    static let hasOpenSSL = FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")

    @Test(
        "a certificate added by reference derives Apple's attributes, is Always by default, finds by issuer DER and serial",
        .enabled(if: hasOpenSSL, "openssl is not installed"))
    func certificateItem() throws {
        try SecCertificateTests.files { folder in
            let der = try Data(contentsOf: folder.appendingPathComponent("cert.der"))
            let certificate = try #require(SecCertificateCreateWithData(nil, der as CFData))
            try withKeychain {
                let item: [String: Any] = [
                    kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate,
                ]
                #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
                #expect(SecItemAdd(item as CFDictionary, nil) == errSecDuplicateItem)
                // The same certificate as DER data is the same primary key.
                #expect(
                    add([kSecClass as String: kSecClassCertificate, kSecValueData as String: der])
                        == errSecDuplicateItem)
                let found = try #require(attributes([kSecClass as String: kSecClassCertificate]))
                #expect((found[kSecAttrCertificateType as String] as? NSNumber)?.intValue == 3)
                #expect((found[kSecAttrCertificateEncoding as String] as? NSNumber)?.intValue == 3)
                #expect(found[kSecAttrSerialNumber as String] as? Data == Data([0x12, 0x34]))
                #expect(
                    found[kSecAttrIssuer as String] as? Data
                        == SecCertificateCopyNormalizedIssuerSequence(certificate) as Data?)
                let publicKey = try #require(SecCertificateCopyKey(certificate))
                #expect(found[kSecAttrPublicKeyHash as String] as? Data == Self.applicationLabel(publicKey))
                #expect(found[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAlways as String)
                let issuer = try #require(SecCertificateCopyNormalizedIssuerSequence(certificate)) as Data
                let byIssuer: [String: Any] = [
                    kSecClass as String: kSecClassCertificate, kSecAttrIssuer as String: issuer,
                    kSecAttrSerialNumber as String: Data([0x12, 0x34]), kSecReturnRef as String: true,
                ]
                #expect(copy(byIssuer).result as? SecCertificate == certificate)
                #expect(
                    copy([kSecClass as String: kSecClassCertificate, kSecReturnData as String: true]).result as? Data
                        == der)
                #expect(
                    delete([kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate])
                        == errSecSuccess)
                #expect(count([kSecClass as String: kSecClassCertificate]) == 0)
                #expect(
                    add([kSecClass as String: kSecClassCertificate, kSecValueData as String: Data([1, 2, 3])])
                        == errSecParam)
            }
        }
    }

    @Test(
        "an identity, a key or a certificate added by kSecValueRef alone (no kSecClass) is stored as its class (SecItem.c infers it)",
        .enabled(if: hasOpenSSL, "openssl is not installed"))
    func classFromReference() throws {
        try SecCertificateTests.files { folder in
            let p12 = try Data(contentsOf: folder.appendingPathComponent("id.p12"))
            var items: CFArray?
            #expect(
                SecPKCS12Import(p12 as CFData, [kSecImportExportPassphrase as String: "pass"] as CFDictionary, &items)
                    == errSecSuccess)
            let imported = try #require(
                (items as? [[String: Any]])?.first?[kSecImportItemIdentity as String] as? SecIdentity)
            try withKeychain {
                let item: [String: Any] = [kSecValueRef as String: imported, kSecAttrLabel as String: "review-id"]
                #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
                #expect(count([kSecClass as String: kSecClassCertificate]) == 1)
                #expect(count([kSecClass as String: kSecClassKey]) == 1)
                #expect(
                    copy([kSecClass as String: kSecClassIdentity, kSecReturnRef as String: true]).result as? SecIdentity
                        == imported)
            }
            try withKeychain {
                let key = try Self.newKey()
                #expect(SecItemAdd([kSecValueRef as String: key] as CFDictionary, nil) == errSecSuccess)
                #expect(count([kSecClass as String: kSecClassKey]) == 1)
                // CFGetTypeID tells the class of a returned reference, as iOS code checks it.
                let found = copy([kSecClass as String: kSecClassKey, kSecReturnRef as String: true]).result
                #expect(CFGetTypeID(found) == SecKeyGetTypeID())
                #expect(CFGetTypeID(found) != SecCertificateGetTypeID())
            }
        }
    }

    @Test(
        "SecPKCS12Import's identity added, found with kSecClassIdentity, signs; openssl dgst -verify accepts it; delete removes both",
        .enabled(if: hasOpenSSL, "openssl is not installed"))
    func identity() throws {
        try SecCertificateTests.files { folder in
            let p12 = try Data(contentsOf: folder.appendingPathComponent("id.p12"))
            var items: CFArray?
            #expect(
                SecPKCS12Import(p12 as CFData, [kSecImportExportPassphrase as String: "pass"] as CFDictionary, &items)
                    == errSecSuccess)
            let first = try #require((items as? [[String: Any]])?.first)
            let imported = try #require(first[kSecImportItemIdentity as String] as? SecIdentity)
            try withKeychain {
                let item: [String: Any] = [kSecValueRef as String: imported, kSecClass as String: kSecClassIdentity]
                #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
                #expect(SecItemAdd(item as CFDictionary, nil) == errSecDuplicateItem)
                #expect(count([kSecClass as String: kSecClassCertificate]) == 1)
                #expect(count([kSecClass as String: kSecClassKey]) == 1)
                let found = copy([kSecClass as String: kSecClassIdentity, kSecReturnRef as String: true])
                #expect(found.status == errSecSuccess)
                let identity = try #require(found.result as? SecIdentity)
                #expect(identity == imported)
                var key: SecKey?
                #expect(SecIdentityCopyPrivateKey(identity, &key) == errSecSuccess)
                let message = Data("signed by the keychain's identity".utf8)
                var error: Unmanaged<CFError>?
                let privateKey = try #require(key)
                let signature = try #require(
                    SecKeyCreateSignature(privateKey, .ecdsaSignatureMessageX962SHA256, message as CFData, &error)
                        as Data?)
                try message.write(to: folder.appendingPathComponent("message"))
                try signature.write(to: folder.appendingPathComponent("message.sig"))
                try SecCertificateTests.openssl(
                    folder, ["x509", "-in", "cert.pem", "-pubkey", "-noout", "-out", "pub.pem"])
                try SecCertificateTests.openssl(
                    folder, ["dgst", "-sha256", "-verify", "pub.pem", "-signature", "message.sig", "message"])
                // Attributes: the key's, with the certificate's added; class idnt.
                let attributes = try #require(
                    copy([kSecClass as String: kSecClassIdentity, kSecReturnAttributes as String: true]).result
                        as? [String: Any])
                #expect(attributes[kSecClass as String] as? String == "idnt")
                #expect((attributes[kSecAttrKeyClass as String] as? NSNumber)?.intValue == 1)
                #expect(attributes[kSecAttrSerialNumber as String] as? Data == Data([0x12, 0x34]))
                // Key attributes filter the joined key: an identity query by the key's type finds it, by RSA not.
                let ec: [String: Any] = [
                    kSecClass as String: kSecClassIdentity, kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                ]
                #expect(copy(ec).status == errSecSuccess)
                let rsa: [String: Any] = [
                    kSecClass as String: kSecClassIdentity, kSecAttrKeyType as String: kSecAttrKeyTypeRSA,
                ]
                #expect(copy(rsa).status == errSecItemNotFound)
                // A certificate without its private key is no identity.
                #expect(delete([kSecClass as String: kSecClassKey]) == errSecSuccess)
                #expect(copy([kSecClass as String: kSecClassIdentity]).status == errSecItemNotFound)
                #expect(SecItemAdd(item as CFDictionary, nil) == errSecDuplicateItem)
                #expect(delete([kSecClass as String: kSecClassCertificate]) == errSecSuccess)
                #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
                #expect(delete([kSecClass as String: kSecClassIdentity]) == errSecSuccess)
                #expect(count([kSecClass as String: kSecClassCertificate]) == 0)
                #expect(count([kSecClass as String: kSecClassKey]) == 0)
                #expect(delete([kSecClass as String: kSecClassIdentity]) == errSecItemNotFound)
            }
        }
    }

    @Test(
        "an identity needs both halves readable: a private key in a group the caller does not hold completes no identity",
        .enabled(if: hasOpenSSL, "openssl is not installed"))
    func identityAcrossGroups() throws {
        try SecCertificateTests.files { folder in
            let p12 = try Data(contentsOf: folder.appendingPathComponent("id.p12"))
            var items: CFArray?
            #expect(
                SecPKCS12Import(p12 as CFData, [kSecImportExportPassphrase as String: "pass"] as CFDictionary, &items)
                    == errSecSuccess)
            let imported = try #require(
                (items as? [[String: Any]])?.first?[kSecImportItemIdentity as String] as? SecIdentity)
            var certificate: SecCertificate?
            var key: SecKey?
            #expect(SecIdentityCopyCertificate(imported, &certificate) == errSecSuccess)
            #expect(SecIdentityCopyPrivateKey(imported, &key) == errSecSuccess)
            let keychain = try TemporaryKeychain()
            let both = ApplicationIdentity(accessGroups: ["team.a", "team.b"])
            try keychain.run(as: both) {
                let cert: [String: Any] = [
                    kSecClass as String: kSecClassCertificate, kSecValueRef as String: try #require(certificate),
                    kSecAttrAccessGroup as String: "team.a",
                ]
                #expect(SecItemAdd(cert as CFDictionary, nil) == errSecSuccess)
                #expect(Self.addKey(try #require(key), [kSecAttrAccessGroup as String: "team.b"]) == errSecSuccess)
                #expect(
                    copy([kSecClass as String: kSecClassIdentity, kSecReturnRef as String: true]).result as? SecIdentity
                        == imported)
            }
            try keychain.run(as: ApplicationIdentity(accessGroups: ["team.a"])) {
                #expect(count([kSecClass as String: kSecClassCertificate]) == 1)
                #expect(copy([kSecClass as String: kSecClassIdentity]).status == errSecItemNotFound)
            }
        }
    }
}
