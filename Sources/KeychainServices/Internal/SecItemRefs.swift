import Foundation
internal import KeychainCore
internal import KeychainCrypto
internal import KeychainItems

/// The objects `SecItem*` hands out for key and certificate items (`kSecReturnRef`) and takes in
/// (`kSecValueRef`), over `KeychainItems`, which derives what they are stored as.
///
/// Sources: SecItemServer.c (`handle_result`: a reference only for keys, certificates and identities).
enum SecItemRefs {
    /// Whether items of the class have a reference (`kSecReturnRef`, `v_Ref`).
    static func hasReferences(_ itemClass: ItemClass) -> Bool { itemClass.hasReferences }

    /// The stored form of a `SecKey`.
    static func keyItem(_ key: SecKey) -> KeyItem {
        KeyItem(key.key, isExtractable: key.isExtractable, applicationTag: key.applicationTag, label: key.label)
    }

    /// The `SecKey` of a stored key.
    static func secKey(_ item: KeyItem) -> SecKey {
        SecKey(item.key, isExtractable: item.isExtractable, applicationTag: item.applicationTag, label: item.label)
    }

    /// The key a key item's data and attributes make, or `nil` when they do not make one.
    static func key(_ attributes: [String: AttributeValue], _ secret: SecureBytes) -> SecKey? {
        KeyItem(attributes: attributes, secret: secret).map(secKey)
    }

    /// The certificate of a certificate item's data.
    static func certificate(_ secret: SecureBytes) -> SecCertificate? {
        CertificateItem(secret: secret).map { SecCertificate($0.certificate) }
    }

    /// The object `kSecReturnRef` returns for an item read with its attributes and secret.
    static func reference(_ item: StoredItem) -> AnyObject? {
        guard let secret = item.secret else { return nil }
        switch item.itemClass {
        case .genericPassword, .internetPassword: return nil
        case .key: return key(item.attributes, secret)
        case .certificate: return certificate(secret)
        }
    }

    /// The filters a `kSecValueRef` stands for in a search, update or delete: a key's class, type,
    /// sizes and application label; a certificate's type, issuer and serial number (its primary key).
    /// - Throws: `.param` for an object that is not a reference of the query's class.
    static func filters(for reference: AnyObject, _ itemClass: ItemClass) throws(KeychainFailure) -> [String:
        AttributeValue]
    {
        switch (itemClass, reference) {
        case (.key, let key as SecKey): return keyItem(key).referenceFilters
        case (.certificate, let certificate as SecCertificate):
            return try CertificateItem(certificate.certificate).referenceFilters()
        default:
            throw KeychainFailure(.param, "kSecValueRef is not an object of the query's class")
        }
    }
}
