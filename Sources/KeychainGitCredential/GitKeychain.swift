internal import KeychainCore
internal import KeychainToolSupport

/// The keychain side of `git-credential-keychain`: which items a request selects, and get, store
/// and erase on them through the engine's credential operations (one transaction each).
struct GitKeychain {
    /// The keychain, through the policy gateway (access groups, conditional delete, replacement).
    let gateway: ItemGateway

    /// The label prefix of the items this helper writes (git's libsecret helper's label).
    static let labelPrefix = "Git: "

    /// The items `credential` selects (git's matching rules, `credential_match`): the protocol,
    /// the host in any case, exactly its port (none when the request has none), its path when
    /// given (any otherwise), its user name when given. Docker's items are never selected.
    /// - Parameters:
    ///   - credential: the request.
    ///   - exactPath: select only items with exactly this path (none when the request has none),
    ///     as `store` replaces.
    /// - Returns: the scope for the engine.
    func scope(_ credential: GitCredential, exactPath: Bool = false) -> CredentialScope {
        CredentialScope(
            protocolCode: credential.protocolName.flatMap(GitCredential.appleProtocol), server: credential.host ?? "",
            port: .exactly(Int64(credential.port ?? 0)),
            path: (exactPath ? credential.path ?? [] : credential.path).map { String(decoding: $0, as: UTF8.self) },
            account: credential.username.map(GitCredential.attribute),
            ownership: .notLabelled([CredentialHelpers.dockerLabel]))
    }

    /// The items a `get` may answer with, with their secrets, oldest first.
    /// - Parameter credential: the request.
    /// - Returns: the items in ``scope(_:exactPath:)``; `[]` when none.
    /// - Throws: `.interactionNotAllowed` when the keychain is locked; `.decode` for a damaged item.
    func find(_ credential: GitCredential) throws(KeychainFailure) -> [StoredItem] {
        try gateway.credentials(in: scope(credential), withSecret: true)
    }

    /// Prints the first of `found` whose fields git's protocol can carry; each one skipped is named
    /// on stderr with the field and the reason. Nothing is printed when none can be sent.
    /// - Parameters:
    ///   - credential: the request (the user name is printed only when it did not give one).
    ///   - io: where the answer and the notices go.
    ///   - found: the candidates, from ``find(_:)``.
    func get(_ credential: GitCredential, io: CommandIO, found: [StoredItem]) {
        for item in found {
            guard let secret = item.secret else { continue }
            var stored = GitSecret(secret, ownFormat: Self.isOwnFormat(item))
            var lines: [(String, [UInt8])] = []
            if credential.username == nil { lines.append(("username", item.attributes[.account]?.matchBytes ?? [])) }
            lines += stored.takeFields()
            if credential.capabilities.contains("state") {
                lines.append(("capability[]", Array("state".utf8)))
                lines.append(("state[]", Array(GitCredentialHelper.seenState.utf8)))
            }
            if let (key, reason) = lines.lazy.compactMap({ key, value in Self.unsendable(value).map { (key, $0) } })
                .first
            {
                io.error.line(
                    "\(GitCredentialHelper.name): skipped the credential for \(Self.describe(item)): its \(key) "
                        + "contains \(reason), which git's credential protocol cannot carry")
                for index in lines.indices { lines[index].1.wipe() }
                continue
            }
            for (key, value) in lines {
                io.output.write(key + "=")
                io.output.write(bytes: value)
                io.output.line("")
            }
            for index in lines.indices { lines[index].1.wipe() }
            return
        }
    }

