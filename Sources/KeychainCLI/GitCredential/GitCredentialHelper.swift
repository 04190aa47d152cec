package import KeychainCore

/// `git-credential-keychain get|store|erase`: git's credential-helper protocol over internet passwords.
///
/// Protocol (git-credential(1)): git writes `key=value` lines and a blank line or end of input;
/// the value is everything after the first `=`. Mapping, as git's own `git-credential-osxkeychain`
/// does it: class internet password, `srvr` = host, `port` from `host:port`, `path`, `acct` =
/// username, `ptcl` from the protocol (https → `htps`, http → `http`, ftp → `ftp `, ftps → `ftps`,
/// imap → `imap`, imaps → `imps`, smtp → `smtp`), `atyp` = `dflt`. Like osxkeychain, a credential
/// for any other protocol is ignored silently (exit 0): those have no Apple protocol code.
/// The secret stores the password, then `\npassword_expiry_utc=…` and `\noauth_refresh_token=…`
/// when given, so they stay encrypted and are returned by `get`.
///
/// - `get`: prints `username` (when not given) and `password`, plus the expiry and refresh token;
///   nothing, exit 0, when there is no host or no match (git's convention).
/// - `store`: add, and on `errSecDuplicateItem` update (an upsert); needs protocol, host, username
///   and password, and is skipped otherwise (as git's libsecret helper does).
/// - `erase`: removes matching items; with a password, only those whose password matches
///   (compared in constant time), as osxkeychain does.
///
/// Malformed input (a line without `=`, a NUL byte, a line over 64 KiB) is rejected with a
/// message on stderr and exit 1, never misread. Other failures print
/// `git-credential-keychain: failed to <action>: <message> (<status>)` and exit 1.
package enum GitCredentialHelper {
    /// The longest input line accepted, in bytes.
    package static let maximumLineBytes = 64 * 1024
    /// The `state[]` value `get` emits (when git announces `capability[]=state`) so that git does
    /// not store again a credential it just read from this helper.
    static let seenState = "keychain:seen=1"
    static let name = "git-credential-keychain"

    /// Runs the helper with `arguments` (without the program name).
    /// - Parameters:
    ///   - arguments: one action: `get`, `store` or `erase`; other actions are ignored (git's rule).
    ///   - io: the streams and environment.
    ///   - location: the keychain; `nil` means the default keychain of `io.environment`
    ///     (`security default-keychain`; the login keychain unless set).
    /// - Returns: the exit status: 0, or 1 after a message on stderr.
    package static func run(_ arguments: [String], io: CommandIO, location: KeychainLocation? = nil) -> Int32 {
        guard let action = arguments.first else {
            io.error.line("usage: git credential-keychain <get|store|erase>")
            return 1
        }
        let credential: GitCredential
        switch GitCredential.read(from: io.input) {
        case .failure(let problem):
            io.error.line("\(name): bad input: \(problem.description)")
            return 1
        case .success(let parsed):
            credential = parsed
        }
        guard ["get", "store", "erase"].contains(action) else { return 0 }
        // Protocols without an Apple code are ignored, as git-credential-osxkeychain does.
        if let scheme = credential.protocolName, GitCredential.appleProtocol(scheme) == nil { return 0 }
        guard credential.host != nil else { return 0 }
        do {
            let identity = try ApplicationIdentity.fromEnvironment(io.environment)
            let store = try KeychainPreferences.openDefault(location, environment: io.environment)
            let session = GitKeychain(store: store, identity: identity)
            switch action {
            case "get": try session.get(credential, io: io)
            case "store": try session.store(credential)
            default: try session.erase(credential)
            }
            return 0
        } catch {
            io.error.line("\(name): failed to \(action): \(error.status.message) (\(error.status.rawValue))")
            return 1
        }
    }

    /// The `main` of the executable: real streams and environment.
    package static func main(arguments: [String], environment: [String: String]) -> Int32 {
        let io = CommandIO.standard(environment: environment)
        let status = run(Array(arguments.dropFirst()), io: io)
        io.flush()
        return status
    }
}

/// The keychain side of the helper: queries, upsert, erase.
struct GitKeychain {
    let store: Keystore
    let identity: ApplicationIdentity

