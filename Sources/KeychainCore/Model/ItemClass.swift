/// The item classes the engine stores, with Apple's raw `kSecClass` values.
package enum ItemClass: String, Sendable, CaseIterable, Codable {
    /// `kSecClassGenericPassword` (`"genp"`).
    case genericPassword = "genp"
    /// `kSecClassInternetPassword` (`"inet"`).
    case internetPassword = "inet"

    /// Apple's other classes (`cert`, `keys`, `idnt`): recognised, not stored.
    package static let knownButUnsupported: Set<String> = ["cert", "keys", "idnt"]

    /// The class's attributes, in Apple's schema order (SecItemSchema.c).
    package var attributes: [AttributeDescriptor] {
        switch self {
        case .genericPassword: Self.genericPasswordAttributes
        case .internetPassword: Self.internetPasswordAttributes
        }
    }

    /// The class's primary-key attributes (SecItemSchema.c `P` flag).
    package var primaryKey: [AttributeDescriptor] {
        switch self {
        case .genericPassword: Self.genericPasswordPrimaryKey
        case .internetPassword: Self.internetPasswordPrimaryKey
        }
    }

    // Built once: every add, update and attribute read walks the primary key (keychain-bench, issue 7).
    private static let genericPasswordAttributes = AttributeDescriptor.common + AttributeDescriptor.genericPassword
    private static let internetPasswordAttributes = AttributeDescriptor.common + AttributeDescriptor.internetPassword
    private static let genericPasswordPrimaryKey = genericPasswordAttributes.filter(\.isPrimaryKey)
    private static let internetPasswordPrimaryKey = internetPasswordAttributes.filter(\.isPrimaryKey)

    /// The descriptor for attribute `name` in this class, or `nil` when the class has no such attribute.
    package func descriptor(_ name: String) -> AttributeDescriptor? {
        switch self {
        case .genericPassword: AttributeDescriptor.genericPasswordByName[name]
        case .internetPassword: AttributeDescriptor.internetPasswordByName[name]
        }
    }
}
