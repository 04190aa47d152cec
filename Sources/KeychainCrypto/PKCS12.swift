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

    /// Parses `bytes` with `passphrase` and returns its first identity (see ``parseAll(_:passphrase:)``).
    /// - Throws: as ``parseAll(_:passphrase:)``.
    package static func parse(_ bytes: [UInt8], passphrase: String) throws(CryptoError) -> Contents {
        try parseAll(bytes, passphrase: passphrase)[0]
    }

    /// Parses `bytes` with `passphrase` (`SecPKCS12Import`): one ``Contents`` per private key, in
    /// file order, each with the certificate of that key.
    ///
    /// The file is walked bag by bag with OpenSSL (`PKCS12_unpack_authsafes`, `…_p7data`,
    /// `…_p7encdata`, `PKCS12_decrypt_skey`), not with `PKCS12_parse`, which returns one key only
    /// and refuses files without a MAC. A key's certificate is the one with the same `localKeyID`,
    /// else the one whose public key matches. Each chain is the leaf, then every certificate of the
    /// file that is no identity's leaf.
    /// - Throws: `CryptoError.authFailed` when the passphrase is wrong (the MAC does not verify, or
    ///   a file without a MAC does not decrypt); `.decode` when the bytes are not PKCS #12, or it
    ///   holds no private key with its certificate; `.unsupported` for keys other than EC
    ///   (P-256/384/521) and RSA.
    package static func parseAll(_ bytes: [UInt8], passphrase: String) throws(CryptoError) -> [Contents] {
        _ = legacyAlgorithms
        let decoded = try OpenSSL.decode(bytes, what: "PKCS #12 file") { libcrypto.d2i_PKCS12(nil, $0, $1) }
        let p12 = decoded.object
        defer { libcrypto.PKCS12_free(p12) }
        guard decoded.free else { throw .decode("PKCS #12 file: trailing bytes") }
        // An empty passphrase may have been encoded as no password at all or as an empty one
        // (PKCS12_parse tries both the same way).
        let candidates: [String?] = passphrase.isEmpty ? [nil, ""] : [passphrase]
        let hasMAC = libcrypto.PKCS12_mac_present(p12) == 1
        var chosen: String?? = .none
        for candidate in candidates {
            let verified =
                !hasMAC
                || (candidate.map { libcrypto.PKCS12_verify_mac(p12, $0, Int32($0.utf8.count)) }
                    ?? libcrypto.PKCS12_verify_mac(p12, nil, 0)) == 1
            if verified {
                chosen = .some(candidate)
                break
            }
        }
        _ = OpenSSL.drainErrors()
        guard case .some(let password) = chosen else { throw .authFailed }
        // Without a MAC, a wrong passphrase shows only as content that does not decrypt.
        let undecryptable: CryptoError = hasMAC ? .decode("PKCS #12 contents") : .authFailed
        var bags = Bags()
        guard let safes = libcrypto.PKCS12_unpack_authsafes(p12) else {
            _ = OpenSSL.drainErrors()
            throw .decode("PKCS #12 contents")
        }
        defer { copenssl_pkcs7_stack_free(safes) }
        for index in 0..<copenssl_pkcs7_stack_count(safes) {
            guard let p7 = copenssl_pkcs7_stack_value(safes, index) else { continue }
            let contents: OpaquePointer?
            switch copenssl_pkcs7_type(p7) {
            case NID_pkcs7_data: contents = libcrypto.PKCS12_unpack_p7data(p7)
            case NID_pkcs7_encrypted:
                contents = withPassword(password) { libcrypto.PKCS12_unpack_p7encdata(p7, $0, $1) }
                if contents == nil {
                    _ = OpenSSL.drainErrors()
                    throw undecryptable
                }
            default: continue
            }
            guard let contents else {
                _ = OpenSSL.drainErrors()
                throw .decode("PKCS #12 contents")
            }
            defer { copenssl_safebag_stack_free(contents) }
            try bags.collect(contents, password: password, undecryptable: undecryptable, depth: 0)
        }
        return try bags.identities()
    }

    /// Calls `body` with the passphrase as OpenSSL takes it (`NULL`, 0 for none).
    static func withPassword<R>(_ password: String?, _ body: (UnsafePointer<CChar>?, Int32) -> R) -> R {
        guard let password else { return body(nil, 0) }
        return password.withCString { body($0, Int32(password.utf8.count)) }
    }

    /// The keys and certificates of a file, with their bag attributes.
    struct Bags {
        struct Attributes {
            var keyID: [UInt8]?
            var label: String?
        }
        var keys: [(key: CryptoKey, attributes: Attributes)] = []
        var certificates: [(certificate: Certificate, attributes: Attributes)] = []

        /// Reads every bag of `stack`, descending into nested SafeContents bags.
        mutating func collect(_ stack: OpaquePointer, password: String?, undecryptable: CryptoError, depth: Int)
            throws(CryptoError)
        {
            guard depth < 4 else { throw .decode("PKCS #12 contents: nesting too deep") }
            for index in 0..<copenssl_safebag_stack_count(stack) {
                guard let bag = copenssl_safebag_stack_value(stack, index) else { continue }
                switch libcrypto.PKCS12_SAFEBAG_get_nid(bag) {
                case NID_keyBag:
                    guard let info = libcrypto.PKCS12_SAFEBAG_get0_p8inf(bag), let pkey = libcrypto.EVP_PKCS82PKEY(info)
                    else {
                        _ = OpenSSL.drainErrors()
                        throw .decode("PKCS #12 key bag")
                    }
                    keys.append((try CryptoKey(owning: pkey, isPrivate: true), Self.attributes(of: bag)))
                case NID_pkcs8ShroudedKeyBag:
                    guard let info = PKCS12.withPassword(password, { libcrypto.PKCS12_decrypt_skey(bag, $0, $1) })
                    else {
                        _ = OpenSSL.drainErrors()
                        throw undecryptable
                    }
                    let pkey = libcrypto.EVP_PKCS82PKEY(info)
                    libcrypto.PKCS8_PRIV_KEY_INFO_free(info)
                    guard let pkey else {
                        _ = OpenSSL.drainErrors()
                        throw .decode("PKCS #12 key bag")
                    }
                    keys.append((try CryptoKey(owning: pkey, isPrivate: true), Self.attributes(of: bag)))
                case NID_certBag:
                    guard libcrypto.PKCS12_SAFEBAG_get_bag_nid(bag) == NID_x509Certificate else { continue }
                    guard let x509 = libcrypto.PKCS12_SAFEBAG_get1_cert(bag) else {
                        _ = OpenSSL.drainErrors()
                        throw .decode("PKCS #12 certificate bag")
                    }
                    certificates.append((try Certificate(owning: x509), Self.attributes(of: bag)))
                case NID_safeContentsBag:
                    guard let nested = libcrypto.PKCS12_SAFEBAG_get0_safes(bag) else { continue }
                    try collect(nested, password: password, undecryptable: undecryptable, depth: depth + 1)
                default: continue
                }
            }
        }

        /// A bag's `localKeyID` and `friendlyName`.
        static func attributes(of bag: OpaquePointer) -> Attributes {
            var attributes = Attributes()
            if let octets = copenssl_type_octets(libcrypto.PKCS12_SAFEBAG_get0_attr(bag, NID_localKeyID)) {
                attributes.keyID = Array(
                    UnsafeBufferPointer(
                        start: libcrypto.ASN1_STRING_get0_data(octets), count: Int(libcrypto.ASN1_STRING_length(octets))
                    ))
            }
            if let name = libcrypto.PKCS12_get_friendlyname(bag) {
                attributes.label = String(cString: name)
                copenssl_free(name)
            }
            return attributes
        }

        /// One identity per key, in file order.
        func identities() throws(CryptoError) -> [Contents] {
            guard !keys.isEmpty else { throw .decode("PKCS #12 file: no private key") }
            var leaves: [Int] = []
            for (key, attributes) in keys {
                let byKeyID = attributes.keyID.flatMap { id in certificates.firstIndex { $0.attributes.keyID == id } }
                guard let leaf = byKeyID ?? certificates.firstIndex(where: { $0.certificate.matches(key) }),
                    certificates[leaf].certificate.matches(key)
                else { throw .decode("PKCS #12 file: no certificate for the private key") }
                leaves.append(leaf)
            }
            let others = certificates.indices.filter { !leaves.contains($0) }.map { certificates[$0].certificate }
            return zip(keys, leaves).map { entry, leaf in
                let certificate = certificates[leaf]
                return Contents(
                    privateKey: entry.key, certificate: certificate.certificate,
                    chain: [certificate.certificate] + others,
                    keyID: entry.attributes.keyID ?? certificate.attributes.keyID,
                    label: entry.attributes.label ?? certificate.attributes.label)
            }
        }
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
            handles = names.compactMap { name in name.withCString { libcrypto.OSSL_PROVIDER_load(nil, $0) } }
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
            guard libcrypto.X509_up_ref(other.x509) == 1 else { throw .library("X509_up_ref") }
            if copenssl_x509_stack_push(stack, other.x509) <= 0 {
                libcrypto.X509_free(other.x509)
                throw .library("sk_X509_push")
            }
        }
        guard
            let p12 = libcrypto.PKCS12_create(
                passphrase, label, privateKey.pkey, certificate.x509, stack, 0, 0, 0, 0, 0)
        else {
            throw .library("PKCS12_create: \(OpenSSL.drainErrors())")
        }
        defer { libcrypto.PKCS12_free(p12) }
        return try OpenSSL.der { libcrypto.i2d_PKCS12(p12, $0) }
    }
}
