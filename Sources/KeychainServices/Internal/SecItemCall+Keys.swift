import Foundation
internal import KeychainCore
internal import KeychainItems

// Keys, certificates and identities in the four SecItem calls (tracker issue 18), over
// `KeychainItems`: the attributes are derived and the identity join is made there.
extension SecItemCall {
    /// Adds the item `request` describes, with `attributes` (the request's, with its access group and
    /// access control): a key or certificate from `kSecValueRef` (attributes derived as Apple derives
    /// them; the caller's given attributes take precedence), a key or certificate from `kSecValueData`,
    /// a password, or for a `SecIdentity` both its certificate and its private key in one transaction.
    /// - Returns: the persistent reference of the item added (for an identity, its certificate's).
    /// - Throws: `.param` for a reference of another class or certificate data that is not DER;
    ///   `.duplicateItem` when the item (for an identity, its certificate) exists.
    static func add(_ request: SecItemRequest, _ attributes: [String: AttributeValue], _ gateway: ItemGateway)
        throws(KeychainFailure) -> [UInt8]
    {
        switch (request.itemClass, request.valueRef) {
        case (.key, let key as SecKey):
            return try gateway.add(try SecItemRefs.keyItem(key).newItem(attributes))
        case (.certificate, let certificate as SecCertificate) where !request.isIdentity:
            return try gateway.add(try CertificateItem(certificate.certificate).newItem(attributes))
        case (.certificate, let identity as SecIdentity):
            return try gateway.addIdentity(
                CertificateItem(identity.certificate.certificate), SecItemRefs.keyItem(identity.privateKey),
                given: attributes)
        case (_, .some):
            throw KeychainFailure(.param, "kSecValueRef is not an object of the item's class")
        case (.key, nil):
            guard let data = request.secret else {
                return try gateway.add(NewItem(.key, attributes: attributes, secret: nil))
            }
            let secret = SecureBytes(copying: data)
            return try gateway.add(
                NewItem(.key, attributes: KeyItem.derivedAttributes(attributes, secret), secret: secret))
        case (.certificate, nil):
            guard !request.isIdentity else { throw KeychainFailure(.param, "an identity is added with kSecValueRef") }
            return try gateway.add(CertificateItem.newItem(der: Array(request.secret ?? Data()), attributes))
        case (.genericPassword, nil), (.internetPassword, nil):
            return try gateway.add(
                NewItem(
                    request.itemClass, attributes: attributes, secret: request.secret.map { SecureBytes(copying: $0) }))
        }
    }

    /// The identities among `certificates` (certificate items read with their attributes, and their
    /// data when a reference or data is returned), joined by ``ItemGateway/identities(of:keyFilters:reads:)``.
    /// An identity's attributes are the key's with the certificate's added, `class` is `idnt` when
    /// returned, and its reference is a `SecIdentity`.
    /// - Returns: the identity records, and the private keys by certificate persistent reference (to
    ///   build the `SecIdentity` objects; only when a reference or data was asked for).
    /// - Parameter reads: the releasing search's reads, when the certificates were read with their data.
    static func identities(
        _ certificates: [StoredItem], _ request: SecItemRequest, _ gateway: ItemGateway,
        _ reads: ItemGateway.SecretReads?
    ) throws(KeychainFailure) -> (records: [StoredItem], keys: [[UInt8]: SecKey]) {
        let withSecret = (request.returnRef || request.returnData) && reads != nil
        let joined = try gateway.identities(
            of: certificates, keyFilters: request.identityKeyFilters, reads: withSecret ? reads : nil)
        var keys: [[UInt8]: SecKey] = [:]
        if withSecret {
            for identity in joined {
                if let key = identity.keyItem { keys[identity.certificate.persistentRef] = SecItemRefs.secKey(key) }
            }
        }
        return (joined.map(\.record), keys)
    }

    /// Deletes the identities `search` (a certificate query) finds: each certificate and its private key.
    /// - Returns: how many identities were deleted.
    static func deleteIdentities(_ search: ItemQuery, _ request: SecItemRequest, _ gateway: ItemGateway)
        throws(KeychainFailure) -> Int
    {
        try gateway.deleteIdentities(search, keyFilters: request.identityKeyFilters)
    }
}
