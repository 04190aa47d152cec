#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif
internal import KeychainCore

/// One credential as git sends it to a helper (git-credential(1), "INPUT/OUTPUT FORMAT").
struct GitCredential {
    var protocolName: String?
    /// The host without its port, in canonical form (ASCII lower case, RFC 4343); an IPv6 literal
    /// keeps its brackets.
    var host: String?
    var port: UInt16?
    /// Raw bytes: git passes paths and user names through unchanged, UTF-8 or not.
    var path: [UInt8]?
    var username: [UInt8]?
    /// Raw bytes: git passes them through unchanged.
    var password: [UInt8]?
    var passwordExpiry: [UInt8]?
    var oauthRefreshToken: [UInt8]?
    /// `capability[]` values git announced.
    var capabilities: Set<String> = []
    /// `state[]` values git passed back.
    var states: Set<String> = []

    /// Why input was rejected. The description never holds the line's value (it may be a secret).
    enum Problem: Error, CustomStringConvertible {
        case noEquals(line: Int)
        case nulByte(line: Int)
        case tooLong(line: Int)
        case notUTF8(key: String, line: Int)

        var description: String {
            switch self {
            case .noEquals(let line): "line \(line) has no '='"
            case .nulByte(let line): "line \(line) contains a NUL byte"
            case .tooLong(let line):
                "line \(line) is longer than \(GitCredentialHelper.maximumLineBytes) bytes, the keychain's limit for a secret"
            case .notUTF8(let key, let line): "the value of \(key) on line \(line) is not UTF-8"
            }
        }
    }

    /// Reads `key=value` lines until a blank line or end of input. A trailing CR is removed, as
    /// git's `strbuf_getline` does. Unknown keys are ignored (git: "future-proofs us").
    static func read(from input: any ByteInput) -> Result<GitCredential, Problem> {
        var reader = LineReader(input)
        var credential = GitCredential()
        var number = 0
        while true {
            number += 1
            var line: [UInt8]
            switch reader.next(limit: GitCredentialHelper.maximumLineBytes + 1) {
            case .end: return .success(credential)
            case .tooLong: return .failure(.tooLong(line: number))
            case .line(let bytes): line = bytes
            }
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            if line.isEmpty { return .success(credential) }
            if line.count > GitCredentialHelper.maximumLineBytes { return .failure(.tooLong(line: number)) }
            if line.contains(0) { return .failure(.nulByte(line: number)) }
            guard let equals = line.firstIndex(of: UInt8(ascii: "=")) else { return .failure(.noEquals(line: number)) }
            let key = String(decoding: line[..<equals], as: UTF8.self)
            let value = Array(line[(equals + 1)...])
            func text() -> Result<String, Problem> {
                guard let string = String(validating: value, as: UTF8.self) else {
                    return .failure(.notUTF8(key: key, line: number))
                }
                return .success(string)
            }
            switch key {
            case "password": credential.password = value
            case "password_expiry_utc": credential.passwordExpiry = value
            case "oauth_refresh_token": credential.oauthRefreshToken = value
            case "path": credential.path = value
            case "username": credential.username = value
            case "protocol", "host", "capability[]", "state[]":
                let string: String
                switch text() {
                case .failure(let problem): return .failure(problem)
                case .success(let decoded): string = decoded
                }
                switch key {
                case "protocol": credential.protocolName = string
                case "host": credential.setHost(string)
                case "capability[]": credential.capabilities.insert(string)
                default: credential.states.insert(string)
                }
            default:
                break
            }
            line.wipe()
        }
    }

    /// Splits `host:port`. The port is the digits after the last `:` (an IPv6 literal keeps its
    /// brackets); a host with no port, or a non-numeric one, is kept whole. The host is stored in
    /// canonical form (``CredentialScope/canonicalServer(_:)``).
    mutating func setHost(_ value: String) {
        let value = CredentialScope.canonicalServer(value)
        host = value
        port = nil
        guard let colon = value.lastIndex(of: ":") else { return }
        let name = value[..<colon]
        let digits = value[value.index(after: colon)...]
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let number = UInt16(digits),
            !name.contains(":") || name.hasSuffix("]")
        else { return }
        host = String(name)
        port = number
    }

    /// Apple's `kSecAttrProtocol…` code for a git protocol name, for the protocols git's
    /// osxkeychain helper handles; `nil` for others.
    static func appleProtocol(_ name: String) -> String? {
        switch name {
        case "https": "htps"
        case "http": "http"
        case "ftp": "ftp "
        case "ftps": "ftps"
        case "imap": "imap"
        case "imaps": "imps"
        case "smtp": "smtp"
        default: nil
        }
    }

    /// `Git: <protocol>://<host>[:<port>]/<path>`, the label git's libsecret helper uses.
    var label: String { "Git: " + description }

    /// `<protocol>://<host>[:<port>][/<path>]`: how messages name the credential (never the
    /// user name or the password).
    var description: String {
        var text = "\(protocolName ?? "")://\(host ?? "")"
        if let port { text += ":\(port)" }
        if let path { text += "/" + String(decoding: path, as: UTF8.self) }
        return text
    }

    /// An attribute value for raw bytes from git: text when they are UTF-8, data otherwise (the
    /// engine matches both by their bytes).
    static func attribute(_ bytes: [UInt8]) -> AttributeValue {
        if let text = String(validating: bytes, as: UTF8.self) { return .string(text) }
        return .data(Data(bytes))
    }
}
