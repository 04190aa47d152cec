internal import COpenSSL

/// An X.509 certificate in an OpenSSL `X509`, with the values Apple's `SecCertificate`
/// functions and the certificate item attributes derive from it.
///
/// The DER given at init is kept and returned unchanged (``der``), as `SecCertificateCopyData` does.
// @unchecked Sendable: an immutable X509 (never modified after parsing), freed once in deinit.
package final class Certificate: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// The `X509`, owned by this object.
    let x509: OpaquePointer
    /// The certificate's DER, exactly as given.
    package let der: [UInt8]

    /// Takes ownership of `x509`.
    init(owning x509: OpaquePointer) throws(CryptoError) {
        self.x509 = x509
        do { der = try OpenSSL.der { libcrypto.i2d_X509(x509, $0) } } catch {
            libcrypto.X509_free(x509)
            throw error
        }
    }

    /// Parses a DER certificate (`SecCertificateCreateWithData`).
    /// - Throws: `CryptoError.decode` if the bytes are not exactly one DER X.509 certificate.
    package init(der bytes: [UInt8]) throws(CryptoError) {
        let decoded = try OpenSSL.decode(bytes, what: "X.509 certificate") { libcrypto.d2i_X509(nil, $0, $1) }
        guard decoded.free else {
            libcrypto.X509_free(decoded.object)
            throw .decode("X.509 certificate: trailing bytes")
        }
        x509 = decoded.object
        der = bytes
    }

    deinit { libcrypto.X509_free(x509) }

    /// Every `CERTIFICATE` block of a PEM file, in order.
    /// - Throws: `CryptoError.decode` if there is none or one is malformed.
    package static func certificates(pem bytes: [UInt8]) throws(CryptoError) -> [Certificate] {
        let bio = try OpenSSL.readBIO(bytes)
        defer { _ = libcrypto.BIO_free(bio) }
        var result: [Certificate] = []
        while let x509 = libcrypto.PEM_read_bio_X509(bio, nil, nil, nil) {
            result.append(try Certificate(owning: x509))
        }
        let endOfFile = OpenSSL.drainErrors(matching: ERR_LIB_PEM, reason: PEM_R_NO_START_LINE)
        guard !result.isEmpty, endOfFile else { throw .decode("PEM certificate") }
        return result
    }

    /// The certificate in PEM (`-----BEGIN CERTIFICATE-----`).
    package var pem: String {
        get throws(CryptoError) {
            guard let bio = libcrypto.BIO_new(libcrypto.BIO_s_mem()) else { throw .library("BIO_new") }
            defer { _ = libcrypto.BIO_free(bio) }
            try OpenSSL.check(libcrypto.PEM_write_bio_X509(bio, x509), "PEM_write_bio_X509")
            return String(decoding: OpenSSL.contents(of: bio), as: UTF8.self)
        }
    }

    // MARK: - Names

    /// Strings of the subject attributes with `nid`, in order of appearance.
    private func subjectStrings(_ nid: Int32) -> [String] {
        guard let name = libcrypto.X509_get_subject_name(x509) else { return [] }
        var strings: [String] = []
        var index: Int32 = -1
        while true {
            index = libcrypto.X509_NAME_get_index_by_NID(name, nid, index)
            guard index >= 0 else { break }
            if let entry = libcrypto.X509_NAME_get_entry(name, index),
                let data = libcrypto.X509_NAME_ENTRY_get_data(entry),
                let string = Self.utf8(data)
            {
                strings.append(string)
            }
        }
        return strings
    }

    /// An ASN.1 string's text as UTF-8, whatever its string type.
    static func utf8(_ string: UnsafePointer<ASN1_STRING>) -> String? {
        var output: UnsafeMutablePointer<UInt8>?
        let length = libcrypto.ASN1_STRING_to_UTF8(&output, string)
        guard length >= 0, let output else { return nil }
        defer { copenssl_free(output) }
        return String(decoding: UnsafeBufferPointer(start: output, count: Int(length)), as: UTF8.self)
    }

    /// The subject's common names (`2.5.4.3`), in order.
    package var commonNames: [String] { subjectStrings(NID_commonName) }

    /// `SecCertificateCopyCommonName`: the subject's last common name (Security's
    /// `SecCertificateCopyCommonName` returns the last of `SecCertificateCopyCommonNames`), or `nil`.
    package var commonName: String? { commonNames.last }

    /// `SecCertificateCopyEmailAddresses`: the subject's `emailAddress` attributes
    /// (PKCS #9, `1.2.840.113549.1.9.1`), then the `rfc822Name`s of the subject alternative name.
    package var emailAddresses: [String] {
        var addresses = subjectStrings(NID_pkcs9_emailAddress)
        guard let names = libcrypto.X509_get_ext_d2i(x509, NID_subject_alt_name, nil, nil) else { return addresses }
        let generalNames = OpaquePointer(names)
        defer { copenssl_general_names_free(generalNames) }
        for index in 0..<copenssl_general_names_count(generalNames) {
            var type: Int32 = 0
            guard let name = copenssl_general_names_value(generalNames, index),
                let value = libcrypto.GENERAL_NAME_get0_value(name, &type), type == GEN_EMAIL,
                let string = Self.utf8(value.assumingMemoryBound(to: ASN1_STRING.self))
            else { continue }
            addresses.append(string)
        }
        return addresses
    }

    /// `SecCertificateCopySubjectSummary`: a short human-readable name for the subject: its
    /// (last) common name, else its first email address, else its organizational unit, else its
    /// organization, else the whole subject in RFC 2253 form; `nil` for an empty subject.
    package var subjectSummary: String? {
        if let name = commonName, !name.isEmpty { return name }
        if let email = emailAddresses.first { return email }
        if let unit = subjectStrings(NID_organizationalUnitName).first { return unit }
        if let organization = subjectStrings(NID_organizationName).first { return organization }
        guard let name = libcrypto.X509_get_subject_name(x509), libcrypto.X509_NAME_entry_count(name) > 0,
            let bio = libcrypto.BIO_new(libcrypto.BIO_s_mem())
        else { return nil }
        defer { _ = libcrypto.BIO_free(bio) }
        guard libcrypto.X509_NAME_print_ex(bio, name, 0, copenssl_name_flags_rfc2253()) >= 0 else { return nil }
        return String(decoding: OpenSSL.contents(of: bio), as: UTF8.self)
    }

    /// The subject name's DER (`SEQUENCE`), as it appears in the certificate.
    package var subjectSequence: [UInt8] {
        get throws(CryptoError) {
            try OpenSSL.der { libcrypto.i2d_X509_NAME(libcrypto.X509_get_subject_name(x509), $0) }
        }
    }

    /// The issuer name's DER (`SEQUENCE`), as it appears in the certificate.
    package var issuerSequence: [UInt8] {
        get throws(CryptoError) {
            try OpenSSL.der { libcrypto.i2d_X509_NAME(libcrypto.X509_get_issuer_name(x509), $0) }
        }
    }

    /// `SecCertificateCopyNormalizedSubjectSequence`; the `kSecAttrSubject` of certificate items.
    package var normalizedSubjectSequence: [UInt8] {
        get throws(CryptoError) { try Self.normalized(libcrypto.X509_get_subject_name(x509)) }
    }

    /// `SecCertificateCopyNormalizedIssuerSequence`; the `kSecAttrIssuer` of certificate items.
    package var normalizedIssuerSequence: [UInt8] {
        get throws(CryptoError) { try Self.normalized(libcrypto.X509_get_issuer_name(x509)) }
    }

    /// The normalized form (``normalized(_:)``) of an X.501 name given as DER, or `nil` when `der` is
    /// not one name. Certificate items' `kSecAttrIssuer`/`kSecAttrSubject` in a query are normalized
    /// with it, as Security normalizes them on add.
    package static func normalizedName(der: [UInt8]) -> [UInt8]? {
        guard let decoded = try? OpenSSL.decode(der, what: "X.501 name", { libcrypto.d2i_X509_NAME(nil, $0, $1) })
        else {
            return nil
        }
        defer { libcrypto.X509_NAME_free(decoded.object) }
        guard decoded.free else { return nil }
        return try? normalized(decoded.object)
    }

    /// Normalizes an X.501 name as Security's `createNormalizedX501Name` does (after RFC 5280
    /// §7.1 (c) and (d)): each `PrintableString` value is upper-cased (ASCII `a`–`z`), runs of
    /// blanks become one space, and leading and trailing blanks go. Other values, the RDN
    /// structure and the attribute types are kept. Returns the DER of the resulting `SEQUENCE`.
    static func normalized(_ name: OpaquePointer?) throws(CryptoError) -> [UInt8] {
        guard let name else { throw .decode("X.501 name") }
        guard let result = libcrypto.X509_NAME_new() else { throw .library("X509_NAME_new") }
        defer { libcrypto.X509_NAME_free(result) }
        var previousSet: Int32 = -1
        for index in 0..<libcrypto.X509_NAME_entry_count(name) {
            guard let entry = libcrypto.X509_NAME_get_entry(name, index),
                let data = libcrypto.X509_NAME_ENTRY_get_data(entry)
            else {
                throw .decode("X.501 name entry")
            }
            let set = libcrypto.X509_NAME_ENTRY_set(entry)
            let position: Int32 = index > 0 && set == previousSet ? -1 : 0
            previousSet = set
            if libcrypto.ASN1_STRING_type(data) == V_ASN1_PRINTABLESTRING {
                let value = normalizedPrintable(
                    Array(
                        UnsafeBufferPointer(
                            start: libcrypto.ASN1_STRING_get0_data(data), count: Int(libcrypto.ASN1_STRING_length(data))
                        ))
                )
                guard let object = libcrypto.X509_NAME_ENTRY_get_object(entry),
                    libcrypto.X509_NAME_add_entry_by_OBJ(
                        result, object, V_ASN1_PRINTABLESTRING, value, Int32(value.count), -1, position)
                        == 1
                else { throw .library("X509_NAME_add_entry_by_OBJ: \(OpenSSL.drainErrors())") }
            } else {
                try OpenSSL.check(libcrypto.X509_NAME_add_entry(result, entry, -1, position), "X509_NAME_add_entry")
            }
        }
        return try OpenSSL.der { libcrypto.i2d_X509_NAME(result, $0) }
    }

    /// A `PrintableString`'s bytes upper-cased, with blank runs collapsed and the ends trimmed.
    static func normalizedPrintable(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var lastWasBlank = false
        for byte in bytes {
            if byte == 0x20 || byte == 0x09 {
                if !lastWasBlank && !output.isEmpty { output.append(0x20) }
                lastWasBlank = true
            } else {
                lastWasBlank = false
                output.append((0x61...0x7A).contains(byte) ? byte - 0x20 : byte)
            }
        }
        if lastWasBlank, output.last == 0x20 { output.removeLast() }
        return output
    }

    // MARK: - Key and serial number

    /// `SecCertificateCopyKey`: the subject public key.
    /// - Throws: `CryptoError.unsupported` for keys other than EC (P-256/384/521) and RSA.
    package func publicKey() throws(CryptoError) -> CryptoKey {
        guard let pkey = libcrypto.X509_get_pubkey(x509) else {
            throw .decode("certificate public key: \(OpenSSL.drainErrors())")
        }
        return try CryptoKey(owning: pkey, isPrivate: false)
    }

    /// `kSecAttrPublicKeyHash` of certificate items: SHA-1 of the subject public key's BIT STRING
    /// contents (Security's `SecCertificateCopyPublicKeySHA1Digest`), which for EC and RSA keys
    /// equals the `kSecAttrApplicationLabel` of the matching key items.
    package var publicKeyHash: [UInt8] {
        get throws(CryptoError) {
            guard let bits = libcrypto.X509_get0_pubkey_bitstr(x509) else { throw .decode("certificate public key") }
            let bytes = Array(
                UnsafeBufferPointer(
                    start: libcrypto.ASN1_STRING_get0_data(bits), count: Int(libcrypto.ASN1_STRING_length(bits))))
            return try HashFunction.sha1.hash(bytes)
        }
    }

    /// `SecCertificateCopySerialNumberData`, the `kSecAttrSerialNumber` of certificate items: the
    /// content octets of the DER `INTEGER` (two's complement, a leading `00` when the top bit is set).
    package var serialNumber: [UInt8] {
        get throws(CryptoError) {
            guard let serial = libcrypto.X509_get0_serialNumber(x509) else { throw .decode("serial number") }
            let encoded = try OpenSSL.der { libcrypto.i2d_ASN1_INTEGER(serial, $0) }
            // Tag 02, then a short (< 0x80) or long (0x8N + N bytes) length.
            guard encoded.count >= 2 else { throw .decode("serial number") }
            let header = encoded[1] < 0x80 ? 2 : 2 + Int(encoded[1] & 0x7F)
            return Array(encoded[header...])
        }
    }

    /// The X.509 version as written in the certificate: 0 for v1, 2 for v3.
    package var version: Int { Int(libcrypto.X509_get_version(x509)) }

    /// `kSecAttrSubjectKeyID` of certificate items: the subject key identifier extension's key
    /// identifier, or `nil` when the certificate has none.
    package var subjectKeyIdentifier: [UInt8]? {
        guard let identifier = libcrypto.X509_get0_subject_key_id(x509) else {
            _ = OpenSSL.drainErrors()
            return nil
        }
        return Array(
            UnsafeBufferPointer(
                start: libcrypto.ASN1_STRING_get0_data(identifier), count: Int(libcrypto.ASN1_STRING_length(identifier))
            ))
    }

    // MARK: - Hashable

    /// The `hash` of the DER: the certificate's fingerprint (`security find-certificate -Z`).
    package func fingerprint(_ hash: HashFunction) throws(CryptoError) -> [UInt8] { try OpenSSL.hash(hash, der) }

    package static func == (lhs: Certificate, rhs: Certificate) -> Bool { lhs.der == rhs.der }
    package func hash(into hasher: inout Hasher) { hasher.combine(der) }
    package var description: String { "Certificate(\(subjectSummary ?? "no subject"))" }

    /// Whether `key` is the private key of this certificate's public key.
    package func matches(_ key: CryptoKey) -> Bool {
        (try? key.publicKeyHash) == (try? publicKeyHash)
    }
}
