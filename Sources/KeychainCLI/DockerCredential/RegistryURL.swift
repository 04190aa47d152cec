/// A registry server URL split as docker's `registryurl.Parse` and osxkeychain's `splitServer` split it.
struct RegistryURL: Equatable {
    /// `"http"` or `"https"`; empty when the URL had no scheme (then https is used).
    var scheme: String
    var host: String
    var port: UInt16?
    var path: String

    /// Parses `text`. A URL without `://` is read as `//text`, so the host is never taken for a path.
    /// - Throws: `unsupported scheme: x`, `no hostname in URL`, or `invalid port`.
    init(_ text: String) throws(DockerCredentialHelper.Failure) {
        var rest = Substring(text)
        scheme = ""
        if let colon = Self.schemeSeparator(in: rest) {
            scheme = rest[..<colon].lowercased()
            rest = rest[rest.index(colon, offsetBy: 3)...]
        } else if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
        }
        guard scheme == "" || scheme == "http" || scheme == "https" else {
            throw .message("unsupported scheme: \(scheme)")
        }
        // Drop the query and the fragment; they play no part.
        if let cut = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<cut] }
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        path = Self.percentDecoded(String(rest[authorityEnd...]))
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var hostPart = authority
        var portText: Substring = ""
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        host = String(hostPart)
        port = nil
        if !portText.isEmpty {
            guard portText.allSatisfy({ $0.isASCII && $0.isNumber }), let number = UInt16(portText) else {
                throw .message("invalid port \":\(portText)\" after host")
            }
            port = number
        }
        guard !host.isEmpty else { throw .message("no hostname in URL") }
    }

    /// `kSecAttrProtocolHTTP` for `http://`, else `kSecAttrProtocolHTTPS`.
    var appleProtocol: String { scheme == "http" ? "http" : "htps" }

    /// The attributes that select this URL's items: protocol and server always; port and path
    /// only when the URL has them (go-keychain leaves empty values out of the query).
    var filters: [String: AttributeValue] {
        var filters: [String: AttributeValue] = ["ptcl": .string(appleProtocol), "srvr": .string(host)]
        if let port { filters["port"] = .integer(Int64(port)) }
        if !path.isEmpty { filters["path"] = .string(path) }
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

    private static func percentDecoded(_ text: String) -> String {
        guard text.contains("%") else { return text }
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%"), let high = iterator.next(), let low = iterator.next(),
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

internal import KeychainCore
