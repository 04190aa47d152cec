internal import KeychainCore
internal import KeychainToolSupport

/// A stored secret as `git-credential-keychain` reads it back.
///
/// Items this helper wrote (label `Git: …`) hold the password, then `\npassword_expiry_utc=…` and
/// `\noauth_refresh_token=…` lines. Any other item's secret (added with `security`, imported from
/// a browser) is the password as a whole: a line feed in it is part of the password, never the
/// start of another field. An own-format secret with any other line is read as a whole too.
struct GitSecret {
    var password: [UInt8]
    var metadata: [(String, [UInt8])] = []

    /// The metadata keys this helper writes after the password.
    static let metadataKeys: Set<String> = ["password_expiry_utc", "oauth_refresh_token"]

    /// Splits `secret`, reading it in place: the only copies made are the fields themselves.
    /// - Parameters:
    ///   - secret: the stored secret.
    ///   - ownFormat: whether the item was written by this helper.
    init(_ secret: SecureBytes, ownFormat: Bool) {
        (password, metadata) = secret.withUnsafeBytes { bytes -> ([UInt8], [(String, [UInt8])]) in
            guard ownFormat else { return (Array(bytes), []) }
            let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            var fields: [(String, [UInt8])] = []
            for line in lines.dropFirst() {
                let key = line.firstIndex(of: UInt8(ascii: "=")).map { String(decoding: line[..<$0], as: UTF8.self) }
                guard let key, let equals = line.firstIndex(of: UInt8(ascii: "=")), Self.metadataKeys.contains(key)
                else {
                    // Not this helper's format after all: the whole secret is the password.
                    for index in fields.indices { fields[index].1.wipe() }
                    return (Array(bytes), [])
                }
                fields.append((key, Array(line[line.index(after: equals)...])))
            }
            return (Array(lines.first ?? bytes[0..<0]), fields)
        }
    }

    /// The fields to send, `password` first, moved out of this value so that the caller holds the
    /// only reference to each buffer and its `wipe()` clears the bytes themselves, not a copy.
    mutating func takeFields() -> [(String, [UInt8])] {
        defer {
            password = []
            metadata = []
        }
        return [("password", password)] + metadata
    }
}
