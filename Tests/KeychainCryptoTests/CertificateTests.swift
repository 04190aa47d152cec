import Foundation
import Testing

@testable import KeychainCrypto

@Suite(
    "Certificates: DER and PEM, names, serial number, key",
    .enabled(if: OpenSSLTool.available, "openssl is not installed"))
struct CertificateTests {
    /// A self-signed certificate made by openssl: two common names, an emailAddress in the
    /// subject, an rfc822Name in the subject alternative name, a PrintableString organization
    /// with odd case and spacing, and a serial number whose top bit is set.
    static func make(_ tool: OpenSSLTool, key: CryptoKey) throws -> [UInt8] {
        try tool.write("key.pem", try key.pkcs8PEM().unprotectedCopy)
        // string_mask = default: PrintableString where the text allows it (openssl's default is UTF8String).
        try tool.write("req.cnf", "[req]\ndistinguished_name = dn\nstring_mask = default\n[dn]\n")
        try tool.ok([
            "req", "-config", "req.cnf", "-new", "-x509", "-key", "key.pem", "-days", "30", "-set_serial", "0x8f00aa",
            "-subj", "/C=US/O=  Example   corp. /CN=First Name/CN=Jane Appleseed/emailAddress=jane@example.com",
            "-addext", "subjectAltName=email:jane.alt@example.org,DNS:example.org", "-outform", "DER", "-out",
            "cert.der",
        ])
        return try tool.read("cert.der")
    }

    @Test("DER in, the same DER out; PEM gives the same certificate")
    func derAndPEM() throws {
        let tool = try OpenSSLTool()
        defer { tool.cleanUp() }
        let der = try Self.make(tool, key: Fixtures.p256)
        let certificate = try Certificate(der: der)
        #expect(certificate.der == der)
        let pem = try tool.ok(["x509", "-inform", "DER", "-in", "cert.der"])
        let fromPEM = try Certificate.certificates(pem: pem)
        #expect(fromPEM == [certificate])
        #expect(try Certificate.certificates(pem: pem + pem).count == 2)
        #expect(try Certificate.certificates(pem: Array(try certificate.pem.utf8)) == [certificate])
    }

    @Test("common name is the last CN; email addresses come from the subject and the SAN; the summary is the CN")
    func names() throws {
        let tool = try OpenSSLTool()
        defer { tool.cleanUp() }
        let certificate = try Certificate(der: try Self.make(tool, key: Fixtures.p256))
        #expect(certificate.commonNames == ["First Name", "Jane Appleseed"])
        #expect(certificate.commonName == "Jane Appleseed")
        #expect(certificate.emailAddresses == ["jane@example.com", "jane.alt@example.org"])
        #expect(certificate.subjectSummary == "Jane Appleseed")
    }

    @Test("the serial number is the INTEGER's content octets, with the leading zero of a positive number")
    func serialNumber() throws {
        let tool = try OpenSSLTool()
        defer { tool.cleanUp() }
        let certificate = try Certificate(der: try Self.make(tool, key: Fixtures.p256))
        #expect(try certificate.serialNumber == [0x00, 0x8f, 0x00, 0xaa])
    }

    @Test(
        "normalized names upper-case PrintableStrings and collapse their blanks, as Security's createNormalizedX501Name"
    )
    func normalizedNames() throws {
        let tool = try OpenSSLTool()
        defer { tool.cleanUp() }
        let certificate = try Certificate(der: try Self.make(tool, key: Fixtures.p256))
        let normalized = try certificate.normalizedSubjectSequence
        let text = String(decoding: normalized, as: UTF8.self)
        #expect(text.contains("EXAMPLE CORP."))
        #expect(!text.contains("Example"))
        #expect(normalized.first == 0x30)
        // The issuer of a self-signed certificate is its subject.
        #expect(try certificate.normalizedIssuerSequence == normalized)
        // Other string types stay as they are (the emailAddress is an IA5String).
        #expect(text.contains("jane@example.com"))
        // The raw subject keeps the original spelling.
        #expect(String(decoding: try certificate.subjectSequence, as: UTF8.self).contains("  Example   corp. "))
        // openssl parses the normalized name back as a Name.
        try tool.write("name.der", normalized)
        let parsed = String(decoding: try tool.ok(["asn1parse", "-inform", "DER", "-in", "name.der"]), as: UTF8.self)
        #expect(parsed.contains("PRINTABLESTRING   :EXAMPLE CORP."))
    }