    /// The attributes a credential determines (osxkeychain's `CREATE_SEC_ATTRIBUTES`).
    func filters(_ credential: GitCredential) -> [String: AttributeValue] {
        var filters: [String: AttributeValue] = ["atyp": .string("dflt")]
        if let host = credential.host { filters["srvr"] = .string(host) }
        if let port = credential.port { filters["port"] = .integer(Int64(port)) }
        if let path = credential.path { filters["path"] = .string(path) }
        if let username = credential.username { filters["acct"] = .string(username) }
        if let scheme = credential.protocolName, let code = GitCredential.appleProtocol(scheme) {
            filters["ptcl"] = .string(code)
        }
        return filters
    }

    func get(_ credential: GitCredential, io: CommandIO) throws(KeychainFailure) {
        let query = ItemQuery(itemClass: .internetPassword, filters: filters(credential), accessGroups: identity.searchGroups, limit: 1)
        guard let item = try store.search(query, projection: [.attributes, .secret]).first, let secret = item.secret
        else { return }
        let stored = StoredSecret(secret)
        var lines: [(String, [UInt8])] = []
        if credential.username == nil {
            let account: [UInt8] = item.attributes["acct"]?.matchBytes ?? []
            lines.append(("username", account))
        }
        lines.append(("password", stored.password))
        for (key, value) in stored.metadata { lines.append((key, value)) }
        if credential.capabilities.contains("state") {
            lines.append(("capability[]", Array("state".utf8)))
            lines.append(("state[]", Array(GitCredentialHelper.seenState.utf8)))
        }
        // A value git cannot carry (newline or NUL) is refused rather than split into other fields.
        for (_, value) in lines where value.contains(UInt8(ascii: "\n")) || value.contains(0) {
            throw KeychainFailure(.decode, "the stored credential contains a newline or NUL byte")
        }
        for (key, value) in lines {
            io.output.write(key + "=")
            io.output.write(bytes: value)
            io.output.line("")
        }
    }

    func store(_ credential: GitCredential) throws(KeychainFailure) {
        if credential.states.contains(GitCredentialHelper.seenState) { return }
        guard credential.protocolName != nil, credential.host != nil, credential.username != nil,
            let password = credential.password
        else { return }
        var bytes = password
        if let expiry = credential.passwordExpiry { bytes += Array("\npassword_expiry_utc=".utf8) + expiry }
        if let token = credential.oauthRefreshToken { bytes += Array("\noauth_refresh_token=".utf8) + token }
        let secret = SecureBytes(copying: bytes)
        bytes.wipe()
        guard let group = identity.defaultAccessGroup else { throw KeychainFailure(.missingEntitlement) }
        var attributes = filters(credential)
        attributes["labl"] = .string(credential.label)
        // Add, or update the item with this primary key in place: one transaction.
        _ = try store.upsert(.internetPassword, attributes: attributes, secret: secret, groups: [group])
    }

    func erase(_ credential: GitCredential) throws(KeychainFailure) {
        let query = ItemQuery(itemClass: .internetPassword, filters: filters(credential), accessGroups: identity.searchGroups)
        let wanted = credential.password.map { SecureBytes(copying: $0) }
        let items = try store.search(query, projection: wanted == nil ? [] : [.secret])
        for item in items {
            if let wanted {
                guard let secret = item.secret else { continue }
                let password = SecureBytes(copying: StoredSecret(secret).password)
                guard password.constantTimeEquals(wanted) else { continue }
            }
            _ = try store.delete(
                ItemQuery(itemClass: .internetPassword, accessGroups: identity.searchGroups, synchronizable: nil, persistentRef: item.persistentRef))
        }
    }
}

/// A stored secret split into the password (its first line) and the metadata lines after it.
struct StoredSecret {
    var password: [UInt8]
    var metadata: [(String, [UInt8])] = []

    init(_ secret: SecureBytes) {
        let lines = secret.withUnsafeBytes { Array($0) }.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        password = Array(lines.first ?? [])
        for line in lines.dropFirst() {
            guard let equals = line.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let key = String(decoding: line[line.startIndex..<equals], as: UTF8.self)
            guard key == "password_expiry_utc" || key == "oauth_refresh_token" else { continue }
            metadata.append((key, Array(line[(equals + 1)...])))
        }
    }
}
