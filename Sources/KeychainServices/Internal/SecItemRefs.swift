import Foundation
internal import KeychainCore
internal import KeychainCrypto

/// Key and certificate items: the attributes and secret a `SecKey` or `SecCertificate` is stored as,
/// and the object a stored item is returned as (`kSecReturnRef`).
///
/// Sources: Security's `SecKeyCopyAttributes` / `SecCertificateCopyAttributeDictionary` (the derived
/// attributes), SecItemSchema.c (the key and certificate classes), SecItemServer.c (`handle_result`:
/// a reference only for keys, certificates and identities).
enum SecItemRefs {
    /// Whether items of the class have a reference (`kSecReturnRef`, `v_Ref`).
    static func hasReferences(_ itemClass: ItemClass) -> Bool {
        switch itemClass {
        case .genericPassword, .internetPassword: false
        case .key, .certificate: true
        }
    }

    /// The attributes of a key item as `SecKeyCopyAttributes` gives them (`kcls`, `type`, `bsiz`,
    /// `esiz`, `klbl`, the usage flags, `extr`, and `atag`/`labl` when the key has them), and its
    /// external representation as the secret, copied into zeroising memory.
    static func keyItem(_ key: SecKey) throws(KeychainFailure) -> (attributes: [String: AttributeValue], secret: SecureBytes) {
        var attributes: [String: AttributeValue] = [:]
        // SecKeyCopyAttributes's set without its kSecValueData: the private bytes go only into SecureBytes.
        for (name, value) in keyAttributes(key, includingData: false) {
            guard let descriptor = ItemClass.key.descriptor(name), !descriptor.isManaged,
                let typed = try? SecItemRequest.typed(value, descriptor.kind)
            else { continue }
            attributes[name] = typed
        }
        let secret: SecureBytes
        do {
            let representation = try key.key.externalRepresentation()
            secret = representation.withUnsafeBytes { SecureBytes(copying: $0) }
        } catch {
            throw KeychainFailure(.param, "the key has no external representation")
        }
        return (attributes, secret)
    }

    /// The attributes of a certificate item (`SecCertificateCopyAttributeDictionary`: `ctyp`, `cenc`,
    /// `subj`, `issr`, `slnr`, `skid`, `pkhh`) and its DER as the item's data.
    /// - Throws: `.param` when the certificate's names or serial number cannot be read.
    static func certificateItem(_ certificate: SecCertificate) throws(KeychainFailure) -> (
        attributes: [String: AttributeValue], secret: SecureBytes
    ) {
        guard let derived = certificate.itemAttributes else {
            throw KeychainFailure(.param, "the certificate's names or serial number cannot be read")
        }
        var attributes: [String: AttributeValue] = [:]
        for (name, value) in derived {
            guard let descriptor = ItemClass.certificate.descriptor(name),
                let typed = try? SecItemRequest.typed(value, descriptor.kind)
            else { continue }
            attributes[name] = typed
        }
        return (attributes, SecureBytes(copying: certificate.certificate.der))
    }

    /// The key a key item's data and attributes make, or `nil` when they do not make one (a key added
    /// as data without `kSecAttrKeyType`/`kSecAttrKeyClass`, or bytes that are not such a key).
    static func key(_ attributes: [String: AttributeValue], _ secret: SecureBytes) -> SecKey? {
        guard case .integer(let type)? = attributes[.type], type == 42 || type == 73,
            case .integer(let keyClass)? = attributes[.keyClass], keyClass == 0 || keyClass == 1
        else { return nil }
        // CryptoKey reads an array: the copy is wiped as soon as the key is built.
        var bytes = secret.withUnsafeBytes { [UInt8]($0) }
        defer { bytes.withUnsafeMutableBytes { _ = memset($0.baseAddress!, 0, $0.count) } }
        guard !bytes.isEmpty,
            let key = try? CryptoKey(externalRepresentation: bytes, rsa: type == 42, isPrivate: keyClass == 1)
        else { return nil }
        var extractable = true
        if case .bool(let flag)? = attributes[.isExtractable] { extractable = flag }
        var tag: Data?
        if let value = attributes[.applicationTag], !value.matchBytes.isEmpty { tag = Data(value.matchBytes) }
        var label: String?
        if case .string(let text)? = attributes[.label] { label = text }
        return SecKey(key, isExtractable: extractable, applicationTag: tag, label: label)
    }

    /// The certificate of a certificate item's data.
    static func certificate(_ secret: SecureBytes) -> SecCertificate? {
        let der = secret.withUnsafeBytes { [UInt8]($0) }
        return (try? Certificate(der: der)).map(SecCertificate.init)
    }

    /// The object `kSecReturnRef` returns for an item read with its attributes and secret.
    static func reference(_ item: ItemRecord) -> AnyObject? {
        guard let secret = item.secret else { return nil }
        switch item.itemClass {
        case .genericPassword, .internetPassword: return nil
        case .key: return key(item.attributes, secret)
        case .certificate: return certificate(secret)
        }
    }

    /// Attributes a key added as data (`kSecValueData` with `kSecAttrKeyType` and `kSecAttrKeyClass`)
    /// derives from the key when the caller did not give them: `bsiz`, `esiz`, `klbl` and the usage
    /// flags, as for a key added by reference. Data that is not such a key is stored as given.
    static func derivedKeyAttributes(_ attributes: [String: AttributeValue], _ secret: SecureBytes) -> [String: AttributeValue] {
        guard let key = key(attributes, secret), let derived = try? keyItem(key).attributes else { return attributes }
        var result = attributes
        for (name, value) in derived where result[name] == nil { result[name] = value }
        return result
    }

    /// The attributes of a certificate added as DER data, with the caller's given ones on top.
    /// - Throws: `.param` when the data is not a DER certificate.
    static func derivedCertificateAttributes(_ attributes: [String: AttributeValue], _ der: Data) throws(KeychainFailure)
        -> [String: AttributeValue]
    {
        guard let certificate = try? Certificate(der: Array(der)) else {
            throw KeychainFailure(.param, "kSecValueData is not a DER certificate")
        }
        var result = try certificateItem(SecCertificate(certificate)).attributes
        for (name, value) in attributes { result[name] = value }
        return result
    }

    /// The filters a `kSecValueRef` stands for in a search, update or delete: a key's class, type,
    /// sizes and application label; a certificate's type, issuer and serial number (its primary key).
    /// - Throws: `.param` for an object that is not a reference of the query's class.
    static func filters(for reference: AnyObject, _ itemClass: ItemClass) throws(KeychainFailure) -> [String: AttributeValue] {
        switch (itemClass, reference) {
        case (.key, let key as SecKey):
            let attributes = try keyItem(key).attributes
            let names: [AttributeName] = [.keyClass, .type, .keySizeInBits, .effectiveKeySize, .applicationLabel]
            return attributes.filter { names.contains(AttributeName(rawValue: $0.key)) }
        case (.certificate, let certificate as SecCertificate):
            let attributes = try certificateItem(certificate).attributes
            let primaryKey = ItemGateway.primaryKeyNames(.certificate)
            return attributes.filter { primaryKey.contains(AttributeName(rawValue: $0.key)) }
        default:
            throw KeychainFailure(.param, "kSecValueRef is not an object of the query's class")
        }
    }
}
