#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

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
        // Keys' kSecAttrStartDate/kSecAttrEndDate (`Z` flag): Apple's reference date.
        case .date: .date(Date(timeIntervalSinceReferenceDate: 0))
        case .blob, .string: .string("")
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

    /// Attributes of every class (SecItemSchema.c "common to all", plus `labl`). Keys and
    /// certificates start from these; the password classes keep ``common`` (same order as before, so
    /// their primary-key digests are unchanged).
    static let base: [AttributeDescriptor] = [
        AttributeDescriptor("agrp", .string, primaryKey: true),
        AttributeDescriptor("sync", .bool, primaryKey: true),
        AttributeDescriptor("pdmn", .string),
        AttributeDescriptor("accc", .blob),
        AttributeDescriptor("cdat", .date, managed: true),
        AttributeDescriptor("mdat", .date, managed: true),
        AttributeDescriptor("labl", .blob),
        AttributeDescriptor("alis", .blob),
    ]

    /// `kSecClassKey` (SecItemSchema.c, "keys only" and the key variants of `type` and `crtr`):
    /// primary key `kcls, klbl, atag, crtr, type, bsiz, esiz, sdat, edat` (plus `agrp`, `sync`).
    /// The usage flags and `perm`/`priv`/`modi`/`sens`/`asen`/`extr`/`next`/`snrc`/`vyrc` are numbers
    /// in securityd that hold booleans; they are typed as booleans here (a 0/1 number is accepted).
    static let key: [AttributeDescriptor] = [
        AttributeDescriptor("kcls", .number, primaryKey: true),
        AttributeDescriptor("perm", .bool),
        AttributeDescriptor("priv", .bool),
        AttributeDescriptor("modi", .bool),
        AttributeDescriptor("klbl", .blob, primaryKey: true),
        AttributeDescriptor("atag", .blob, primaryKey: true),
        AttributeDescriptor("crtr", .number, primaryKey: true),
        AttributeDescriptor("type", .number, primaryKey: true),
        AttributeDescriptor("bsiz", .number, primaryKey: true),
        AttributeDescriptor("esiz", .number, primaryKey: true),
        AttributeDescriptor("sdat", .date, primaryKey: true),
        AttributeDescriptor("edat", .date, primaryKey: true),
        AttributeDescriptor("sens", .bool),
        AttributeDescriptor("asen", .bool),
        AttributeDescriptor("extr", .bool),
        AttributeDescriptor("next", .bool),
        AttributeDescriptor("encr", .bool),
        AttributeDescriptor("decr", .bool),
        AttributeDescriptor("drve", .bool),
        AttributeDescriptor("sign", .bool),
        AttributeDescriptor("vrfy", .bool),
        AttributeDescriptor("snrc", .bool),
        AttributeDescriptor("vyrc", .bool),
        AttributeDescriptor("wrap", .bool),
        AttributeDescriptor("unwp", .bool),
    ]

    /// `kSecClassCertificate` (SecItemSchema.c, "cert only"): primary key `ctyp, issr, slnr`
    /// (plus `agrp`, `sync`).
    static let certificate: [AttributeDescriptor] = [
        AttributeDescriptor("ctyp", .number, primaryKey: true),
        AttributeDescriptor("cenc", .number),
        AttributeDescriptor("subj", .blob),
        AttributeDescriptor("issr", .blob, primaryKey: true),
        AttributeDescriptor("slnr", .blob, primaryKey: true),
        AttributeDescriptor("skid", .blob),
        AttributeDescriptor("pkhh", .blob),
    ]

    static let keyByName = Dictionary(uniqueKeysWithValues: (base + key).map { ($0.name, $0) })
    static let certificateByName = Dictionary(uniqueKeysWithValues: (base + certificate).map { ($0.name, $0) })
    static let genericPasswordByName = Dictionary(uniqueKeysWithValues: (common + genericPassword).map { ($0.name, $0) })
    static let internetPasswordByName = Dictionary(uniqueKeysWithValues: (common + internetPassword).map { ($0.name, $0) })
}
