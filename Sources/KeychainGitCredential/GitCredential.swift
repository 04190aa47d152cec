internal import KeychainCore
internal import KeychainToolSupport

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
    /// Raw bytes: git passes them through unchanged. Kept in zeroising storage from the moment
    /// they are read, with the expiry and refresh token stored beside them.
    var password: SecureBytes?
    var passwordExpiry: SecureBytes?
    var oauthRefreshToken: SecureBytes?
    /// `capability[]` values git announced.
    var capabilities: Set<String> = []
    /// `state[]` values git passed back.
    var states: Set<String> = []

    /// Why input was rejected. The description never holds the line's value (it may be a secret).
    enum Problem: CustomStringConvertible {
        case noEquals(line: Int)
        case nulByte(line: Int)
        case tooLong(line: Int)
        case notUTF8(key: String, line: Int)
        case invalidPort(line: Int)

        var description: String {
            switch self {
            case .noEquals(let line): "line \(line) has no '='"
            case .nulByte(let line): "line \(line) contains a NUL byte"
            case .tooLong(let line):
                "line \(line) is longer than \(GitCredentialHelper.maximumLineBytes) bytes, the keychain's limit for a secret"
            case .notUTF8(let key, let line): "the value of \(key) on line \(line) is not UTF-8"
            case .invalidPort(let line): "the port in host on line \(line) is not a number from 1 to 65535"
            }
        }
    }

    /// Reads `key=value` lines until a blank line or end of input. A trailing CR is removed, as
    /// git's `strbuf_getline` does. Unknown keys are ignored (git: "future-proofs us"). Every line
    /// read is wiped, on every path (it may hold a secret).
    /// - Throws: `git-credential-keychain: bad input: <problem>` (exit 1) for malformed input.
    static func read(from input: any ByteInput) throws(CommandFailure) -> GitCredential {
        do { return try parse(input) } catch {
            throw .message("\(GitCredentialHelper.name): bad input: \(error.description)", status: 1)
        }
    }

    private static func parse(_ input: any ByteInput) throws(ProblemError) -> GitCredential {
        var reader = LineReader(input)
        var credential = GitCredential()
        var number = 0
        while true {
            number += 1
            var line: [UInt8]
            switch reader.next(limit: GitCredentialHelper.maximumLineBytes + 1) {
            case .end: return credential
            case .tooLong: throw ProblemError(.tooLong(line: number))
            case .line(let bytes): line = bytes
            }
            defer { line.wipe() }
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            if line.isEmpty { return credential }
            if line.count > GitCredentialHelper.maximumLineBytes { throw ProblemError(.tooLong(line: number)) }
            if line.contains(0) { throw ProblemError(.nulByte(line: number)) }
            guard let equals = line.firstIndex(of: UInt8(ascii: "=")) else {
                throw ProblemError(.noEquals(line: number))
            }
            let key = String(decoding: line[..<equals], as: UTF8.self)
            let value = line[(equals + 1)...]
            switch key {
            case "password": credential.password = SecureBytes(copying: value)
            case "password_expiry_utc": credential.passwordExpiry = SecureBytes(copying: value)
            case "oauth_refresh_token": credential.oauthRefreshToken = SecureBytes(copying: value)
            case "path": credential.path = Array(value)
            case "username": credential.username = Array(value)
            case "protocol", "host", "capability[]", "state[]":
                guard let string = String(validating: value, as: UTF8.self) else {
                    throw ProblemError(.notUTF8(key: key, line: number))
                }
                switch key {
                case "protocol": credential.protocolName = string
                case "host":
                    guard credential.setHost(string) else { throw ProblemError(.invalidPort(line: number)) }
                case "capability[]": credential.capabilities.insert(string)
                default: credential.states.insert(string)
                }
            default:
                break
            }
        }
    }

    /// A ``Problem`` thrown inside the parser (it becomes a ``CommandFailure`` in ``read(from:)``).
    private struct ProblemError: Error {
        let problem: Problem
        init(_ problem: Problem) { self.problem = problem }
        var description: String { problem.description }
    }

    /// Splits `host:port`. The port is the digits after the last `:` (an IPv6 literal keeps its
    /// brackets); a host with no port, or a non-numeric one, is kept whole. The host is stored in
    /// canonical form (``CredentialScope/canonicalServer(_:)``).
    ///
    /// A port of digits outside 1–65535 (`host=p.example:99999`, `:0`) is refused rather than kept as
    /// part of the host: git's own URL parser refuses it ("invalid port number", `url_normalize` in
    /// git's `urlmatch.c`), so git never sends one from a valid URL, and osxkeychain's and libsecret's
    /// helpers would silently truncate it to 16 bits.
    /// - Parameter value: the value of `host`.
    /// - Returns: `false` (nothing changed) when the port is digits outside 1–65535; `true` otherwise.
    mutating func setHost(_ value: String) -> Bool {
        let value = CredentialScope.canonicalServer(value)
        var name = Substring(value)
        var number: UInt16?
        if let colon = value.lastIndex(of: ":") {
            let digits = value[value.index(after: colon)...]
            if !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                !value[..<colon].contains(":") || value[..<colon].hasSuffix("]")
            {
                guard let port = UInt16(digits), port != 0 else { return false }
                name = value[..<colon]
                number = port
            }
        }
        host = String(name)
        port = number
        return true
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
        return .data(bytes)
    }
}