    @Test("PrintableString normalization: trim, collapse blanks and tabs, ASCII upper case")
    func printableNormalization() {
        #expect(Certificate.normalizedPrintable(Array("  a\tb   c  ".utf8)) == Array("A B C".utf8))
        #expect(Certificate.normalizedPrintable(Array("Apple Inc.".utf8)) == Array("APPLE INC.".utf8))
        #expect(Certificate.normalizedPrintable(Array("   ".utf8)) == [])
    }

    @Test("the public key is the certificate's; its hash equals the key's application label", arguments: [false, true])
    func publicKey(rsa: Bool) throws {
        let tool = try OpenSSLTool()
        defer { tool.cleanUp() }
        let key = rsa ? Fixtures.rsa2048 : Fixtures.p384
        let certificate = try Certificate(der: try Self.make(tool, key: key))
        #expect(try certificate.publicKey() == key.publicKey())
        #expect(try certificate.publicKeyHash == key.publicKeyHash)
        #expect(certificate.matches(key))
        // openssl req -x509 adds a subject key identifier: SHA-1 of the public key BIT STRING (RFC 5280 method 1).
        #expect(certificate.subjectKeyIdentifier == (try certificate.publicKeyHash))
        #expect(!certificate.matches(Fixtures.p256))
    }

    @Test("malformed input is a decode error: empty, truncated, trailing bytes, PEM without a certificate")
    func malformed() throws {
        let tool = try OpenSSLTool()
        defer { tool.cleanUp() }
        let der = try Self.make(tool, key: Fixtures.p256)
        for bytes in [[], Array(der.dropLast()), der + [0], Array(repeating: 0x30, count: 10)] {
            #expect(throws: CryptoError.self) { try Certificate(der: bytes) }
        }
        #expect(throws: CryptoError.self) { try Certificate.certificates(pem: Array("hello".utf8)) }
        #expect(throws: CryptoError.self) {
            try Certificate.certificates(
                pem: Array("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n".utf8))
        }
    }
}

