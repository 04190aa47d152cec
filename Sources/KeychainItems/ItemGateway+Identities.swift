package import KeychainCore

/// An identity: a certificate item joined with the private key item whose application label
/// (`klbl`) is the certificate's public key hash (`pkhh`). It has no row of its own (SecItemServer.c
/// joins the `cert` and `keys` tables on those columns).
package struct IdentityItem: Sendable {
    /// The certificate item (with its secret, the DER, when it was read).
    package let certificate: StoredItem
    /// The private key item (with its secret when it was read).
    package let key: StoredItem

    /// The identity as one record, as SecItemServer.c returns it: the key's attributes with the
    /// certificate's added, the certificate's persistent reference and its data.
    package var record: StoredItem {
        var attributes = key.attributes
        for (name, value) in certificate.attributes where attributes[name] == nil { attributes[name] = value }
        return StoredItem(
            itemClass: .certificate, attributes: attributes, persistentRef: certificate.persistentRef,
            secret: certificate.secret)
    }

    /// The certificate, when its data was read and is a DER certificate.
    package var certificateItem: CertificateItem? { certificate.secret.flatMap { CertificateItem(secret: $0) } }

    /// The private key, when its data was read and makes a key.
    package var keyItem: KeyItem? { key.secret.flatMap { KeyItem(attributes: key.attributes, secret: $0) } }
}

// Keys, certificates and identities on the gateway (tracker issue 18): what SecItem's four calls and
// the `security` tool's certificate commands share.
extension ItemGateway {
    /// Adds a certificate and its private key as an identity, in one write transaction.
    ///
    /// The key takes the common attributes of `given` (group, accessibility, access control, label,
    /// sync: those a key item has); the certificate takes all of them. A private key already stored
    /// (SecKeyCreateRandomKey with `kSecAttrIsPermanent`, then the certificate) completes the
    /// identity as it is (``addIdentity(certificate:key:)``).
    /// - Parameters:
    ///   - certificate: the certificate.
    ///   - key: its private key.
    ///   - given: attributes given by the caller, over the derived ones.
    /// - Returns: the certificate's persistent reference.
    /// - Throws: `.param` when the certificate's names cannot be read or the key has no external
    ///   representation; `.duplicateItem` when the certificate exists; as ``add(_:)``.
    package func addIdentity(
        _ certificate: CertificateItem, _ key: KeyItem, given: [String: AttributeValue] = [:]
    ) throws(KeychainFailure) -> [UInt8] {
        let keyGiven = given.filter { ItemClass.key.descriptor($0.key) != nil }
        return try addIdentity(certificate: try certificate.newItem(given), key: try key.newItem(keyGiven))
    }

    /// The identities among `certificates` (certificate items read with their attributes, and their
    /// data when read with `reads`): each joined with the private key whose `klbl` is its `pkhh`, in
    /// the gateway's groups.
    /// - Parameters:
    ///   - certificates: certificate items, in the order to return.
    ///   - keyFilters: further filters on the key (a `SecItem` identity query's key attributes).
    ///   - reads: read the keys' data too, with a releasing search's reads (to build keys: references,
    ///     data, export; ``ItemGateway/search(_:projection:release:refusal:narrowing:)``); `nil` for
    ///     attributes only.
    /// - Returns: one identity per certificate that has its private key; `[]` for none.
    /// - Throws: the engine's failures (a locked keychain: `.interactionNotAllowed`).
    package func identities(
        of certificates: [StoredItem], keyFilters: [String: AttributeValue] = [:], reads: SecretReads?
    ) throws(KeychainFailure) -> [IdentityItem] {
        var joined: [IdentityItem] = []
        for certificate in certificates {
            guard let hash = certificate.attributes[.publicKeyHash] else { continue }
            var filters = keyFilters
            filters[.applicationLabel] = hash
            filters[.keyClass] = .integer(1)
            let keyQuery = ItemQuery(
                itemClass: .key, filters: filters, scope: callerScope, synchronizable: .any, limit: 1)
            let keys =
                if let reads { try reads.search(keyQuery, projection: .attributes) } else {
                    try search(keyQuery, projection: .attributes)
                }
            guard let key = keys.first else { continue }
            joined.append(IdentityItem(certificate: certificate, key: key))
        }
        return joined
    }

    /// Deletes the identities `search` (a certificate query) finds: each certificate and its private
    /// key, in one transaction per identity.
    /// - Parameters:
    ///   - search: the certificates to consider.
    ///   - keyFilters: further filters on the key.
    /// - Returns: how many identities were deleted.
    /// - Throws: the engine's failures.
    package func deleteIdentities(
        _ search: ItemQuery, keyFilters: [String: AttributeValue] = [:]
    ) throws(KeychainFailure) -> Int {
        let found = try identities(
            of: try self.search(search, projection: .attributes), keyFilters: keyFilters, reads: nil)
        var deleted = 0
        for identity in found {
            _ = try delete(references: [
                (.certificate, identity.certificate.persistentRef), (.key, identity.key.persistentRef),
            ])
            deleted += 1
        }
        return deleted
    }
}
