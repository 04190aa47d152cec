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

    /// Parses `text` as `registryurl.Parse` does: a URL without `://` (and not starting with `//`) is
    /// read as `//text`, so the host is never taken for a path or a scheme; the split is
    /// ``URIReference``'s (RFC 3986). The userinfo, query and fragment play no part.
    /// - Throws: `unsupported scheme: x` (a scheme other than http and https, or not a scheme);
    ///   `no hostname in URL`; `invalid port ":x" after host` (not digits, or above 65535) and
    ///   `missing ']' in host`, as Go's `net/url` words them.
    init(_ text: String) throws(CommandFailure) {
        let full = text.contains("://") || text.hasPrefix("//") ? text : "//" + text
        let uri: URIReference
        do { uri = try URIReference(full) } catch {
            switch error {
            case .invalidScheme(let name): throw .message("unsupported scheme: \(name.lowercased())", status: 1)
            case .invalidPort(let after): throw .message("invalid port \"\(after)\" after host", status: 1)
            case .invalidHost(let host) where !host.contains("]"): throw .message("missing ']' in host", status: 1)
            case .invalidHost: throw .message("no hostname in URL", status: 1)
            }
        }
        scheme = uri.scheme?.lowercased() ?? ""
        guard scheme == "" || scheme == "http" || scheme == "https" else {
            throw .message("unsupported scheme: \(scheme)", status: 1)
        }
        // A path that does not decode (a bad escape, not UTF-8) is kept as written.
        path = URIReference.percentDecoded(uri.path) ?? uri.path
        if path == "/" { path = "" }
        host = CredentialScope.canonicalServer(uri.host ?? "")
        port = uri.port
        guard !host.isEmpty else { throw .message("no hostname in URL", status: 1) }
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
}
