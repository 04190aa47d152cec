package import KeychainCore
package import KeychainCrypto

/// A certificate as a certificate item stores it: the attributes `SecCertificateCopyAttributeDictionary`
/// derives (`ctyp` the X.509 version, `cenc` 3 for DER, `subj` and `issr` the normalized names,
/// `slnr` the serial number, `pkhh` the SHA-1 of the public key, `skid` when the certificate has one)
/// and its DER as the item's secret.
///
/// Source: Security's SecCertificate.c (the attribute dictionary) and SecItemSchema.c (the `cert`
/// table, primary key `ctyp, issr, slnr`). `KeychainServices` and the `security` tool's certificate
/// commands both store certificates through it.
package struct CertificateItem: Sendable {
    /// The certificate.
    package let certificate: Certificate

    /// A certificate to store.
    /// - Parameter certificate: the certificate.
    package init(_ certificate: Certificate) { self.certificate = certificate }

    /// The certificate a stored certificate item's secret (its DER) makes.
    /// - Parameter secret: the item's data.
    /// - Returns: `nil` when the bytes are not a DER certificate.
    package init?(secret: SecureBytes) {
        let der = secret.withUnsafeBytes { [UInt8]($0) }
        guard let certificate = try? Certificate(der: der) else { return nil }
        self.init(certificate)
    }

    /// The derived attributes.
    /// - Throws: `.param` when the certificate's names, serial number or public key cannot be read.
    package func attributes() throws(KeychainFailure) -> [String: AttributeValue] {
        guard let subject = try? certificate.normalizedSubjectSequence,
            let issuer = try? certificate.normalizedIssuerSequence, let serial = try? certificate.serialNumber,
            let keyHash = try? certificate.publicKeyHash
        else { throw KeychainFailure(.param, "the certificate's names or serial number cannot be read") }
        var attributes: [String: AttributeValue] = [
            AttributeName.certificateType.rawValue: .integer(Int64(certificate.version + 1)),
            AttributeName.certificateEncoding.rawValue: .integer(3),
            AttributeName.subject.rawValue: .data(subject),
            AttributeName.issuer.rawValue: .data(issuer),
            AttributeName.serialNumber.rawValue: .data(serial),
            AttributeName.publicKeyHash.rawValue: .data(keyHash),
        ]
        if let keyID = certificate.subjectKeyIdentifier { attributes[.subjectKeyID] = .data(keyID) }
        return attributes
    }

    /// The new item this certificate is added as, with `given` attributes taking precedence.
    /// - Throws: `.param` as ``attributes()``.
    package func newItem(_ given: [String: AttributeValue] = [:]) throws(KeychainFailure) -> NewItem {
        var merged = try attributes()
        for (name, value) in given { merged[name] = value }
        return NewItem(.certificate, attributes: merged, secret: SecureBytes(copying: certificate.der))
    }

    /// The new item DER data (`kSecValueData`) is added as, with `given` attributes taking precedence.
    /// - Throws: `.param` when the data is not a DER certificate, or as ``attributes()``.
    package static func newItem(der: [UInt8], _ given: [String: AttributeValue]) throws(KeychainFailure) -> NewItem {
        guard let certificate = try? Certificate(der: der) else {
            throw KeychainFailure(.param, "kSecValueData is not a DER certificate")
        }
        return try CertificateItem(certificate).newItem(given)
    }

    /// The filters a certificate stands for in a search (`kSecValueRef`): its primary key (type, issuer, serial number).
    /// - Throws: `.param` as ``attributes()``.
    package func referenceFilters() throws(KeychainFailure) -> [String: AttributeValue] {
        let primaryKey = ItemGateway.primaryKeyNames(.certificate)
        return try attributes().filter { primaryKey.contains(AttributeName(rawValue: $0.key)) }
    }
}
