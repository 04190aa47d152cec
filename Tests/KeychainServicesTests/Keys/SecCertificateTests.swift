import Foundation
import KeychainCore
import KeychainItems
import Testing

@testable import KeychainServices

/// SecCertificate, SecIdentity and SecPKCS12Import conformance, with files made by the openssl tool.
@Suite(
    "SecCertificate and SecPKCS12Import",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "openssl is not installed"))
struct SecCertificateTests {
    /// Runs openssl in `folder`.
    static func openssl(_ folder: URL, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "openssl \(arguments.joined(separator: " "))")
    }

    /// A key, a self-signed certificate (DER and PEM) and a PKCS #12 file with passphrase "pass".
    static func files(_ body: (URL) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("swkc-seccert-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try openssl(folder, ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "key.pem"])
        try openssl(
            folder,
            [
                "req", "-new", "-x509", "-key", "key.pem", "-days", "30", "-set_serial", "4660",
                "-subj", "/O=Example/CN=Test Leaf/emailAddress=leaf@example.com", "-out", "cert.pem",
            ])
        try openssl(folder, ["x509", "-in", "cert.pem", "-outform", "DER", "-out", "cert.der"])
        try openssl(
            folder,
            [
                "pkcs12", "-export", "-inkey", "key.pem", "-in", "cert.pem", "-name", "Leaf Identity", "-passout",
                "pass:pass",
                "-out", "id.p12",
            ])
        try body(folder)
    }

    @Test("DER creates a certificate whose data, names, serial number and key are Apple's values; PEM does not")
    func certificate() throws {
        try Self.files { folder in
            let der = try Data(contentsOf: folder.appendingPathComponent("cert.der"))
            let certificate = try #require(SecCertificateCreateWithData(nil, der as CFData))
            #expect(SecCertificateCopyData(certificate) as Data == der)
            #expect(SecCertificateCopySubjectSummary(certificate) as String? == "Test Leaf")
            var name: CFString?
            #expect(SecCertificateCopyCommonName(certificate, &name) == errSecSuccess)
            #expect(name as String? == "Test Leaf")
            var emails: CFArray?
            #expect(SecCertificateCopyEmailAddresses(certificate, &emails) == errSecSuccess)
            #expect(emails as? [String] == ["leaf@example.com"])
            var error: Unmanaged<CFError>?
            #expect(SecCertificateCopySerialNumberData(certificate, &error) as Data? == Data([0x12, 0x34]))
            let key = try #require(SecCertificateCopyKey(certificate))
            #expect(SecKeyGetBlockSize(key) == 32)
            #expect(
                SecCertificateCopyNormalizedIssuerSequence(certificate) as Data?
                    == SecCertificateCopyNormalizedSubjectSequence(certificate) as Data?)
            #expect((SecCertificateCopyNormalizedSubjectSequence(certificate) as Data?)?.first == 0x30)
            let pem = try Data(contentsOf: folder.appendingPathComponent("cert.pem"))
            #expect(SecCertificateCreateWithData(nil, pem as CFData) == nil)
            #expect(SecCertificateCreateWithData(nil, Data() as CFData) == nil)
        }
    }

    @Test("certificate items derive Apple's attributes: type 3, DER encoding, normalized names, serial, key hashes")
    func itemAttributes() throws {
        try Self.files { folder in
            let der = try Data(contentsOf: folder.appendingPathComponent("cert.der"))
            let certificate = try #require(SecCertificateCreateWithData(nil, der as CFData))
            // KeychainItems derives them; SecItemAdd stores a SecCertificate with them.
            let attributes = try CertificateItem(certificate.certificate).attributes()
            #expect(attributes["ctyp"] == .integer(3))
            #expect(attributes["cenc"] == .integer(3))
            #expect(attributes["slnr"] == .data([0x12, 0x34]))
            #expect(
                attributes["issr"] == .data(Array(SecCertificateCopyNormalizedIssuerSequence(certificate)! as Data)))
            #expect(
                attributes["subj"] == .data(Array(SecCertificateCopyNormalizedSubjectSequence(certificate)! as Data)))
            #expect(try CertificateItem(certificate.certificate).newItem().secret?.withUnsafeBytes { Data($0) } == der)
            // The certificate's public key hash is its key's application label (how identities pair).
            let key = try #require(SecCertificateCopyKey(certificate))
            let label = (SecKeyCopyAttributes(key) as? [String: Any])?[kSecAttrApplicationLabel as String] as? Data
            #expect(attributes["pkhh"] == label.map { AttributeValue.data(Array($0)) })
            guard case .data(let keyID)? = attributes["skid"] else {
                Issue.record("no subject key identifier")
                return
            }
            #expect(keyID.count == 20)
        }
    }

    @Test(
        "SecPKCS12Import returns the identity, the chain, the label and the key ID; a wrong passphrase is errSecAuthFailed"
    )
    func pkcs12() throws {
        try Self.files { folder in
            let file = try Data(contentsOf: folder.appendingPathComponent("id.p12"))
            var items: CFArray?
            let options = [kSecImportExportPassphrase as String: "pass"] as CFDictionary
            #expect(SecPKCS12Import(file as CFData, options, &items) == errSecSuccess)
            let item = try #require((items as? [[String: Any]])?.first)
            #expect(item[kSecImportItemLabel as String] as? String == "Leaf Identity")
            #expect((item[kSecImportItemKeyID as String] as? Data)?.count == 20)
            let chain = try #require(item[kSecImportItemCertChain as String] as? [SecCertificate])
            #expect(chain.count == 1)
            let identity = try #require(item[kSecImportItemIdentity as String] as? SecIdentity)
            var certificate: SecCertificate?
            var key: SecKey?
            #expect(SecIdentityCopyCertificate(identity, &certificate) == errSecSuccess)
            #expect(SecIdentityCopyPrivateKey(identity, &key) == errSecSuccess)
            #expect(certificate == chain.first)
            let der = try Data(contentsOf: folder.appendingPathComponent("cert.der"))
            let leaf = try #require(certificate)
            let privateKey = try #require(key)
            #expect(SecCertificateCopyData(leaf) as Data == der)
            #expect(SecKeyCopyPublicKey(privateKey) == SecCertificateCopyKey(leaf))

            let wrong = [kSecImportExportPassphrase as String: "nope"] as CFDictionary
            #expect(SecPKCS12Import(file as CFData, wrong, &items) == errSecAuthFailed)
            #expect(items == nil)
            #expect(SecPKCS12Import(Data("not pkcs12".utf8) as CFData, options, &items) == errSecDecode)
        }
    }
}
