/// One attribute of an item class: its raw name, value kind and role (SecItemSchema.c).
package struct AttributeDescriptor: Sendable, Hashable {
    /// How a value of the attribute is typed.
    package enum Kind: Sendable, Hashable {
        /// `String` or `Data`; the type given is kept (SecDbAttr "Blob"/"String").
        case blob
        /// An integer (`NSNumber`, `Int`).
        case number
        /// A boolean (`CFBoolean`, `Bool`, or a number 0/1).
        case bool
        /// A `Date`.
        case date
        /// A string only (`kSecAttrAccessGroup`).
        case string
    }

    /// Apple's raw name, e.g. `"acct"`.
    package let name: String
    package let kind: Kind
    /// Part of the class's primary key; missing values default to `""` or 0.
    package let isPrimaryKey: Bool
    /// Set by the engine (`cdat`, `mdat`): read-only in queries for adds and updates.
    package let isManaged: Bool

    init(_ name: String, _ kind: Kind, primaryKey: Bool = false, managed: Bool = false) {
        self.name = name
        self.kind = kind
        self.isPrimaryKey = primaryKey
        self.isManaged = managed
    }

    /// The value a missing primary-key attribute takes when an item is added (SecItemSchema.c `E`/`Z`).
    package var defaultValue: AttributeValue {
        switch kind {
        case .number: .integer(0)
        case .bool: .bool(false)
        default: .string("")
        }
    }

    /// Attributes every password class has. `pdmn` and `agrp` are handled by the engine as columns.
    static let common: [AttributeDescriptor] = [
        AttributeDescriptor("agrp", .string, primaryKey: true),
        AttributeDescriptor("sync", .bool, primaryKey: true),
        AttributeDescriptor("pdmn", .string),
        // kSecAttrAccessControl: the item's constraints, an AccessConstraints encoding (sealed like the rest).
        AttributeDescriptor("accc", .blob),
        AttributeDescriptor("cdat", .date, managed: true),
        AttributeDescriptor("mdat", .date, managed: true),
        AttributeDescriptor("desc", .blob),
        AttributeDescriptor("icmt", .blob),
        AttributeDescriptor("crtr", .number),
        AttributeDescriptor("type", .number),
        AttributeDescriptor("labl", .blob),
        AttributeDescriptor("invi", .bool),
        AttributeDescriptor("nega", .bool),
        AttributeDescriptor("acct", .blob, primaryKey: true),
    ]

    static let genericPassword: [AttributeDescriptor] = [
        AttributeDescriptor("svce", .blob, primaryKey: true),
        AttributeDescriptor("gena", .blob),
    ]

    static let internetPassword: [AttributeDescriptor] = [
        AttributeDescriptor("sdmn", .blob, primaryKey: true),
        AttributeDescriptor("srvr", .blob, primaryKey: true),
        AttributeDescriptor("ptcl", .blob, primaryKey: true),
        AttributeDescriptor("atyp", .blob, primaryKey: true),
        AttributeDescriptor("port", .number, primaryKey: true),
        AttributeDescriptor("path", .blob, primaryKey: true),
    ]

    static let genericPasswordByName = Dictionary(uniqueKeysWithValues: (common + genericPassword).map { ($0.name, $0) })
    static let internetPasswordByName = Dictionary(uniqueKeysWithValues: (common + internetPassword).map { ($0.name, $0) })
}
