internal import KeychainCore

/// The keychain side of the docker helper.
///
/// Scope: the helper reads, replaces and deletes only its own items, those labelled
/// `Docker Credentials` (as docker's osxkeychain helper labels them; an item made by hand with
/// `security add-internet-password -l "Docker Credentials" …` counts too). A registry key is the
/// protocol, host (any case), port and path of its URL. `store` replaces only the item for
/// exactly that key; `get` also finds a credential stored with a port or path when the URL has
/// none (osxkeychain's aliases); `erase` deletes exactly the key's item.
struct DockerKeychain {
    /// The keychain, through the policy gateway (access groups, one-transaction replacement).
    let gateway: ItemGateway

    typealias Failure = DockerCredentialHelper.Failure

    /// The security domain (`sdmn`) of the items `store` writes. It keeps docker's item apart from
    /// a git or browser credential with the same server, port, path and user name (the primary
    /// key has no label); lookups go by the label, so items made without it are docker's too.
    static let securityDomain = "docker"

    /// The items a URL selects: exactly its key (`exact`), or with osxkeychain's aliases (a URL
    /// without a port or path selects every port or path).
    /// - Parameters:
    ///   - url: the parsed registry URL.
    ///   - exact: select only the item for exactly the URL's key.
    /// - Returns: the scope, limited to docker's own items.
    func scope(_ url: RegistryURL, exact: Bool) -> CredentialScope {
        let port: CredentialScope.PortRule =
            exact ? .exactly(Int64(url.port ?? 0)) : url.port.map { .exactly(Int64($0)) } ?? .any
        return CredentialScope(
            protocolCode: url.appleProtocol, server: url.host, port: port,
            path: exact || !url.path.isEmpty ? url.path : nil, account: nil,
            ownership: .labelled(DockerCredentialHelper.label))
    }

    /// Stores the credential as docker's item for exactly its registry key.
    /// - Parameter credentials: what docker sent.
    /// - Throws: a message for a bad URL, or the keychain's message (another program's item with the
    ///   same primary key is kept and reported as a duplicate).
    func store(_ credentials: DockerCredentials) throws(Failure) {
        let url = try RegistryURL(credentials.serverURL)
        // Docker's own message for a caller without a group: the status text without its number.
        do throws(KeychainFailure) { _ = try gateway.groupForNewItem(named: nil) } catch {
            throw .message(error.status.message)
        }
        let attributes: [String: AttributeValue] = [
            "ptcl": .string(url.appleProtocol), "srvr": .string(url.host), "port": .integer(Int64(url.port ?? 0)),
            "path": .string(url.path), "atyp": .string("dflt"), "sdmn": .string(Self.securityDomain),
            "acct": .string(credentials.username), "labl": .string(DockerCredentialHelper.label),
        ]
        let secret = SecureBytes(copying: Array(credentials.secret.utf8))
        try DockerCredentialHelper.keychain { () throws(KeychainFailure) in
            // One transaction: docker's other items for exactly this key go, the new one is
            // upserted; other programs' items and other keys of the same host stay.
            _ = try gateway.replaceCredential(in: scope(url, exact: true), attributes: attributes, secret: secret)
        }
    }

    /// The JSON line `get` prints: the exact key's item, else one found through osxkeychain's aliases.
    /// - Parameter serverURL: the URL as docker sent it (echoed back as `ServerURL`).
    /// - Returns: `{"ServerURL":…,"Username":…,"Secret":…}` and a newline.
    /// - Throws: `credentials not found in native keychain`, a URL message, or the keychain's message.
    func get(_ serverURL: String) throws(Failure) -> String {
        let url = try RegistryURL(serverURL)
        let item = try DockerCredentialHelper.keychain { () throws(KeychainFailure) -> ItemRecord in
            // The exact key first, then osxkeychain's aliases.
            for exact in [true, false] {
                if let item = try gateway.credentials(in: scope(url, exact: exact), withSecret: true, limit: 1).first {
                    return item
                }
            }
            throw KeychainFailure(.itemNotFound)
        }
        let username = String(decoding: item.attributes["acct"]?.matchBytes ?? [], as: UTF8.self)
        let secret = item.secret.map { $0.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } } ?? ""
        return "{\"ServerURL\":\(GoJSON.string(serverURL)),\"Username\":\(GoJSON.string(username)),"
            + "\"Secret\":\(GoJSON.string(secret))}\n"
    }

    /// Deletes docker's item for exactly the URL's key.
    /// - Parameter serverURL: the URL as docker sent it.
    /// - Throws: `credentials not found in native keychain` when there is none.
    func erase(_ serverURL: String) throws(Failure) {
        let url = try RegistryURL(serverURL)
        try DockerCredentialHelper.keychain { () throws(KeychainFailure) in
            let deleted = try gateway.deleteCredentials(in: scope(url, exact: true)) { _ in true }
            if deleted == 0 { throw KeychainFailure(.itemNotFound) }
        }
    }

    /// The JSON object `list` prints: registry key (``RegistryURL/key``) → username, keys sorted as
    /// Go sorts map keys.
    func list() throws(Failure) -> String {
        let items = try DockerCredentialHelper.keychain { () throws(KeychainFailure) -> [ItemRecord] in
            try gateway.search(
                ItemQuery(
                    itemClass: .internetPassword, filters: ["labl": .string(DockerCredentialHelper.label)],
                    accessGroups: gateway.helperGroups),
                projection: [.attributes])
        }
        var entries: [String: String] = [:]
        for item in items {
            func text(_ name: String) -> String {
                String(decoding: item.attributes[name]?.matchBytes ?? [], as: UTF8.self)
            }
            var port: UInt16?
            if case .integer(let number)? = item.attributes["port"], number != 0 { port = UInt16(clamping: number) }
            let url = RegistryURL(
                scheme: text("ptcl") == "http" ? "http" : "https", host: CredentialScope.canonicalServer(text("srvr")),
                port: port, path: text("path") == "/" ? "" : text("path"))
            entries[url.key] = text("acct")
        }
        let body = entries.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            .map { GoJSON.string($0) + ":" + GoJSON.string(entries[$0]!) }
            .joined(separator: ",")
        return "{" + body + "}\n"
    }
}

/// Strings encoded as Go's `encoding/json` encodes them (HTML-safe escaping on, as docker's
/// `json.NewEncoder` leaves it), so output matches docker's helpers byte for byte.
enum GoJSON {
    static func string(_ value: String) -> String {
        var text = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\u{08}": text += "\\b"
            case "\u{0C}": text += "\\f"
            case "<", ">", "&", "\u{2028}", "\u{2029}":
                text += unicodeEscape(scalar.value)
            default:
                if scalar.value < 0x20 { text += unicodeEscape(scalar.value) } else { text.unicodeScalars.append(scalar) }
            }
        }
        return text + "\""
    }

    private static func unicodeEscape(_ value: UInt32) -> String {
        let hex = String(value, radix: 16)
        return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }
}
