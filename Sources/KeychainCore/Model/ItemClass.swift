/// The item classes the engine stores, with Apple's raw `kSecClass` values.
package enum ItemClass: String, Sendable, CaseIterable, Codable {
    /// `kSecClassGenericPassword` (`"genp"`).
    case genericPassword = "genp"
    /// `kSecClassInternetPassword` (`"inet"`).
    case internetPassword = "inet"
    /// `kSecClassKey` (`"keys"`): an asymmetric key; its secret is the key's external representation.
    case key = "keys"
    /// `kSecClassCertificate` (`"cert"`): an X.509 certificate; its secret is the DER (not secret, but
    /// stored as every item's data is).
    case certificate = "cert"

    /// The class's attributes, in Apple's schema order (SecItemSchema.c).
    package var attributes: [AttributeDescriptor] {
        switch self {
        case .genericPassword: Self.genericPasswordAttributes
        case .internetPassword: Self.internetPasswordAttributes
        case .key: Self.keyAttributes
        case .certificate: Self.certificateAttributes
        }
    }

    /// The class's primary-key attributes (SecItemSchema.c `P` flag).
    package var primaryKey: [AttributeDescriptor] {
        switch self {
        case .genericPassword: Self.genericPasswordPrimaryKey
        case .internetPassword: Self.internetPasswordPrimaryKey
        case .key: Self.keyPrimaryKey
        case .certificate: Self.certificatePrimaryKey
        }
    }

    // Built once: every add, update and attribute read walks the primary key (keychain-bench, issue 7).
    private static let genericPasswordAttributes = AttributeDescriptor.common + AttributeDescriptor.genericPassword
    private static let internetPasswordAttributes = AttributeDescriptor.common + AttributeDescriptor.internetPassword
    private static let keyAttributes = AttributeDescriptor.base + AttributeDescriptor.key
    private static let certificateAttributes = AttributeDescriptor.base + AttributeDescriptor.certificate
    private static let keyPrimaryKey = keyAttributes.filter(\.isPrimaryKey)
    private static let certificatePrimaryKey = certificateAttributes.filter(\.isPrimaryKey)
    private static let genericPasswordPrimaryKey = genericPasswordAttributes.filter(\.isPrimaryKey)
    private static let internetPasswordPrimaryKey = internetPasswordAttributes.filter(\.isPrimaryKey)

    /// The descriptor for attribute `name` in this class, or `nil` when the class has no such attribute.
    package func descriptor(_ name: String) -> AttributeDescriptor? {
        switch self {
        case .genericPassword: AttributeDescriptor.genericPasswordByName[name]
        case .internetPassword: AttributeDescriptor.internetPasswordByName[name]
        case .key: AttributeDescriptor.keyByName[name]
        case .certificate: AttributeDescriptor.certificateByName[name]
        }
    }

    /// The protection class of a new item without `kSecAttrAccessible` (APPLE-SEMANTICS.md rule 12):
    /// WhenUnlocked, except Always for certificates (securityd infers `dk` for `cert` items).
    package var defaultProtection: ProtectionClass {
        switch self {
        case .genericPassword, .internetPassword, .key: .whenUnlocked
        case .certificate: .always
        }
    }
}
