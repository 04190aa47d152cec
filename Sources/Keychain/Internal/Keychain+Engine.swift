internal import KeychainCore

/// The one place where the high-level API turns a ``Keychain`` into engine queries and attributes
/// (the role of Valet's `Internal/SecItem.swift`; no string-keyed SecItem dictionaries are built).
extension Keychain {
    // MARK: - Internal

    /// The engine item class of the scope.
    var itemClass: ItemClass {
        switch scope {
        case .genericPassword: .genericPassword
        case .internetPassword: .internetPassword
        }
    }

    /// The attributes that define the scope: `svce`, or `srvr` + `ptcl` + `atyp`.
    var scopeAttributes: [String: AttributeValue] {
        switch scope {
        case .genericPassword(let service):
            .init(named: [.service: .string(service)])
        case .internetPassword(let server, let proto, let authenticationType):
            .init(named: [
                .server: .string(server), .protocol: .string(proto.rawValue),
                .authenticationType: .string(authenticationType.rawValue),
            ])
        }
    }

    /// Runs `body` with the gateway of the bound or current context, translating engine failures
    /// for `operation`.
    func perform<R>(
        _ operation: KeychainError.Operation, _ body: (ItemGateway) throws(KeychainFailure) -> R
    ) throws(KeychainError) -> R {
        do {
            return try body(ItemGateway(try resolvedContext()))
        } catch {
            throw KeychainError(error, operation)
        }
    }

    /// The bound context; or the bound file with the current identity; or the current task's context
    /// (a test override) or the process's.
    func resolvedContext() throws(KeychainFailure) -> KeychainContext {
        if let context { return context }
        if let file { return KeychainContext(keystore: file.keystore, identity: try KeychainContext.currentIdentity()) }
        return try KeychainContext.current()
    }

    /// This keychain bound to the context current *now*, so work moved to another thread keeps the
    /// task's context (task-local overrides do not follow work onto a dispatch queue).
    func bound(_ operation: KeychainError.Operation) throws(KeychainError) -> Keychain {
        if context != nil { return self }
        do { return self.context(try resolvedContext()) } catch { throw KeychainError(error, operation) }
    }

    /// The query for one key (or every key when `key` is `nil`) of this scope, in the gateway's
    /// search groups for this keychain's access group (``ItemGateway/searchScope(named:)``).
    func query(
        _ gateway: ItemGateway, key: String?, synchronizable: Synchronizable, limit: Int? = nil
    ) throws(KeychainFailure) -> ItemQuery {
        var filters = scopeAttributes
        if let key { filters[.account] = .string(key) }
        return ItemQuery(
            itemClass: itemClass, filters: filters, scope: try gateway.searchScope(named: accessGroupName),
            synchronizable: synchronizable, limit: limit)
    }

    /// The attributes a stored item gets: scope, key, accessibility, synchronizable state, label, comment.
    /// - Throws: `.param` for a synchronizable item with a `ThisDeviceOnly` accessibility
    ///   (``ItemGateway/checkSynchronizable(_:protection:)``).
    func itemAttributes(key: String) throws(KeychainFailure) -> [String: AttributeValue] {
        try ItemGateway.checkSynchronizable(isSynchronizable, protection: itemAccessibility.protectionClass)
        var attributes = scopeAttributes
        attributes[.account] = .string(key)
        attributes[.accessible] = itemAccessibility.protectionClass.attribute
        attributes[.synchronizable] = Synchronizable(isSynchronizable).attribute
        if let itemLabel { attributes[.label] = .string(itemLabel) }
        if let itemComment { attributes[.comment] = .string(itemComment) }
        return attributes
    }

    /// The secret for `key`, kept in wiped memory, or `nil` when there is none.
    func secret(forKey key: String, _ operation: KeychainError.Operation) throws(KeychainError) -> SecureBytes? {
        try perform(operation) { (gateway) throws(KeychainFailure) -> SecureBytes? in
            let query = try query(gateway, key: key, synchronizable: Synchronizable(isSynchronizable), limit: 1)
            var authorizer = Self.authorizer(gateway)
            return try gateway.search(query, projection: [.accessControl], release: &authorizer).first?.secret
        }
    }

    /// The item for `key` with its secret and attributes (the protection class among them), or `nil`.
    func record(forKey key: String, _ operation: KeychainError.Operation) throws(KeychainError) -> StoredItem? {
        try perform(operation) { (gateway) throws(KeychainFailure) -> StoredItem? in
            let query = try query(gateway, key: key, synchronizable: Synchronizable(isSynchronizable), limit: 1)
            var authorizer = Self.authorizer(gateway)
            return try gateway.search(query, projection: [.attributes], release: &authorizer).first
        }
    }

    /// The gateway releases access-controlled secrets (an item added through SecItem with
    /// `kSecAttrAccessControl`) only after the user's proof, as `SecItemCopyMatching` releases them with
    /// its UI allowed.
    private static func authorizer(_ gateway: ItemGateway) -> AccessAuthorizer {
        AccessAuthorizer(keystore: gateway.keystore, context: nil, ui: .allow, reason: nil)
    }

    /// Stores `secret` for `key` with one atomic upsert.
    func upsert(_ secret: SecureBytes, forKey key: String) throws(KeychainError) {
        try perform(.set) { (gateway) throws(KeychainFailure) in
            _ = try gateway.upsert(
                NewItem(itemClass, attributes: try itemAttributes(key: key), secret: secret), group: accessGroupName)
        }
    }

    /// Adds `secret` for `key`; throws `.duplicateItem` when the key exists in the target group.
    func add(_ secret: SecureBytes, forKey key: String) throws(KeychainError) {
        try perform(.add) { (gateway) throws(KeychainFailure) in
            var attributes = try itemAttributes(key: key)
            // The gateway places the item: the named group when held, else the caller's default.
            if let accessGroupName { attributes[.accessGroup] = .string(accessGroupName) }
            _ = try gateway.add(NewItem(itemClass, attributes: attributes, secret: secret))
        }
    }
}
