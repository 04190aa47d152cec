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
        /// A date (`CFDate`), held as an ``AbsoluteTime``.
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

    init(_ name: AttributeName, _ kind: Kind, primaryKey: Bool = false, managed: Bool = false) {
        self.name = name.rawValue
        self.kind = kind
        self.isPrimaryKey = primaryKey
        self.isManaged = managed
    }

    /// The value a missing primary-key attribute takes when an item is added (SecItemSchema.c `E`/`Z`).
    package var defaultValue: AttributeValue {
        switch kind {
        case .number: .integer(0)
        case .bool: .bool(false)
        // Keys' kSecAttrStartDate/kSecAttrEndDate (`Z` flag): Apple's reference date.
        case .date: .date(.referenceDate)
        case .blob, .string: .string("")
        }
    }

    /// The first attributes of every class, in this order (both ``common`` and ``base`` start with
    /// them). `pdmn` and `agrp` are handled by the engine as columns.
    static let everyClass: [AttributeDescriptor] = [
        AttributeDescriptor(.accessGroup, .string, primaryKey: true),
        AttributeDescriptor(.synchronizable, .bool, primaryKey: true),
        AttributeDescriptor(.accessible, .string),
        // kSecAttrAccessControl: the item's constraints, an AccessConstraints encoding (sealed like the rest).
        AttributeDescriptor(.accessControl, .blob),
        AttributeDescriptor(.creationDate, .date, managed: true),
        AttributeDescriptor(.modificationDate, .date, managed: true),
    ]

    /// Attributes every password class has.
    static let common: [AttributeDescriptor] =
        everyClass + [
            AttributeDescriptor(.description, .blob),
            AttributeDescriptor(.comment, .blob),
            AttributeDescriptor(.creator, .number),
            AttributeDescriptor(.type, .number),
            AttributeDescriptor(.label, .blob),
            AttributeDescriptor(.isInvisible, .bool),
            AttributeDescriptor(.isNegative, .bool),
            AttributeDescriptor(.account, .blob, primaryKey: true),
        ]

    static let genericPassword: [AttributeDescriptor] = [
        AttributeDescriptor(.service, .blob, primaryKey: true),
        AttributeDescriptor(.generic, .blob),
    ]

    static let internetPassword: [AttributeDescriptor] = [
        AttributeDescriptor(.securityDomain, .blob, primaryKey: true),
        AttributeDescriptor(.server, .blob, primaryKey: true),
        AttributeDescriptor(.protocol, .blob, primaryKey: true),
        AttributeDescriptor(.authenticationType, .blob, primaryKey: true),
        AttributeDescriptor(.port, .number, primaryKey: true),
        AttributeDescriptor(.path, .blob, primaryKey: true),
    ]

    /// Attributes of every class (SecItemSchema.c "common to all", plus `labl`). Keys and
    /// certificates start from these; the password classes keep ``common`` (same order as before, so
    /// their primary-key digests are unchanged).
    static let base: [AttributeDescriptor] =
        everyClass + [
            AttributeDescriptor(.label, .blob),
            AttributeDescriptor(.alias, .blob),
        ]

    /// `kSecClassKey` (SecItemSchema.c, "keys only" and the key variants of `type` and `crtr`):
    /// primary key `kcls, klbl, atag, crtr, type, bsiz, esiz, sdat, edat` (plus `agrp`, `sync`).
    /// The usage flags and `perm`/`priv`/`modi`/`sens`/`asen`/`extr`/`next`/`snrc`/`vyrc` are numbers
    /// in securityd that hold booleans; they are typed as booleans here (a 0/1 number is accepted).
    static let key: [AttributeDescriptor] = [
        AttributeDescriptor(.keyClass, .number, primaryKey: true),
        AttributeDescriptor(.isPermanent, .bool),
        AttributeDescriptor(.isPrivate, .bool),
        AttributeDescriptor(.isModifiable, .bool),
        AttributeDescriptor(.applicationLabel, .blob, primaryKey: true),
        AttributeDescriptor(.applicationTag, .blob, primaryKey: true),
        AttributeDescriptor(.creator, .number, primaryKey: true),
        AttributeDescriptor(.type, .number, primaryKey: true),
        AttributeDescriptor(.keySizeInBits, .number, primaryKey: true),
        AttributeDescriptor(.effectiveKeySize, .number, primaryKey: true),
        AttributeDescriptor(.startDate, .date, primaryKey: true),
        AttributeDescriptor(.endDate, .date, primaryKey: true),
        AttributeDescriptor(.isSensitive, .bool),
        AttributeDescriptor(.wasAlwaysSensitive, .bool),
        AttributeDescriptor(.isExtractable, .bool),
        AttributeDescriptor(.wasNeverExtractable, .bool),
        AttributeDescriptor(.canEncrypt, .bool),
        AttributeDescriptor(.canDecrypt, .bool),
        AttributeDescriptor(.canDerive, .bool),
        AttributeDescriptor(.canSign, .bool),
        AttributeDescriptor(.canVerify, .bool),
        AttributeDescriptor(.canSignRecover, .bool),
        AttributeDescriptor(.canVerifyRecover, .bool),
        AttributeDescriptor(.canWrap, .bool),
        AttributeDescriptor(.canUnwrap, .bool),
        AttributeDescriptor(.tokenID, .string),
    ]

    /// `kSecClassCertificate` (SecItemSchema.c, "cert only"): primary key `ctyp, issr, slnr`
    /// (plus `agrp`, `sync`).
    static let certificate: [AttributeDescriptor] = [
        AttributeDescriptor(.certificateType, .number, primaryKey: true),
        AttributeDescriptor(.certificateEncoding, .number),
        AttributeDescriptor(.subject, .blob),
        AttributeDescriptor(.issuer, .blob, primaryKey: true),
        AttributeDescriptor(.serialNumber, .blob, primaryKey: true),
        AttributeDescriptor(.subjectKeyID, .blob),
        AttributeDescriptor(.publicKeyHash, .blob),
    ]

    static let keyByName = Dictionary(uniqueKeysWithValues: (base + key).map { ($0.name, $0) })
    static let certificateByName = Dictionary(uniqueKeysWithValues: (base + certificate).map { ($0.name, $0) })
    static let genericPasswordByName = Dictionary(
        uniqueKeysWithValues: (common + genericPassword).map { ($0.name, $0) })
    static let internetPasswordByName = Dictionary(
        uniqueKeysWithValues: (common + internetPassword).map { ($0.name, $0) })
}
