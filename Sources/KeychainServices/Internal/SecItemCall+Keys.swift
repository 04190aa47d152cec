import Foundation
internal import KeychainCore

// Keys, certificates and identities in the four SecItem calls (tracker issue 18).
// An identity has no row of its own: it is a certificate whose public key hash (`pkhh`) equals a
// private key's application label (`klbl`), both readable by the caller (SecItemServer.c joins the
// `cert` and `keys` tables on those columns).
extension SecItemCall {
    /// Adds the item `request` describes, with `attributes` (the request's, with its access group and
    /// access control): a key or certificate from `kSecValueRef` (attributes derived as Apple derives
    /// them; the caller's given attributes take precedence), a key or certificate from `kSecValueData`,
    /// a password, or for a `SecIdentity` both its certificate and its private key in one transaction.
    /// - Returns: the persistent reference of the item added (for an identity, its certificate's).
    /// - Throws: `.param` for a reference of another class or certificate data that is not DER;
    ///   `.duplicateItem` when the item (for an identity, its certificate) exists.
    static func add(_ request: SecItemRequest, _ attributes: [String: AttributeValue], _ gateway: ItemGateway)
        throws(KeychainFailure) -> Data
    {
        func merged(_ derived: [String: AttributeValue]) -> [String: AttributeValue] {
            var result = derived
            for (name, value) in attributes { result[name] = value }
            return result
        }
        switch (request.itemClass, request.valueRef) {
        case (.key, let key as SecKey):
            let item = try SecItemRefs.keyItem(key)
            return try gateway.add(NewItem(.key, attributes: merged(item.attributes), secret: item.secret))
        case (.certificate, let certificate as SecCertificate) where !request.isIdentity:
            let item = try SecItemRefs.certificateItem(certificate)
            return try gateway.add(NewItem(.certificate, attributes: merged(item.attributes), secret: item.secret))
        case (.certificate, let identity as SecIdentity):
            let certificate = try SecItemRefs.certificateItem(identity.certificate)
            let key = try SecItemRefs.keyItem(identity.privateKey)
            // The key takes the common attributes given (group, accessibility, access control, label,
            // sync); certificate attributes given apply to the certificate only.
            var keyAttributes = key.attributes
            for (name, value) in attributes where ItemClass.key.descriptor(name) != nil { keyAttributes[name] = value }
            // A private key already stored (SecKeyCreateRandomKey with kSecAttrIsPermanent, then the
            // certificate) completes the identity as it is.
            return try gateway.addIdentity(
                certificate: NewItem(
                    .certificate, attributes: merged(certificate.attributes), secret: certificate.secret),
                key: NewItem(.key, attributes: keyAttributes, secret: key.secret))
        case (_, .some):
            throw KeychainFailure(.param, "kSecValueRef is not an object of the item's class")
        case (.key, nil):
            guard let data = request.secret else {
                return try gateway.add(NewItem(.key, attributes: attributes, secret: nil))
            }
            let secret = SecureBytes(copying: data)
            return try gateway.add(
                NewItem(.key, attributes: SecItemRefs.derivedKeyAttributes(attributes, secret), secret: secret))
        case (.certificate, nil):
            guard !request.isIdentity else { throw KeychainFailure(.param, "an identity is added with kSecValueRef") }
            let der = request.secret ?? Data()
            let derived = try SecItemRefs.derivedCertificateAttributes(attributes, der)
            return try gateway.add(NewItem(.certificate, attributes: derived, secret: SecureBytes(copying: der)))
        case (.genericPassword, nil), (.internetPassword, nil):
            return try gateway.add(
                NewItem(
                    request.itemClass, attributes: attributes, secret: request.secret.map { SecureBytes(copying: $0) }))
        }
    }

    /// The identities among `certificates` (certificate items read with their attributes, and their
    /// data when a reference or data is returned): each certificate joined with the private key whose
    /// `klbl` is its `pkhh`, in the caller's groups. An identity's attributes are the key's with the
    /// certificate's added (SecItemServer.c builds the identity's result from the key row and the
    /// certificate row), `class` is `idnt` when returned, and its reference is a `SecIdentity`.
    /// - Returns: the identity records, and the private keys by certificate persistent reference (to
    ///   build the `SecIdentity` objects; only when a reference or data was asked for).
    static func identities(_ certificates: [ItemRecord], _ request: SecItemRequest, _ gateway: ItemGateway)
        throws(KeychainFailure) -> (records: [ItemRecord], keys: [Data: SecKey])
    {
        var joined: [ItemRecord] = []
        var keys: [Data: SecKey] = [:]
        let withSecret = request.returnRef || request.returnData
        for certificate in certificates {
            guard let hash = certificate.attributes[.publicKeyHash] else { continue }
            var filters = request.identityKeyFilters
            filters[.applicationLabel] = hash
            filters[.keyClass] = .integer(1)
            let keyQuery = ItemQuery(
                itemClass: .key, filters: filters, accessGroups: gateway.identity.searchGroups, synchronizable: .any,
                limit: 1)
            guard
                let key = try gateway.search(keyQuery, projection: withSecret ? [.attributes, .secret] : .attributes)
                    .first
            else { continue }
            var attributes = key.attributes
            for (name, value) in certificate.attributes where attributes[name] == nil { attributes[name] = value }
            var record = ItemRecord(
                itemClass: .certificate, attributes: attributes, persistentRef: certificate.persistentRef,
                secret: certificate.secret)
            record.attributes[identityKeyMarker] = .data(key.persistentRef)
            if withSecret, let keySecret = key.secret, let privateKey = SecItemRefs.key(key.attributes, keySecret) {
                keys[certificate.persistentRef] = privateKey
            }
            joined.append(record)
        }
        return (joined, keys)
    }

    /// The attribute an identity record carries its key's persistent reference in (never returned).
    static let identityKeyMarker = "\u{1}identity-key"

    /// Deletes the identities `search` (a certificate query) finds: each certificate and its private key.
    /// - Returns: how many identities were deleted.
    static func deleteIdentities(_ search: ItemQuery, _ request: SecItemRequest, _ gateway: ItemGateway)
        throws(KeychainFailure) -> Int
    {
        let found = try identities(try gateway.search(search, projection: .attributes), request, gateway).records
        var deleted = 0
        for identity in found {
            guard case .data(let keyRef)? = identity.attributes[identityKeyMarker] else { continue }
            _ = try gateway.delete(references: [(.certificate, identity.persistentRef), (.key, keyRef)])
            deleted += 1
        }
        return deleted
    }
}
