internal import COpenSSL

/// PKCS #12 files: the parsing behind `SecPKCS12Import` and the writing behind `security export`.
package enum PKCS12 {
    /// What a PKCS #12 file holds for `SecPKCS12Import`.
    package struct Contents: Sendable {
        /// The private key of the identity.
        package var privateKey: CryptoKey
        /// The certificate of that key (the leaf).
        package var certificate: Certificate
        /// The leaf, then the other certificates of the file (`kSecImportItemCertChain`).
        package var chain: [Certificate]
        /// The key bag's `localKeyID` attribute (`kSecImportItemKeyID`), if any.
        package var keyID: [UInt8]?
        /// The `friendlyName` attribute (`kSecImportItemLabel`), if any.
        package var label: String?
    }

    /// Parses `bytes` with `passphrase` (`SecPKCS12Import`).
    ///
    /// - Returns: the identity (key and certificate), the chain and the bag attributes. A file
    ///   holding several keys yields the first key and its certificate (OpenSSL's `PKCS12_parse`).
    /// - Throws: `CryptoError.authFailed` when the passphrase is wrong (the MAC does not verify,
    ///   or a MAC-less file does not decrypt); `.decode` when the bytes are not PKCS #12, or it
    ///   holds no private key with its certificate.
    package static func parse(_ bytes: [UInt8], passphrase: String) throws(CryptoError) -> Contents {
        _ = legacyAlgorithms
        let decoded = try OpenSSL.decode(bytes, what: "PKCS #12 file") { d2i_PKCS12(nil, $0, $1) }
        let p12 = decoded.object
        defer { PKCS12_free(p12) }
        guard decoded.free else { throw .decode("PKCS #12 file: trailing bytes") }
        // An empty passphrase may have been encoded as no password at all or as an empty one
        // (PKCS12_parse tries both the same way).
        let candidates: [String?] = passphrase.isEmpty ? [nil, ""] : [passphrase]
        let hasMAC = PKCS12_mac_present(p12) == 1
        var chosen: String?? = .none
        for candidate in candidates {
            let verified =
                !hasMAC
                || (candidate.map { PKCS12_verify_mac(p12, $0, Int32($0.utf8.count)) } ?? PKCS12_verify_mac(p12, nil, 0))
                    == 1
            if verified {
                chosen = .some(candidate)
                break
            }
        }
        _ = OpenSSL.drainErrors()
        guard case .some(let password) = chosen else { throw .authFailed }
        var pkey: OpaquePointer?
        var x509: OpaquePointer?
        var ca: OpaquePointer?
        let parsed =
            password.map { PKCS12_parse(p12, $0, &pkey, &x509, &ca) } ?? PKCS12_parse(p12, nil, &pkey, &x509, &ca)
        guard parsed == 1 else {
            _ = OpenSSL.drainErrors()
            throw hasMAC ? .decode("PKCS #12 contents") : .authFailed
        }
        defer { if let ca { copenssl_x509_stack_free(ca) } }
        guard let pkey else {
            if let x509 { X509_free(x509) }
            throw .decode("PKCS #12 file: no private key")
        }
        let key: CryptoKey
        do { key = try CryptoKey(owning: pkey, isPrivate: true) } catch {
            if let x509 { X509_free(x509) }
            throw error
        }
        guard let x509 else { throw .decode("PKCS #12 file: no certificate for the private key") }
        var keyID: [UInt8]?
        var length: Int32 = 0
        if let id = X509_keyid_get0(x509, &length), length > 0 {
            keyID = Array(UnsafeBufferPointer(start: id, count: Int(length)))
        }
        var label: String?
        if let alias = X509_alias_get0(x509, &length), length > 0 {
            label = String(decoding: UnsafeBufferPointer(start: alias, count: Int(length)), as: UTF8.self)
        }
        let leaf = try Certificate(owning: x509)
        var chain = [leaf]
        if let ca {
            for index in 0..<copenssl_x509_stack_count(ca) {
                guard let other = copenssl_x509_stack_value(ca, index), X509_up_ref(other) == 1 else { continue }
                chain.append(try Certificate(owning: other))
            }
        }
        return Contents(privateKey: key, certificate: leaf, chain: chain, keyID: keyID, label: label)
    }

    /// The legacy provider (RC2-40, the cipher of PKCS #12 files from older macOS, Windows and
    /// `openssl pkcs12 -legacy`) beside the default one, loaded once into OpenSSL's default library
    /// context (loading any provider stops the implicit default one, so both are loaded). Without
    /// the legacy module such files fail as malformed.
    static let legacyAlgorithms = Providers()

    /// The two provider handles, owned for the life of the process (the default library context
    /// uses them until exit, so they are never unloaded).
    // @unchecked Sendable: two handles written once in init and never used again.
    final class Providers: @unchecked Sendable {
        let handles: [OpaquePointer]

        init() {
            let names: [String] = ["default", "legacy"]
            handles = names.compactMap { name in name.withCString { OSSL_PROVIDER_load(nil, $0) } }
            _ = OpenSSL.drainErrors()
        }
    }

    /// Writes a PKCS #12 file (`security export -f pkcs12`) with OpenSSL 3's defaults: keys and
    /// certificates in AES-256-CBC with PBKDF2, a SHA-256 MAC.
    ///
    /// - Parameters:
    ///   - privateKey: the identity's private key.
    ///   - certificate: its certificate.
    ///   - chain: further certificates to include.
    ///   - passphrase: the passphrase.
    ///   - label: the `friendlyName`, or `nil`.
    /// - Returns: the DER of the file.
    /// - Throws: `CryptoError.parameter` if the key is public or does not match the certificate.
    package static func create(
        privateKey: CryptoKey, certificate: Certificate, chain: [Certificate] = [], passphrase: String,
        label: String? = nil
    ) throws(CryptoError) -> [UInt8] {
        guard privateKey.isPrivate, certificate.matches(privateKey) else {
            throw .parameter("the private key does not match the certificate")
        }
        guard let stack = copenssl_x509_stack_new() else { throw .library("sk_X509_new") }
        defer { copenssl_x509_stack_free(stack) }
        for other in chain {
            guard X509_up_ref(other.x509) == 1 else { throw .library("X509_up_ref") }
            if copenssl_x509_stack_push(stack, other.x509) <= 0 {
                X509_free(other.x509)
                throw .library("sk_X509_push")
            }
        }
        guard let p12 = PKCS12_create(passphrase, label, privateKey.pkey, certificate.x509, stack, 0, 0, 0, 0, 0) else {
            throw .library("PKCS12_create: \(OpenSSL.drainErrors())")
        }
        defer { PKCS12_free(p12) }
        return try OpenSSL.der { i2d_PKCS12(p12, $0) }
    }
}
