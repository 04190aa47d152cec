internal import KeychainCore

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

    /// Splits `secret`.
    /// - Parameters:
    ///   - secret: the stored secret.
    ///   - ownFormat: whether the item was written by this helper.
    init(_ secret: SecureBytes, ownFormat: Bool) {
        var whole = secret.withUnsafeBytes { Array($0) }
        defer { whole.wipe() }
        password = whole
        guard ownFormat else { return }
        let lines = whole.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        var fields: [(String, [UInt8])] = []
        for line in lines.dropFirst() {
            guard let equals = line.firstIndex(of: UInt8(ascii: "=")) else { return }
            let key = String(decoding: line[line.startIndex..<equals], as: UTF8.self)
            guard Self.metadataKeys.contains(key) else { return }
            fields.append((key, Array(line[(equals + 1)...])))
        }
        password.wipe()
        password = Array(lines.first ?? [])
        metadata = fields
    }
}
