/// Which internet passwords one credential helper request selects, and which of them the helper owns.
///
/// The rules the git and docker helpers share, kept in the engine so they are written once:
/// - **Server names** compare without regard to ASCII case (RFC 4343: DNS names are
///   case-insensitive), so an item stored as `Case.Example.Test` is found by `case.example.test`.
///   Helpers store the canonical form (``canonicalServer(_:)``); IPv6 literals keep their brackets.
/// - **Ports**: ``PortRule/exactly(_:)`` selects one port, where `0` means "stored without a port"
///   (git compares `host:port` as a whole); ``PortRule/any`` selects every port (docker's aliases,
///   as osxkeychain resolves them).
/// - **Paths**: `nil` selects every path; a value selects exactly that path (`""` is no path).
/// - **Ownership**: each helper reads, replaces and deletes only its own items
///   (``Ownership``), decided from the item's label.
///
/// The server is not an ``ItemQuery`` filter (filters are exact, byte-wise), so ``query(groups:)``
/// selects by protocol, port, path and account, and ``contains(_:)`` decides the rest on the
/// decrypted attributes.
///
/// Sources: RFC 4343 §2 (case insensitivity of DNS labels); git-credential(1) (`host` includes the
/// port); docker-credential-helpers `osxkeychain` (label `Docker Credentials`, port and path aliases).
package struct CredentialScope: Sendable {
    /// How the port is matched.
    package enum PortRule: Sendable, Equatable {
        /// Any port, including none.
        case any
        /// Exactly this port; `0` is "no port".
        case exactly(Int64)
    }

    /// Whose items these are, judged by the item's label (`labl`).
    package enum Ownership: Sendable, Equatable {
        /// Items whose label is exactly this text (docker's `Docker Credentials`).
        case labelled(String)
        /// Every item except those labelled with one of these texts (git reads what `security` and
        /// browser imports stored, but never docker's items).
        case notLabelled([String])
    }

    /// Apple's four-character protocol code (`htps`, `http`, …); `nil` for any.
    package var protocolCode: String?
    /// The server, in any case; compared with ``serversEqual(_:_:)``.
    package var server: String
    /// The port rule.
    package var port: PortRule
    /// The path; `nil` for any.
    package var path: String?
    /// The account; `nil` for any. `.data` holds an account that is not UTF-8.
    package var account: AttributeValue?
    /// Whose items are selected.
    package var ownership: Ownership

    /// Creates a scope. See the type's documentation for each rule.
    /// - Parameters:
    ///   - protocolCode: Apple's protocol code, or `nil` for any.
    ///   - server: the host name or bracketed IPv6 literal.
    ///   - port: the port rule.
    ///   - path: the exact path, or `nil` for any.
    ///   - account: the exact account, or `nil` for any.
    ///   - ownership: whose items are selected.
    package init(
        protocolCode: String?, server: String, port: PortRule, path: String?, account: AttributeValue?,
        ownership: Ownership
    ) {
        self.protocolCode = protocolCode
        self.server = server
        self.port = port
        self.path = path
        self.account = account
        self.ownership = ownership
    }

    // MARK: - Package

    /// The canonical form of a server name: ASCII letters in lower case (RFC 4343), everything
    /// else unchanged, so an IPv6 literal keeps its brackets and an IDN its bytes.
    /// - Parameter server: a host name as given.
    /// - Returns: the name as helpers store it.
    package static func canonicalServer(_ server: String) -> String {
        let lower = String(decoding: server.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
        // A DNS name never holds two colons (`host:port` holds one): an IPv6 literal made by hand
        // without its brackets (`security add-internet-password -s fe80::1`) is the host `[fe80::1]`.
        if lower.utf8.count(where: { $0 == UInt8(ascii: ":") }) >= 2 && !lower.hasPrefix("[") {
            return "[" + lower + "]"
        }
        return lower
    }

    /// Whether two server names are the same DNS name (ASCII case-insensitive, RFC 4343).
    /// - Returns: `true` when they differ at most in the case of ASCII letters.
    package static func serversEqual(_ a: String, _ b: String) -> Bool {
        canonicalServer(a) == canonicalServer(b)
    }

    /// The engine query that selects this scope's candidates in `groups`: internet passwords by
    /// protocol, port (when exact), path (when given) and account (when given). The server and the
    /// ownership are checked afterwards by ``contains(_:)``.
    /// - Parameter groups: the access groups searched (the gateway's, ``ItemGateway/callerScope``).
    /// - Returns: the query (synchronizable `false`, Apple's implicit default).
    package func query(groups: GroupScope) -> ItemQuery {
        var filters: [String: AttributeValue] = [:]
        if let protocolCode { filters[.`protocol`] = .string(protocolCode) }
        if case .exactly(let number) = port { filters[.port] = .integer(number) }
        if let path { filters[.path] = .string(path) }
        if let account { filters[.account] = account }
        return ItemQuery(itemClass: .internetPassword, filters: filters, scope: groups)
    }

    /// Whether an item with these decrypted attributes is in the scope: same server (case-insensitive),
    /// and owned as ``ownership`` says. The other rules are already in ``query(groups:)``.
    /// - Parameter attributes: the item's attributes.
    /// - Returns: `true` when the helper may read, replace or delete the item.
    package func contains(_ attributes: [String: AttributeValue]) -> Bool {
        guard let stored = attributes[.server],
            Self.serversEqual(String(decoding: stored.matchBytes, as: UTF8.self), server)
        else { return false }
        return owns(attributes)
    }

    /// Whether the item with these attributes belongs to this scope's helper (``ownership``).
    /// - Parameter attributes: the item's attributes.
    /// - Returns: `true` for the helper's own items.
    package func owns(_ attributes: [String: AttributeValue]) -> Bool {
        let label = attributes[.label].map { String(decoding: $0.matchBytes, as: UTF8.self) }
        switch ownership {
        case .labelled(let wanted): return label == wanted
        case .notLabelled(let others): return label.map { !others.contains($0) } ?? true
        }
    }
}
