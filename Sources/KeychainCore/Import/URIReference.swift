/// A URI reference split into its five components, without Foundation: what the password import
/// and the docker credential helper need from a URL, and nothing more.
///
/// The split is RFC 3986 Appendix B's regular expression, applied as written:
///
///     ^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?
///
/// so every string splits (a reference without a scheme or an authority is a relative reference,
/// RFC 3986 §4.1). On top of the split, only what the components' syntax (RFC 3986 §3) requires of
/// the parts the callers read is checked: the scheme's characters (§3.1); an authority's host, where
/// an IP literal in brackets must be an IPv6 address (§3.2.2, the `IPv6address` rule) or an
/// `IPvFuture`; and its port, digits only (§3.2.3) and at most 65535. Nothing is decoded: a `%`
/// stays as it is until a caller asks ``percentDecoded(_:)``, and characters RFC 3986 would
/// have percent-encoded (spaces, non-ASCII) are kept as given.
///
/// The userinfo ends at the authority's last `@`, as Go's `net/url` and the WHATWG URL standard
/// split it (RFC 3986 forbids a raw `@` inside the userinfo, so a valid reference splits the same).
///
/// ```swift
/// let uri = try URIReference("https://user@[::1]:8443/v2/?q=1#top")
/// // scheme "https", userinfo "user", host "[::1]", port 8443, path "/v2/", query "q=1", fragment "top"
/// ```
///
/// Source: RFC 3986 §3 (components), §3.2.2 (host), §3.2.3 (port), Appendix B (the split).
package struct URIReference: Equatable, Sendable {
    /// Why a string is not a URI reference.
    package enum Failure: Error, Equatable, Sendable {
        /// The text before the first `:` is not `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
        case invalidScheme(String)
        /// The host is an unclosed `[`, or a bracketed literal that is neither an IPv6 address nor
        /// an `IPvFuture`; the payload is the host text.
        case invalidHost(String)
        /// What follows the host is not `:` and decimal digits up to 65535; the payload is that
        /// text, colon included (`":80a"`, or `"x"` after `[::1]x`).
        case invalidPort(String)
    }

    /// The scheme as written (not lowercased), or `nil` for a relative reference.
    package var scheme: String?
    /// The userinfo before the authority's last `@`, or `nil` when there is no `@`.
    package var userinfo: String?
    /// The host when there is an authority (`//` after the scheme), possibly empty (`file:///x`);
    /// an IP literal keeps its brackets (`[::1]`). `nil` without an authority.
    package var host: String?
    /// The port, or `nil` when there is none or it is empty (`host:`, RFC 3986 §3.2.3).
    package var port: UInt16?
    /// The path, possibly empty; never `nil` (RFC 3986 §3.3).
    package var path: String
    /// The query without its `?`, or `nil` when there is no `?`.
    package var query: String?
    /// The fragment without its `#`, or `nil` when there is no `#`.
    package var fragment: String?

    /// Splits `text`.
    /// - Parameter text: a URI reference (absolute or relative).
    /// - Throws: ``Failure/invalidScheme(_:)``, ``Failure/invalidHost(_:)`` or
    ///   ``Failure/invalidPort(_:)`` when the scheme, host or port breaks RFC 3986 §3's syntax.
    package init(_ text: String) throws(Failure) {
        var rest = Substring(text)
        // (([^:/?#]+):)? — the scheme: a non-empty run free of `/?#`, ended by the first `:`.
        if let colon = rest.firstIndex(where: { $0 == ":" || $0 == "/" || $0 == "?" || $0 == "#" }),
            rest[colon] == ":", colon != rest.startIndex
        {
            let name = rest[..<colon]
            guard Self.isScheme(name) else { throw .invalidScheme(String(name)) }
            scheme = String(name)
            rest = rest[rest.index(after: colon)...]
        }
        // (//([^/?#]*))? — the authority.
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            var authority = rest[..<end]
            rest = rest[end...]
            if let at = authority.lastIndex(of: "@") {
                userinfo = String(authority[..<at])
                authority = authority[authority.index(after: at)...]
            }
            let (host, portText) = try Self.splitHost(authority)
            self.host = String(host)
            if !portText.isEmpty {
                guard portText.allSatisfy({ ("0"..."9").contains($0) }), let number = UInt16(portText) else {
                    throw .invalidPort(":" + portText)
                }
                port = number
            }
        }
        // ([^?#]*)(\?([^#]*))?(#(.*))? — path, query, fragment.
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        }
        if let mark = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: mark)...])
            rest = rest[..<mark]
        }
        path = String(rest)
    }

    /// Decodes `%XX` escapes (RFC 3986 §2.1; either case of hex digit).
    /// - Parameter text: a component as ``URIReference`` left it.
    /// - Returns: the decoded text, or `nil` when a `%` is not followed by two hex digits or the
    ///   decoded bytes are not UTF-8.
    package static func percentDecoded(_ text: some StringProtocol) -> String? {
        let input = Array(text.utf8)
        guard input.contains(UInt8(ascii: "%")) else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            guard input[index] == UInt8(ascii: "%") else {
                bytes.append(input[index])
                index += 1
                continue
            }
            guard index + 2 < input.count, let high = hexValue(input[index + 1]), let low = hexValue(input[index + 2])
            else { return nil }
            bytes.append(high << 4 | low)
            index += 3
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The component ``percentEncoded(_:for:)`` writes text into.
    package enum Component: Sendable {
        /// A path (`path-abempty`, RFC 3986 §3.3): `pchar` and `/` stay as they are.
        case path
        /// A host (RFC 3986 §3.2.2): an IP literal in brackets stays whole; otherwise `reg-name`'s
        /// characters and the non-ASCII characters an IRI's `ireg-name` allows (RFC 3987 §2.2) stay.
        case host
    }

    /// Whether a host as ``init(_:)`` split it (still encoded) is one RFC 3986 §3.2.2 allows, read as an
    /// IRI host (RFC 3987 §2.2): an IP literal in brackets, or a `reg-name`,
    /// `*( unreserved / pct-encoded / sub-delims )`, which may also hold non-ASCII characters as they
    /// are (`ucschar`: browsers and password managers write internationalised names that way).
    ///
    /// A space, `"`, `<`, `>`, `\`, `^`, `` ` ``, `{`, `|`, `}`, a control character, a non-character
    /// or private-use character, or a `%` not followed by two hex digits makes it invalid. What an
    /// escape stands for is not checked: `sp%20ace.example` is valid syntax (it decodes to
    /// `sp ace.example`, as `URLComponents.host` decodes it), so a name ``percentEncoded(_:for:)``
    /// wrote comes back the same.
    /// - Parameter host: ``host`` as split, an empty one included.
    /// - Returns: `true` when every character is allowed (an empty host is a valid, empty `reg-name`).
    package static func isHost(_ host: String) -> Bool {
        if host.hasPrefix("[") { return host.hasSuffix("]") && isIPLiteral(Substring(host).dropFirst().dropLast()) }
        let scalars = Array(host.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let value = scalars[index].value
            if value == 0x25 {  // "%" HEXDIG HEXDIG
                guard index + 2 < scalars.count,
                    scalars[(index + 1)...(index + 2)].allSatisfy({ $0.isASCII && hexValue(UInt8($0.value)) != nil })
                else { return false }
                index += 3
                continue
            }
            guard value < 0x80 ? isRegNameByte(UInt8(value)) : isUCSChar(value) else { return false }
            index += 1
        }
        return true
    }

    /// Percent-encodes `text` for `component` (RFC 3986 §2.1, upper-case hex digits), the inverse of
    /// ``percentDecoded(_:)``: `URIReference(…)` then ``percentDecoded(_:)`` of the component gives
    /// `text` back.
    ///
    /// - ``Component/path``: every UTF-8 byte that is not `unreserved`, `sub-delims`, `:`, `@` or `/`
    ///   is encoded, so `?`, `#`, `%`, a space and each byte of a non-ASCII character are (RFC 3986
    ///   §3.3, `pchar`; a browser's export encodes a path the same way).
    /// - ``Component/host``: a valid IP literal in brackets is returned as it is; otherwise every ASCII
    ///   character that is not `unreserved` or `sub-delims` (`:`, `/`, `%`, a space, …) is encoded, and
    ///   so is each byte of a non-ASCII character that is not `ucschar` (RFC 3987 §2.2); other
    ///   non-ASCII characters stay as they are, as ``isHost(_:)`` accepts them.
    ///
    /// ```swift
    /// URIReference.percentEncoded("/a?b c/100%", for: .path)  // "/a%3Fb%20c/100%25"
    /// ```
    /// - Parameters:
    ///   - text: the decoded component.
    ///   - component: where the result goes.
    /// - Returns: the encoded text; for ``Component/host`` it always passes ``isHost(_:)``.
    package static func percentEncoded(_ text: String, for component: Component) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        func append(encoding scalar: Unicode.Scalar) {
            for byte in String(scalar).utf8 {
                bytes += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            }
        }
        switch component {
        case .path:
            for scalar in text.unicodeScalars {
                if scalar.isASCII, isPathByte(UInt8(scalar.value)) {
                    bytes.append(UInt8(scalar.value))
                } else {
                    append(encoding: scalar)
                }
            }
        case .host:
            if text.hasPrefix("["), isHost(text) { return text }
            for scalar in text.unicodeScalars {
                if scalar.isASCII ? isRegNameByte(UInt8(scalar.value)) : isUCSChar(scalar.value) {
                    bytes += String(scalar).utf8
                } else {
                    append(encoding: scalar)
                }
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `scheme://host[:port]path` with the host and path percent-encoded (``percentEncoded(_:for:)``):
    /// a URL that ``init(_:)`` splits back into `scheme`, the encoded host, `port` and the encoded path,
    /// which ``percentDecoded(_:)`` turns into `host` and `path` again (RFC 3986 §5.3, recomposition).
    ///
    /// ```swift
    /// URIReference.url(scheme: "https", host: "q.example", port: 8443, path: "/a?b")
    /// // "https://q.example:8443/a%3Fb"
    /// ```
    /// - Parameters:
    ///   - scheme: a valid scheme (RFC 3986 §3.1), written as it is.
    ///   - host: the decoded host; an IP literal keeps its brackets.
    ///   - port: the port, or `nil` for none.
    ///   - path: the decoded path; `/` is put in front when it does not start with one (with an
    ///     authority, a path is empty or starts with `/`, RFC 3986 §3.3).
    /// - Returns: the URL text.
    package static func url(scheme: String, host: String, port: UInt16?, path: String) -> String {
        var url = scheme + "://" + percentEncoded(host, for: .host)
        if let port { url += ":\(port)" }
        return url + percentEncoded(path.hasPrefix("/") ? path : "/" + path, for: .path)
    }

    // MARK: - Private

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// `unreserved / sub-delims` (RFC 3986 §2.2, §2.3): the characters a `reg-name` holds as they are.
    private static func isRegNameByte(_ byte: UInt8) -> Bool {
        isAlpha(byte) || isDigit(byte) || Array("-._~!$&'()*+,;=".utf8).contains(byte)
    }

    /// `pchar` without `pct-encoded`, and `/` (RFC 3986 §3.3): what a path holds as it is.
    private static func isPathByte(_ byte: UInt8) -> Bool {
        isRegNameByte(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "@") || byte == UInt8(ascii: "/")
    }

    /// `ucschar` (RFC 3987 §2.2): the non-ASCII characters an IRI holds as they are (no controls,
    /// surrogates, private-use characters or non-characters).
    private static func isUCSChar(_ value: UInt32) -> Bool {
        switch value {
        case 0xA0...0xD7FF, 0xF900...0xFDCF, 0xFDF0...0xFFEF: true
        case 0x10000...0xEFFFD: value & 0xFFFF <= 0xFFFD && !(0xE0000...0xE0FFF).contains(value)
        default: false
        }
    }

    /// `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )` (RFC 3986 §3.1).
    private static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.utf8.first, isAlpha(first) else { return false }
        return text.utf8.allSatisfy {
            isAlpha($0) || isDigit($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
        }
    }

    /// Splits an authority without its userinfo into the host and the port's text (`""` for none).
    /// A host in brackets must be a valid IP literal; any other host is a `reg-name` or IPv4
    /// address, which holds no `:`, so the first `:` starts the port.
    private static func splitHost(_ authority: Substring) throws(Failure) -> (Substring, Substring) {
        guard authority.hasPrefix("[") else {
            guard let colon = authority.firstIndex(of: ":") else { return (authority, "") }
            return (authority[..<colon], authority[authority.index(after: colon)...])
        }
        guard let close = authority.firstIndex(of: "]") else { throw .invalidHost(String(authority)) }
        let literal = authority[...close]
        guard isIPLiteral(literal.dropFirst().dropLast()) else { throw .invalidHost(String(literal)) }
        let after = authority[authority.index(after: close)...]
        if after.isEmpty { return (literal, "") }
        guard after.hasPrefix(":") else { throw .invalidPort(String(after)) }
        return (literal, after.dropFirst())
    }

    /// `IPv6address / IPvFuture` (RFC 3986 §3.2.2), the text between the brackets.
    private static func isIPLiteral(_ text: Substring) -> Bool {
        let bytes = Array(text.utf8)
        if let first = bytes.first, first | 0x20 == UInt8(ascii: "v") {
            // IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
            guard let dot = bytes.firstIndex(of: UInt8(ascii: ".")), dot > 1, dot < bytes.count - 1,
                bytes[1..<dot].allSatisfy({ hexValue($0) != nil })
            else { return false }
            let allowed = Set("-._~!$&'()*+,;=:".utf8)
            return bytes[(dot + 1)...].allSatisfy { isAlpha($0) || isDigit($0) || allowed.contains($0) }
        }
        return isIPv6Address(bytes)
    }

    /// The `IPv6address` rule: eight 16-bit pieces of 1–4 hex digits separated by `:`, the last two
    /// possibly written as an IPv4 address, with at most one `::` standing for one or more zero pieces.
    private static func isIPv6Address(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        let halves = text.split(separator: "::", maxSplits: 2, omittingEmptySubsequences: false)
        guard halves.count <= 2 else { return false }
        // The pieces of each side; an IPv4 address may end only the last side.
        func pieces(_ side: Substring, last: Bool) -> Int? {
            if side.isEmpty { return 0 }
            let groups = side.split(separator: ":", omittingEmptySubsequences: false)
            var count = 0
            for (index, group) in groups.enumerated() {
                if last && index == groups.count - 1 && group.contains(".") {
                    guard isIPv4Address(group) else { return nil }
                    count += 2
                } else {
                    guard (1...4).contains(group.utf8.count), group.utf8.allSatisfy({ hexValue($0) != nil }) else {
                        return nil
                    }
                    count += 1
                }
            }
            return count
        }
        if halves.count == 1 { return pieces(halves[0], last: true) == 8 }
        guard let head = pieces(halves[0], last: false), let tail = pieces(halves[1], last: true) else { return false }
        return head + tail <= 7
    }

    /// `IPv4address`: four `dec-octet`s (0–255, no leading zero) separated by dots (RFC 3986 §3.2.2).
    private static func isIPv4Address(_ text: Substring) -> Bool {
        let octets = text.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4
            && octets.allSatisfy { octet in
                (1...3).contains(octet.utf8.count) && octet.utf8.allSatisfy(isDigit)
                    && (octet.utf8.count == 1 || octet.utf8.first != UInt8(ascii: "0")) && Int(octet)! <= 255
            }
    }

    private static func isAlpha(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte & 0xDF) }
    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
