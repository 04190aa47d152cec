internal import KeychainCore
internal import KeychainToolSupport

/// A registry server URL split as docker's `registryurl.Parse` and osxkeychain's `splitServer` split it.
///
/// The parts are kept in one canonical form, used by both helpers and shown by `security`: the
/// host in ASCII lower case (DNS names are case-insensitive, RFC 4343) with an IPv6 literal in
/// brackets, the path percent-decoded (a lone `/` is no path). ``key`` rebuilds a URL from them
/// that parses back to the same parts, so every key `list` prints can be fed to `get` and `erase`.
struct RegistryURL: Equatable {
    /// `"http"` or `"https"`; empty when the URL had no scheme (then https is used).
    var scheme: String
    /// The canonical host (``CredentialScope/canonicalServer(_:)``); `[…]` for IPv6.
    var host: String
    var port: UInt16?
    /// The decoded path, `""` for none.
    var path: String

    /// Creates a URL from parts already in canonical form.
    init(scheme: String, host: String, port: UInt16?, path: String) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = path
    }

    /// Parses `text`. A URL without `://` is read as `//text`, so the host is never taken for a path.
    /// - Throws: `unsupported scheme: x`, `no hostname in URL`, or `invalid port`.
    init(_ text: String) throws(CommandFailure) {
        var rest = Substring(text)
        scheme = ""
        if let colon = Self.schemeSeparator(in: rest) {
            scheme = rest[..<colon].lowercased()
            rest = rest[rest.index(colon, offsetBy: 3)...]
        } else if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
        }
        guard scheme == "" || scheme == "http" || scheme == "https" else {
            throw .message("unsupported scheme: \(scheme)", status: 1)
        }
        // Drop the query and the fragment; they play no part.
        if let cut = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<cut] }
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        path = Self.percentDecoded(String(rest[authorityEnd...]))
        if path == "/" { path = "" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var hostPart = authority
        var portText: Substring = ""
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            hostPart = authority[...close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        host = CredentialScope.canonicalServer(String(hostPart))
        port = nil
        if !portText.isEmpty {
            guard portText.allSatisfy({ $0.isASCII && $0.isNumber }), let number = UInt16(portText) else {
                throw .message("invalid port \":\(portText)\" after host", status: 1)
            }
            port = number
        }
        guard !host.isEmpty, host != "[]" else { throw .message("no hostname in URL", status: 1) }
    }

    /// The URL `list` prints: `http://` or `https://`, the host, `:port` when there is one, and the
    /// path percent-encoded (everything but RFC 3986's unreserved characters, sub-delimiters,
    /// `:`, `@` and `/`). Parsing it gives back these parts.
    var key: String {
        var text = (scheme == "http" ? "http" : "https") + "://" + host
        if let port { text += ":\(port)" }
        return text + Self.percentEncoded(path)
    }

    /// `kSecAttrProtocolHTTP` for `http://`, else `kSecAttrProtocolHTTPS`.
    var appleProtocol: String { scheme == "http" ? "http" : "htps" }

    /// The attributes that select this URL's items: protocol and server always; port and path
    /// only when the URL has them (go-keychain leaves empty values out of the query).
    var filters: [String: AttributeValue] {
        var filters = [String: AttributeValue](named: [.protocol: .string(appleProtocol), .server: .string(host)])
        if let port { filters[.port] = .integer(Int64(port)) }
        if !path.isEmpty { filters[.path] = .string(path) }
        return filters
    }

    /// The index of the first `://`.
    private static func schemeSeparator(in text: Substring) -> Substring.Index? {
        var index = text.startIndex
        while index < text.endIndex {
            if text[index...].hasPrefix("://") { return index }
            index = text.index(after: index)
        }
        return nil
    }

    private static func percentEncoded(_ path: String) -> String {
        let kept = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/".utf8)
        var text = ""
        for byte in path.utf8 {
            if kept.contains(byte) {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                text += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return text
    }

    /// Decodes `%XX` escapes; when the result would not be UTF-8, the text is kept as it is.
    private static func percentDecoded(_ text: String) -> String {
        guard text.contains("%") else { return text }
        let input = Array(text.utf8)
        var bytes: [UInt8] = []
        var index = 0
        while index < input.count {
            if input[index] == UInt8(ascii: "%"), index + 2 < input.count,
                input[(index + 1)...(index + 2)].allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }),
                let value = UInt8(String(decoding: input[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index += 3
            } else {
                bytes.append(input[index])
                index += 1
            }
        }
        return String(validating: bytes, as: UTF8.self) ?? text
    }
}
