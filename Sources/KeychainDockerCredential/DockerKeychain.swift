internal import KeychainCore
internal import KeychainToolSupport

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
    func store(_ credentials: DockerCredentials) throws(CommandFailure) {
        let url = try RegistryURL(credentials.serverURL)
        // Docker's own message for a caller without a group: the status text without its number.
        do throws(KeychainFailure) { try gateway.checkPlacement(named: nil) } catch {
            throw .message(error.status.message, status: 1)
        }
        let attributes = [String: AttributeValue](named: [
            .`protocol`: .string(url.appleProtocol), .server: .string(url.host), .port: .integer(Int64(url.port ?? 0)),
            .path: .string(url.path), .authenticationType: .string("dflt"),
            .securityDomain: .string(Self.securityDomain),
            .account: .string(credentials.username), .label: .string(DockerCredentialHelper.label),
        ])
        let secret = credentials.secret
        try DockerCredentialHelper.keychain { () throws(KeychainFailure) in
            // One transaction: docker's other items for exactly this key go, the new one is
            // upserted; other programs' items and other keys of the same host stay.
            _ = try gateway.replaceCredential(in: scope(url, exact: true), attributes: attributes, secret: secret)
        }
    }

    /// The JSON line `get` prints: the exact key's item, else one found through osxkeychain's aliases.
    /// The line holds the secret, so it is built in place and returned in zeroising storage; the
    /// secret is never a `String`.
    /// - Parameter serverURL: the URL as docker sent it (echoed back as `ServerURL`).
    /// - Returns: `{"ServerURL":…,"Username":…,"Secret":…}` and a newline.
    /// - Throws: `credentials not found in native keychain`, a URL message, or the keychain's message.
    func get(_ serverURL: String) throws(CommandFailure) -> SecureBytes {
        let url = try RegistryURL(serverURL)
        let item = try DockerCredentialHelper.keychain { () throws(KeychainFailure) -> StoredItem in
            // The exact key first, then osxkeychain's aliases.
            for exact in [true, false] {
                if let item = try gateway.credentials(in: scope(url, exact: exact), withSecret: true, limit: 1).first {
                    return item
                }
            }
            throw KeychainFailure(.itemNotFound)
        }
        let username = String(decoding: item.attributes[.account]?.matchBytes ?? [], as: UTF8.self)
        let head = Array(
            "{\"ServerURL\":\(GoJSON.string(serverURL)),\"Username\":\(GoJSON.string(username)),\"Secret\":".utf8)
        let secret = item.secret ?? SecureBytes(copying: [])
        // Reserved once for the longest escaping (6 bytes a byte), so the array never reallocates
        // and leaves no unwiped copy of the secret behind.
        var line: [UInt8] = []
        line.reserveCapacity(head.count + 6 * secret.count + 4)
        line += head
        secret.withUnsafeBytes { GoJSON.append(utf8: $0, to: &line) }
        line += Array("}\n".utf8)
        let result = SecureBytes(copying: line)
        line.wipe()
        return result
    }

    /// Deletes docker's item for exactly the URL's key.
    /// - Parameter serverURL: the URL as docker sent it.
    /// - Throws: `credentials not found in native keychain` when there is none.
    func erase(_ serverURL: String) throws(CommandFailure) {
        let url = try RegistryURL(serverURL)
        try DockerCredentialHelper.keychain { () throws(KeychainFailure) in
            let deleted = try gateway.deleteCredentials(in: scope(url, exact: true)) { _ in true }
            if deleted == 0 { throw KeychainFailure(.itemNotFound) }
        }
    }

    /// The JSON object `list` prints: registry key (``RegistryURL/key``) → username, keys sorted as
    /// Go sorts map keys.
    func list() throws(CommandFailure) -> String {
        let items = try DockerCredentialHelper.keychain { () throws(KeychainFailure) -> [StoredItem] in
            try gateway.search(
                ItemQuery(
                    itemClass: .internetPassword,
                    filters: .init(named: [.label: .string(DockerCredentialHelper.label)]),
                    scope: gateway.helperGroups),
                projection: [.attributes])
        }
        var entries: [String: String] = [:]
        for item in items {
            func text(_ name: AttributeName) -> String {
                String(decoding: item.attributes[name]?.matchBytes ?? [], as: UTF8.self)
            }
            var port: UInt16?
            if case .integer(let number)? = item.attributes[.port], number != 0 { port = UInt16(clamping: number) }
            let url = RegistryURL(
                scheme: text(.`protocol`) == "http" ? "http" : "https",
                host: CredentialScope.canonicalServer(text(.server)),
                port: port, path: text(.path) == "/" ? "" : text(.path))
            entries[url.key] = text(.account)
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
    /// `value` as a JSON string, quotes included.
    static func string(_ value: String) -> String {
        var bytes: [UInt8] = []
        for scalar in value.unicodeScalars { escape(scalar, to: &bytes) }
        return "\"" + String(decoding: bytes, as: UTF8.self) + "\""
    }

    /// Appends the UTF-8 text `bytes` as a JSON string, quotes included, without making a `String`
    /// (for secrets). Bytes that are not UTF-8 become U+FFFD, as `String(decoding:as:)` makes them.
    static func append(utf8 bytes: UnsafeRawBufferPointer, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var iterator = bytes.makeIterator()
        var decoder = Unicode.UTF8()
        decoding: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): escape(scalar, to: &output)
            case .error: escape("\u{FFFD}", to: &output)
            case .emptyInput: break decoding
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// One scalar as Go's encoder writes it (HTML-safe), appended as UTF-8.
    private static func escape(_ scalar: Unicode.Scalar, to output: inout [UInt8]) {
        switch scalar {
        case "\"": output += [0x5C, 0x22]
        case "\\": output += [0x5C, 0x5C]
        case "\n": output += [0x5C, UInt8(ascii: "n")]
        case "\r": output += [0x5C, UInt8(ascii: "r")]
        case "\t": output += [0x5C, UInt8(ascii: "t")]
        case "\u{08}": output += [0x5C, UInt8(ascii: "b")]
        case "\u{0C}": output += [0x5C, UInt8(ascii: "f")]
        case "<", ">", "&", "\u{2028}", "\u{2029}":
            unicodeEscape(scalar.value, to: &output)
        default:
            if scalar.value < 0x20 {
                unicodeEscape(scalar.value, to: &output)
            } else {
                if let encoded = UTF8.encode(scalar) { output += encoded }
            }
        }
    }

    private static func unicodeEscape(_ value: UInt32, to output: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        output += [0x5C, UInt8(ascii: "u")]
        for shift in stride(from: 12, through: 0, by: -4) { output.append(hex[Int((value >> UInt32(shift)) & 0xF)]) }
    }
}