    /// Stores the credential, replacing only the item with exactly its key (and older copies of it
    /// whose host differs in case). Docker's item with the same key is never overwritten.
    /// - Parameter credential: the request; without protocol, host, user name and password nothing
    ///   is stored (git's libsecret helper's rule), and a credential git just read from this helper
    ///   (`state[]`) is not stored again.
    /// - Throws: `.duplicateItem` when docker's item holds the key; `.missingEntitlement` without an
    ///   access group; `.dataTooLarge` over 1 MiB; `.interactionNotAllowed` when locked.
    func store(_ credential: GitCredential) throws(KeychainFailure) {
        if credential.states.contains(GitCredentialHelper.seenState) { return }
        guard let scheme = credential.protocolName, let code = GitCredential.appleProtocol(scheme),
            let host = credential.host, let username = credential.username, let password = credential.password
        else { return }
        // The stored secret: the password, then the metadata lines, written straight into
        // zeroising storage (no array copy of the password to wipe).
        var parts: [(prefix: [UInt8], value: SecureBytes)] = [([], password)]
        if let expiry = credential.passwordExpiry { parts.append((Array("\npassword_expiry_utc=".utf8), expiry)) }
        if let token = credential.oauthRefreshToken { parts.append((Array("\noauth_refresh_token=".utf8), token)) }
        let secret = SecureBytes(count: parts.reduce(0) { $0 + $1.prefix.count + $1.value.count }) { buffer in
            var offset = 0
            for part in parts {
                UnsafeMutableRawBufferPointer(rebasing: buffer[offset...]).copyBytes(from: part.prefix)
                offset += part.prefix.count
                part.value.withUnsafeBytes {
                    UnsafeMutableRawBufferPointer(rebasing: buffer[offset...]).copyMemory(from: $0)
                }
                offset += part.value.count
            }
        }
        let attributes = [String: AttributeValue](named: [
            .authenticationType: .string("dflt"), .server: .string(host), .port: .integer(Int64(credential.port ?? 0)),
            .path: GitCredential.attribute(credential.path ?? []), .account: GitCredential.attribute(username),
            .`protocol`: .string(code), .label: .string(credential.label),
        ])
        _ = try gateway.replaceCredential(
            in: scope(credential, exactPath: true), attributes: attributes, secret: secret)
    }

    /// Deletes the matching items; with a password, only those whose password equals it (compared
    /// in constant time inside the delete's write transaction).
    /// - Parameter credential: the request, matched as ``find(_:)`` matches.
    /// - Throws: `.interactionNotAllowed` when locked; `.decode` for a damaged item.
    func erase(_ credential: GitCredential) throws(KeychainFailure) {
        let wanted = credential.password
        _ = try gateway.deleteCredentials(in: scope(credential)) { item in
            guard let wanted else { return true }
            guard let secret = item.secret else { return false }
            var stored = GitSecret(secret, ownFormat: Self.isOwnFormat(item))
            var fields = stored.takeFields()
            defer { for index in fields.indices { fields[index].1.wipe() } }
            return wanted.constantTimeEquals(fields[0].1)
        }
    }

    // MARK: - Private

    /// Whether the item's secret is in this helper's format (password, then metadata lines).
    private static func isOwnFormat(_ item: StoredItem) -> Bool {
        guard let label = item.attributes[.label] else { return false }
        return label.matchBytes.starts(with: labelPrefix.utf8)
    }

    /// Why git's protocol cannot carry `value` (git-credential(1): values end at a newline; git
    /// removes a trailing CR; C strings end at NUL), or `nil` when it can.
    private static func unsendable(_ value: [UInt8]) -> String? {
        if value.contains(UInt8(ascii: "\n")) { return "a line feed" }
        if value.contains(0) { return "a NUL byte" }
        if value.last == UInt8(ascii: "\r") { return "a trailing carriage return" }
        return nil
    }

    /// `<protocol>://<server>[:<port>][/<path>]` of a stored item, for messages (no user name).
    private static func describe(_ item: StoredItem) -> String {
        func text(_ name: AttributeName) -> String {
            String(decoding: item.attributes[name]?.matchBytes ?? [], as: UTF8.self)
        }
        let schemes = [
            "htps": "https", "http": "http", "ftp ": "ftp", "ftps": "ftps", "imap": "imap", "imps": "imaps",
            "smtp": "smtp",
        ]
        var url = (schemes[text(.`protocol`)] ?? text(.`protocol`)) + "://" + text(.server)
        if case .integer(let port)? = item.attributes[.port], port != 0 { url += ":\(port)" }
        let path = text(.path)
        if !path.isEmpty { url += path.hasPrefix("/") ? path : "/" + path }
        return url
    }
}
