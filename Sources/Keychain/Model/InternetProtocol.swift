/// The protocol of an internet password (`kSecAttrProtocol`), with Apple's four-character raw values.
///
/// It is part of an internet password's primary key. Values this type does not name can be made
/// with ``init(rawValue:)``.
public struct InternetProtocol: RawRepresentable, Sendable, Hashable, Codable {
    /// Apple's raw value, such as `"htps"` or `"ssh "` (with its trailing space).
    public let rawValue: String
    /// Wraps a raw value.
    /// - Parameter rawValue: Apple's four-character value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `kSecAttrProtocolHTTPS`.
    public static let https = InternetProtocol(rawValue: "htps")
    /// `kSecAttrProtocolHTTP`.
    public static let http = InternetProtocol(rawValue: "http")
    /// `kSecAttrProtocolFTP`.
    public static let ftp = InternetProtocol(rawValue: "ftp ")
    /// `kSecAttrProtocolSSH`.
    public static let ssh = InternetProtocol(rawValue: "ssh ")
    /// `kSecAttrProtocolSMB`.
    public static let smb = InternetProtocol(rawValue: "smb ")
    /// `kSecAttrProtocolIMAP`.
    public static let imap = InternetProtocol(rawValue: "imap")
    /// `kSecAttrProtocolIMAPS`.
    public static let imaps = InternetProtocol(rawValue: "imps")
    /// `kSecAttrProtocolSMTP`.
    public static let smtp = InternetProtocol(rawValue: "smtp")
    /// `kSecAttrProtocolLDAP`.
    public static let ldap = InternetProtocol(rawValue: "ldap")
}

/// How an internet password authenticates (`kSecAttrAuthenticationType`), with Apple's raw values.
///
/// It is part of an internet password's primary key.
public struct AuthenticationType: RawRepresentable, Sendable, Hashable, Codable {
    /// Apple's raw value, such as `"dflt"`.
    public let rawValue: String
    /// Wraps a raw value.
    /// - Parameter rawValue: Apple's four-character value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `kSecAttrAuthenticationTypeDefault`.
    public static let `default` = AuthenticationType(rawValue: "dflt")
    /// `kSecAttrAuthenticationTypeHTMLForm`.
    public static let htmlForm = AuthenticationType(rawValue: "form")
    /// `kSecAttrAuthenticationTypeHTTPBasic`.
    public static let httpBasic = AuthenticationType(rawValue: "http")
    /// `kSecAttrAuthenticationTypeHTTPDigest`.
    public static let httpDigest = AuthenticationType(rawValue: "httd")
    /// `kSecAttrAuthenticationTypeNTLM`.
    public static let ntlm = AuthenticationType(rawValue: "ntlm")
}
