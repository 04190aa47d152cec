internal import KeychainCore

/// The keychain side of the docker helper.
struct DockerKeychain {
    let store: Keystore
    let identity: ApplicationIdentity

    typealias Failure = DockerCredentialHelper.Failure

    func store(_ credentials: DockerCredentials) throws(Failure) {
        let url = try RegistryURL(credentials.serverURL)
        guard let group = identity.defaultAccessGroup else { throw .message(KeychainStatus.missingEntitlement.message) }
        var attributes = url.filters
        attributes["acct"] = .string(credentials.username)
        attributes["labl"] = .string(DockerCredentialHelper.label)
        let secret = SecureBytes(copying: Array(credentials.secret.utf8))
        var key: [String: AttributeValue] = [:]
        for name in AddInternetPassword.primaryKey {
            key[name] = attributes[name] ?? ItemClass.internetPassword.descriptor(name)?.defaultValue
        }
        let keyQuery = ItemQuery(itemClass: .internetPassword, filters: key, accessGroups: [group])
        let searchGroups = identity.searchGroups
        try DockerCredentialHelper.keychain { () throws(KeychainFailure) in
            // One transaction: add or update in place, then remove what osxkeychain's
            // delete-before-add would have removed: the other items this URL selects.
            try store.write { (s: borrowing StoreSession) throws(KeychainFailure) in
                _ = try s.upsert(.internetPassword, attributes: attributes, secret: secret, groups: [group])
                let keep = try s.search(keyQuery, projection: []).map(\.persistentRef)
                let others = try s.search(
                    ItemQuery(itemClass: .internetPassword, filters: url.filters, accessGroups: searchGroups),
                    projection: [])
                for item in others where !keep.contains(item.persistentRef) {
                    _ = try s.delete(
                        ItemQuery(itemClass: .internetPassword, synchronizable: nil, persistentRef: item.persistentRef))
                }
            }
        }
    }

    /// The JSON line `get` prints.
    func get(_ serverURL: String) throws(Failure) -> String {
        let url = try RegistryURL(serverURL)
        let item = try DockerCredentialHelper.keychain { () throws(KeychainFailure) -> ItemRecord in
            let query = ItemQuery(
                itemClass: .internetPassword, filters: url.filters, accessGroups: identity.searchGroups, limit: 1)
            guard let item = try store.search(query, projection: [.attributes, .secret]).first else {
                throw KeychainFailure(.itemNotFound)
            }
            return item
        }
        let username = String(decoding: item.attributes["acct"]?.matchBytes ?? [], as: UTF8.self)
        let secret = item.secret.map { $0.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } } ?? ""
        return "{\"ServerURL\":\(GoJSON.string(serverURL)),\"Username\":\(GoJSON.string(username)),"
            + "\"Secret\":\(GoJSON.string(secret))}\n"
    }

    func erase(_ serverURL: String) throws(Failure) {
        let url = try RegistryURL(serverURL)
        try DockerCredentialHelper.keychain { () throws(KeychainFailure) in
            let deleted = try store.delete(
                ItemQuery(itemClass: .internetPassword, filters: url.filters, accessGroups: identity.searchGroups))
            if deleted == 0 { throw KeychainFailure(.itemNotFound) }
        }
    }

    /// The JSON object `list` prints: server URL → username, keys sorted as Go sorts map keys.
    func list() throws(Failure) -> String {
        let items = try DockerCredentialHelper.keychain { () throws(KeychainFailure) -> [ItemRecord] in
            try store.search(
                ItemQuery(
                    itemClass: .internetPassword, filters: ["labl": .string(DockerCredentialHelper.label)],
                    accessGroups: identity.searchGroups),
                projection: [.attributes])
        }
        var entries: [String: String] = [:]
        for item in items {
            func text(_ name: String) -> String { String(decoding: item.attributes[name]?.matchBytes ?? [], as: UTF8.self) }
            var url = (text("ptcl") == "http" ? "http" : "https") + "://" + text("srvr")
            if case .integer(let port)? = item.attributes["port"], port != 0 { url += ":\(port)" }
            url += text("path")
            entries[url] = text("acct")
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
