/// The name of an item attribute: Apple's raw key (the value of a `kSecAttr…` constant, such as
/// `"acct"` for `kSecAttrAccount`), typed so that code names attributes by constant instead of by
/// string. Attribute dictionaries keep their raw-name keys (the stored record's shape,
/// docs/RECORD-FORMAT.md); they are read and written through ``Swift/Dictionary/subscript(_:)``.
///
/// Source of the raw names: SecItem.h and SecItemConstants.c (Apple's open-source securityd).
package struct AttributeName: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    /// The raw name, as stored and as Apple's constants hold it.
    package let rawValue: String

    /// A name from its raw value.
    package init(rawValue: String) { self.rawValue = rawValue }

    /// A name from a raw-name literal (for the constants below).
    package init(stringLiteral value: String) { self.rawValue = value }

    // MARK: - Every class

    /// `kSecAttrAccessGroup`.
    package static let accessGroup: AttributeName = "agrp"
    /// `kSecAttrSynchronizable`.
    package static let synchronizable: AttributeName = "sync"
    /// `kSecAttrAccessible`: the protection class (``ProtectionClass``).
    package static let accessible: AttributeName = "pdmn"
    /// `kSecAttrAccessControl`.
    package static let accessControl: AttributeName = "accc"
    /// `kSecAttrCreationDate`.
    package static let creationDate: AttributeName = "cdat"
    /// `kSecAttrModificationDate`.
    package static let modificationDate: AttributeName = "mdat"
    /// `kSecAttrLabel`.
    package static let label: AttributeName = "labl"

    // MARK: - Passwords

    /// `kSecAttrDescription`.
    package static let description: AttributeName = "desc"
    /// `kSecAttrComment`.
    package static let comment: AttributeName = "icmt"
    /// `kSecAttrCreator`.
    package static let creator: AttributeName = "crtr"
    /// `kSecAttrType` (also the raw name of `kSecAttrKeyType`).
    package static let type: AttributeName = "type"
    /// `kSecAttrIsInvisible`.
    package static let isInvisible: AttributeName = "invi"
    /// `kSecAttrIsNegative`.
    package static let isNegative: AttributeName = "nega"
    /// `kSecAttrAccount`.
    package static let account: AttributeName = "acct"
    /// `kSecAttrService`.
    package static let service: AttributeName = "svce"
    /// `kSecAttrGeneric`.
    package static let generic: AttributeName = "gena"
    /// `kSecAttrSecurityDomain`.
    package static let securityDomain: AttributeName = "sdmn"
    /// `kSecAttrServer`.
    package static let server: AttributeName = "srvr"
    /// `kSecAttrProtocol`.
    package static let `protocol`: AttributeName = "ptcl"
    /// `kSecAttrAuthenticationType`.
    package static let authenticationType: AttributeName = "atyp"
    /// `kSecAttrPort`.
    package static let port: AttributeName = "port"
    /// `kSecAttrPath`.
    package static let path: AttributeName = "path"

    // MARK: - Keys and certificates

    /// `kSecAttrKeyClass`.
    package static let keyClass: AttributeName = "kcls"
    /// `kSecAttrApplicationLabel`.
    package static let applicationLabel: AttributeName = "klbl"
    /// `kSecAttrApplicationTag`.
    package static let applicationTag: AttributeName = "atag"
    /// `kSecAttrIsExtractable`.
    package static let isExtractable: AttributeName = "extr"
    /// `kSecAttrTokenID`: `com.apple.setoken` for a Secure Enclave (here: TPM) key.
    package static let tokenID: AttributeName = "tkid"
    /// `kSecAttrPublicKeyHash`.
    package static let publicKeyHash: AttributeName = "pkhh"
    /// `kSecAttrIssuer`.
    package static let issuer: AttributeName = "issr"
    /// `kSecAttrSubject`.
    package static let subject: AttributeName = "subj"
    /// `kSecAttrSerialNumber`.
    package static let serialNumber: AttributeName = "slnr"
    /// `kSecAttrAlias`.
    package static let alias: AttributeName = "alis"
    /// `kSecAttrIsPermanent`.
    package static let isPermanent: AttributeName = "perm"
    /// `kSecAttrIsPrivate`.
    package static let isPrivate: AttributeName = "priv"
    /// `kSecAttrIsModifiable`.
    package static let isModifiable: AttributeName = "modi"
    /// `kSecAttrKeySizeInBits`.
    package static let keySizeInBits: AttributeName = "bsiz"
    /// `kSecAttrEffectiveKeySize`.
    package static let effectiveKeySize: AttributeName = "esiz"
    /// `kSecAttrStartDate`.
    package static let startDate: AttributeName = "sdat"
    /// `kSecAttrEndDate`.
    package static let endDate: AttributeName = "edat"
    /// `kSecAttrIsSensitive`.
    package static let isSensitive: AttributeName = "sens"
    /// `kSecAttrWasAlwaysSensitive`.
    package static let wasAlwaysSensitive: AttributeName = "asen"
    /// `kSecAttrWasNeverExtractable`.
    package static let wasNeverExtractable: AttributeName = "next"
    /// `kSecAttrCanEncrypt`.
    package static let canEncrypt: AttributeName = "encr"
    /// `kSecAttrCanDecrypt`.
    package static let canDecrypt: AttributeName = "decr"
    /// `kSecAttrCanDerive`.
    package static let canDerive: AttributeName = "drve"
    /// `kSecAttrCanSign`.
    package static let canSign: AttributeName = "sign"
    /// `kSecAttrCanVerify`.
    package static let canVerify: AttributeName = "vrfy"
    /// `kSecAttrCanSignRecover`.
    package static let canSignRecover: AttributeName = "snrc"
    /// `kSecAttrCanVerifyRecover`.
    package static let canVerifyRecover: AttributeName = "vyrc"
    /// `kSecAttrCanWrap`.
    package static let canWrap: AttributeName = "wrap"
    /// `kSecAttrCanUnwrap`.
    package static let canUnwrap: AttributeName = "unwp"
    /// `kSecAttrCertificateType`.
    package static let certificateType: AttributeName = "ctyp"
    /// `kSecAttrCertificateEncoding`.
    package static let certificateEncoding: AttributeName = "cenc"
    /// `kSecAttrSubjectKeyID`.
    package static let subjectKeyID: AttributeName = "skid"
}

extension Dictionary where Key == String, Value == AttributeValue {
    /// The attribute named `name`.
    package subscript(_ name: AttributeName) -> AttributeValue? {
        get { self[name.rawValue] }
        set { self[name.rawValue] = newValue }
    }

    /// Removes the attribute named `name`.
    /// - Returns: its value, or `nil` when it was absent.
    @discardableResult
    package mutating func removeValue(for name: AttributeName) -> AttributeValue? { removeValue(forKey: name.rawValue) }

    /// The attribute named `name` when it is a string (`.string`), else `nil`.
    package func string(_ name: AttributeName) -> String? {
        if case .string(let value)? = self[name] { return value }
        return nil
    }

    /// Attributes from typed names.
    package init(named pairs: KeyValuePairs<AttributeName, AttributeValue>) {
        self.init(uniqueKeysWithValues: pairs.map { ($0.key.rawValue, $0.value) })
    }
}