@Suite("PKCS #12", .enabled(if: OpenSSLTool.available, "openssl is not installed"))
struct PKCS12Tests {
    /// A leaf signed by a CA, exported by `openssl pkcs12 -export` with the CA in the chain.
    static func export(_ tool: OpenSSLTool, key: CryptoKey, options: [String] = []) throws -> [UInt8] {
        try tool.ok(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "ca.key"])
        try tool.ok(["req", "-new", "-x509", "-key", "ca.key", "-subj", "/CN=Test CA", "-days", "30", "-out", "ca.pem"])
        try tool.write("leaf.key", try key.pkcs8PEM().unprotectedCopy)
        try tool.ok(["req", "-new", "-key", "leaf.key", "-subj", "/CN=Leaf", "-out", "leaf.csr"])
        try tool.ok([
            "x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", "7", "-days", "30",
            "-out", "leaf.pem",
        ])
        try tool.ok(
            [
                "pkcs12", "-export", "-inkey", "leaf.key", "-in", "leaf.pem", "-certfile", "ca.pem", "-name",
                "My Identity",
                "-passout", "pass:correct horse", "-out", "id.p12",
            ] + options)
        return try tool.read("id.p12")
    }

    @Test("files from openssl pkcs12 -export import: key, leaf, chain, label and key ID", arguments: [false, true])
    func importOpenSSL(rsa: Bool) throws {
        let tool = try OpenSSLTool()
        defer { tool.cleanUp() }
        let key = rsa ? Fixtures.rsa2048 : Fixtures.p256
        let contents = try PKCS12.parse(try Self.export(tool, key: key), passphrase: "correct horse")
        #expect(contents.privateKey == key)
        #expect(contents.certificate.commonName == "Leaf")
        #expect(contents.chain.map(\.commonName) == ["Leaf", "Test CA"])
        #expect(contents.label == "My Identity")
        // openssl's localKeyID is the SHA-1 of the certificate.
        #expect(contents.keyID == (try HashFunction.sha1.hash(contents.certificate.der)))
        #expect(contents.certificate.matches(contents.privateKey))
    }

    @Test("legacy files (RC2-40, openssl pkcs12 -legacy, as older macOS and Windows export) import")
    func legacy() throws {
        let tool = try OpenSSLTool()
        defer { tool.cleanUp() }
        let contents = try PKCS12.parse(
            try Self.export(tool, key: Fixtures.p256, options: ["-legacy"]), passphrase: "correct horse")
        #expect(contents.privateKey == Fixtures.p256)
        #expect(contents.chain.count == 2)
        #expect(throws: CryptoError.authFailed) {
            try PKCS12.parse(try tool.read("id.p12"), passphrase: "wrong")
        }
    }

    @Test("an empty passphrase opens files exported with an empty password")
    func emptyPassphrase() throws {
        let tool = try OpenSSLTool()
        defer { tool.cleanUp() }
        _ = try Self.export(tool, key: Fixtures.p256)
        try tool.ok([
            "pkcs12", "-export", "-inkey", "leaf.key", "-in", "leaf.pem", "-passout", "pass:", "-out", "empty.p12",
        ])
        #expect(try PKCS12.parse(try tool.read("empty.p12"), passphrase: "").privateKey == Fixtures.p256)
        #expect(throws: CryptoError.authFailed) { try PKCS12.parse(try tool.read("empty.p12"), passphrase: "x") }
    }

    @Test("a file without a MAC: the right passphrase opens it, a wrong one is errSecAuthFailed")
    func noMAC() throws {
        let tool = try OpenSSLTool()
        defer { tool.cleanUp() }
        _ = try Self.export(tool, key: Fixtures.p256, options: ["-nomac"])
        let file = try tool.read("id.p12")
        #expect(try PKCS12.parse(file, passphrase: "correct horse").privateKey == Fixtures.p256)
        #expect(throws: CryptoError.authFailed) { try PKCS12.parse(file, passphrase: "wrong") }
    }

    @Test("a file with certificates and no private key is a decode error")
    func certificatesOnly() throws {
        let tool = try OpenSSLTool()
        defer { tool.cleanUp() }
        _ = try Self.export(tool, key: Fixtures.p256)
        try tool.ok(["pkcs12", "-export", "-nokeys", "-in", "leaf.pem", "-passout", "pass:x", "-out", "certs.p12"])
        #expect(throws: CryptoError.decode("PKCS #12 file: no private key")) {
            try PKCS12.parse(try tool.read("certs.p12"), passphrase: "x")
        }
    }

    @Test("a wrong passphrase is errSecAuthFailed, distinct from a malformed file")
    func wrongPassphrase() throws {
        let tool = try OpenSSLTool()
        defer { tool.cleanUp() }
        let file = try Self.export(tool, key: Fixtures.p256)
        #expect(throws: CryptoError.authFailed) { try PKCS12.parse(file, passphrase: "wrong") }
        #expect(throws: CryptoError.authFailed) { try PKCS12.parse(file, passphrase: "") }
        #expect(CryptoError.authFailed.osStatus == -25293)
        var corrupted = file
        corrupted[corrupted.count / 2] ^= 0xff
        #expect(throws: CryptoError.self) { try PKCS12.parse(corrupted, passphrase: "correct horse") }
        #expect(throws: CryptoError.self) { try PKCS12.parse(Array(file.prefix(100)), passphrase: "correct horse") }
    }

    @Test("files we create read back with openssl pkcs12 and with ours")
    func create() throws {
        let tool = try OpenSSLTool()
        defer { tool.cleanUp() }
        let original = try PKCS12.parse(try Self.export(tool, key: Fixtures.p384), passphrase: "correct horse")
        let file = try PKCS12.create(
            privateKey: original.privateKey, certificate: original.certificate,
            chain: Array(original.chain.dropFirst()),
            passphrase: "s3cret", label: "Exported")
        let again = try PKCS12.parse(file, passphrase: "s3cret")
        #expect(again.privateKey == original.privateKey)
        #expect(again.chain == original.chain)
        #expect(again.label == "Exported")
        try tool.write("ours.p12", file)
        let keyPEM = try tool.ok(["pkcs12", "-in", "ours.p12", "-passin", "pass:s3cret", "-nocerts", "-nodes"])
        #expect(String(decoding: keyPEM, as: UTF8.self).contains("BEGIN PRIVATE KEY"))
        #expect(try tool.run(["pkcs12", "-in", "ours.p12", "-passin", "pass:wrong", "-nokeys"]).status != 0)
        #expect(throws: CryptoError.self) {
            try PKCS12.create(privateKey: Fixtures.p256, certificate: original.certificate, passphrase: "x")
        }
    }
}
