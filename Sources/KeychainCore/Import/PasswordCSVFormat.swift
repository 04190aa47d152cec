/// The password-manager exports ``Keystore/importPasswords(csv:accessGroup:protection:policy:)`` reads,
/// told apart by their header row (column names compare case-insensitively, in any order).
package enum PasswordCSVFormat: String, Sendable, CaseIterable {
    /// Chrome and Edge: `name,url,username,password,note` (`note` is missing in older versions).
    case chrome = "Chrome/Edge"
    /// Firefox: `url,username,password,httpRealm,formActionOrigin,guid,timeCreated,timeLastUsed,timePasswordChanged`.
    case firefox = "Firefox"
    /// Apple Passwords and Safari: `Title,URL,Username,Password,Notes,OTPAuth`.
    case applePasswords = "Apple Passwords/Safari"
    /// Bitwarden: `folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp`.
    case bitwarden = "Bitwarden"

    /// Columns that must all be present; the first format whose columns are all there wins.
    var requiredColumns: [String] {
        switch self {
        case .firefox:
            [
                "url", "username", "password", "httprealm", "formactionorigin", "guid", "timecreated", "timelastused",
                "timepasswordchanged",
            ]
        case .bitwarden:
            [
                "folder", "favorite", "type", "name", "notes", "fields", "login_uri", "login_username",
                "login_password",
                "login_totp",
            ]
        case .applePasswords: ["title", "url", "username", "password"]
        case .chrome: ["name", "url", "username", "password"]
        }
    }

    /// Columns that may be present besides the required ones.
    var optionalColumns: [String] {
        switch self {
        case .firefox: []
        case .bitwarden: ["reprompt"]
        case .applePasswords: ["notes", "otpauth"]
        case .chrome: ["note"]
        }
    }

    /// The column of each role in this format.
    var url: String { self == .bitwarden ? "login_uri" : "url" }
    var username: String { self == .bitwarden ? "login_username" : "username" }
    var password: String { self == .bitwarden ? "login_password" : "password" }
    var title: String? {
        switch self {
        case .chrome, .bitwarden: "name"
        case .applePasswords: "title"
        case .firefox: nil
        }
    }
    var notes: String? {
        switch self {
        case .chrome: "note"
        case .applePasswords, .bitwarden: "notes"
        case .firefox: nil
        }
    }
    var oneTimeCode: String? {
        switch self {
        case .applePasswords: "otpauth"
        case .bitwarden: "login_totp"
        default: nil
        }
    }

    /// The format whose columns are exactly `header`'s (required ones all present, nothing unknown).
    static func detect(_ header: [String]) -> PasswordCSVFormat? {
        let names = Set(header.map { $0.trimmingWhitespace().lowercased() })
        guard names.count == header.count else { return nil }
        return allCases.first { format in
            let required = Set(format.requiredColumns)
            return required.isSubset(of: names) && names.isSubset(of: required.union(format.optionalColumns))
        }
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and line breaks.
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
