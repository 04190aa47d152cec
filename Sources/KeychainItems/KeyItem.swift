package import KeychainCore
package import KeychainCrypto

/// A key as a key item stores it: the key, the flags kept with it, the attributes it is stored with
/// and its external representation as the item's secret.
///
/// The attributes are those Security's `SecKeyCopyAttributes` gives (SecKey.h), typed as
/// SecItemSchema.c types them: `kcls` (0 public, 1 private) and `type` (42 RSA, 73 EC) as numbers,
/// `bsiz` and `esiz`, the usage flags and `extr` as booleans, `klbl` (the SHA-1 of the public key),
/// and `atag`/`labl` when the key has them. `KeychainServices` (`SecKey`, `SecItemAdd`) and the
/// `security` tool both store keys through it.
package struct KeyItem: Sendable {
    /// The key.
    package let key: CryptoKey
    /// `kSecAttrIsExtractable`: whether the private key may leave the keychain (PKCS #12, `SecKeyCopyExternalRepresentation`).
    package let isExtractable: Bool
    /// `kSecAttrApplicationTag`, when the key has one.
    package let applicationTag: [UInt8]?
    /// `kSecAttrLabel`, when the key has one.
    package let label: String?

    /// A key with its flags.
    /// - Parameters:
    ///   - key: the key.
    ///   - isExtractable: `kSecAttrIsExtractable` (default `true`, as Apple's).
    ///   - applicationTag: `kSecAttrApplicationTag`, or `nil`.
    ///   - label: `kSecAttrLabel`, or `nil`.
    package init(_ key: CryptoKey, isExtractable: Bool = true, applicationTag: [UInt8]? = nil, label: String? = nil) {
        self.key = key
        self.isExtractable = isExtractable
        self.applicationTag = applicationTag
        self.label = label
    }

    /// The key a stored key item's attributes and secret make.
    ///
    /// - Parameters:
    ///   - attributes: the item's attributes (`type` and `kcls` say what the secret is).
    ///   - secret: the item's data: the key's external representation.
    /// - Returns: `nil` when they make no key: a key added as data without `kSecAttrKeyType`/
    ///   `kSecAttrKeyClass`, or bytes that are not such a key.
    package init?(attributes: [String: AttributeValue], secret: SecureBytes) {
        guard case .integer(let type)? = attributes[.type], type == Self.rsaType || type == Self.ecType,
            case .integer(let keyClass)? = attributes[.keyClass], keyClass == 0 || keyClass == 1
        else { return nil }
        var extractable = true
        if case .bool(let flag)? = attributes[.isExtractable] { extractable = flag }
        var tag: [UInt8]?
        if let value = attributes[.applicationTag], !value.matchBytes.isEmpty { tag = value.matchBytes }
        var label: String?
        if case .string(let text)? = attributes[.label] { label = text }
        // A Secure Enclave (TPM) key's secret is its TPM blob, which holds no key in the clear.
        if case .string(EnclaveKey.tokenID)? = attributes[.tokenID] {
            var constraints: AccessConstraints?
            if case .data(let encoded)? = attributes[.accessControl] {
                constraints = AccessConstraints(encoded: Array(encoded))
            }
            guard type == Self.ecType, keyClass == 1,
                let key = EnclaveKey.key(blob: secret.withUnsafeBytes { [UInt8]($0) }, constraints: constraints)
            else { return nil }
            self.init(key, isExtractable: false, applicationTag: tag, label: label)
            return
        }
        // CryptoKey reads an array: the copy is wiped as soon as the key is built.
        var bytes = secret.withUnsafeBytes { [UInt8]($0) }
        defer { bytes.withUnsafeMutableBufferPointer { buffer in buffer.initialize(repeating: 0) } }
        guard !bytes.isEmpty,
            let key = try? CryptoKey(externalRepresentation: bytes, rsa: type == Self.rsaType, isPrivate: keyClass == 1)
        else { return nil }
        self.init(key, isExtractable: extractable, applicationTag: tag, label: label)
    }

    /// `kSecAttrKeyTypeRSA` as the number securityd stores ("42").
    package static let rsaType: Int64 = 42
    /// `kSecAttrKeyTypeECSECPrimeRandom` as the number securityd stores ("73").
    package static let ecType: Int64 = 73

    /// `kSecAttrKeyType` as a number: 42 for RSA, 73 for EC.
    package var type: Int64 {
        switch key.kind {
        case .ec: Self.ecType
        case .rsa: Self.rsaType
        }
    }

    /// The attributes the key is stored with (`SecKeyCopyAttributes` without `kSecValueData`).
    package var attributes: [String: AttributeValue] {
        let isPrivate = key.isPrivate
        var attributes: [String: AttributeValue] = [
            AttributeName.keyClass.rawValue: .integer(isPrivate ? 1 : 0), AttributeName.type.rawValue: .integer(type),
            AttributeName.keySizeInBits.rawValue: .integer(Int64(key.sizeInBits)),
            AttributeName.effectiveKeySize.rawValue: .integer(Int64(key.sizeInBits)),
            AttributeName.canSign.rawValue: .bool(isPrivate), AttributeName.canVerify.rawValue: .bool(!isPrivate),
            AttributeName.canEncrypt.rawValue: .bool(!isPrivate), AttributeName.canDecrypt.rawValue: .bool(isPrivate),
            AttributeName.canDerive.rawValue: .bool(true), AttributeName.canWrap.rawValue: .bool(!isPrivate),
            AttributeName.canUnwrap.rawValue: .bool(isPrivate),
            AttributeName.isExtractable.rawValue: .bool(isExtractable),
        ]
        if let hash = try? key.publicKeyHash { attributes[.applicationLabel] = .data(hash) }
        if let applicationTag { attributes[.applicationTag] = .data(applicationTag) }
        if let label { attributes[.label] = .string(label) }
        if enclaveKey != nil { attributes[.tokenID] = .string(EnclaveKey.tokenID) }
        return attributes
    }

    /// The TPM part of a Secure Enclave (TPM) key, `nil` for other keys.
    package var enclaveKey: EnclaveKey? { key.hardware as? EnclaveKey }

    /// The item's secret: the key's external representation, in zeroising memory; for a Secure Enclave
    /// (TPM) key, its TPM blob.
    /// - Returns: the bytes `CryptoKey(externalRepresentation:rsa:isPrivate:)` reads back.
    /// - Throws: `.param` when the key has no external representation.
    package func secret() throws(KeychainFailure) -> SecureBytes {
        if let enclaveKey { return SecureBytes(copying: enclaveKey.blob) }
        do {
            // Already the package's zeroising type (KeychainSecureMemory): kept, not copied.
            return try key.externalRepresentation()
        } catch {
            throw KeychainFailure(.param, "the key has no external representation")
        }
    }

    /// The new item this key is added as, with `given` attributes taking precedence over the derived ones.
    /// - Throws: `.param` when the key has no external representation.
    package func newItem(_ given: [String: AttributeValue] = [:]) throws(KeychainFailure) -> NewItem {
        var merged = attributes
        for (name, value) in given { merged[name] = value }
        return NewItem(.key, attributes: merged, secret: try secret())
    }

    /// Attributes a key added as data (`kSecValueData` with `kSecAttrKeyType` and `kSecAttrKeyClass`)
    /// derives from the key when the caller did not give them: `bsiz`, `esiz`, `klbl` and the usage
    /// flags, as for a key added by reference.
    /// - Returns: `given` with the derived attributes it lacks; `given` unchanged for data that is not such a key.
    package static func derivedAttributes(_ given: [String: AttributeValue], _ secret: SecureBytes) -> [String:
        AttributeValue]
    {
        guard let item = KeyItem(attributes: given, secret: secret) else { return given }
        var result = given
        for (name, value) in item.attributes where result[name] == nil { result[name] = value }
        return result
    }

    /// The filters a key stands for in a search (`kSecValueRef`): its class, type, sizes and application label.
    package var referenceFilters: [String: AttributeValue] {
        let names: [AttributeName] = [.keyClass, .type, .keySizeInBits, .effectiveKeySize, .applicationLabel]
        return attributes.filter { names.contains(AttributeName(rawValue: $0.key)) }
    }
}

extension ItemClass {
    /// Whether items of the class have a reference object (`kSecReturnRef`, `v_Ref`): keys and
    /// certificates do, passwords do not (SecItemServer.c, `handle_result`).
    package var hasReferences: Bool {
        switch self {
        case .genericPassword, .internetPassword: false
        case .key, .certificate: true
        }
    }
}
