/// The credential helpers' item operations: each one whole inside the caller's transaction, so a
/// decision made on what was read is acted on before any other process can change it.
extension StoreSession {
    // MARK: - Package

    /// The items in `scope`, in insertion order.
    ///
    /// Candidates are selected by ``CredentialScope/query(groups:)``, their attributes opened, and
    /// the server and ownership checked (``CredentialScope/contains(_:)``); only the secrets of the
    /// items in the scope are opened. With a `limit`, items stored under the canonical server name
    /// are looked up through the index first, and the other internet passwords are scanned (for
    /// items stored in another letter case) only when those are too few.
    /// - Parameters:
    ///   - scope: what the request selects.
    ///   - groups: the access groups searched (the gateway's).
    ///   - withSecret: also open each item's secret.
    ///   - limit: at most this many items; `nil` for all.
    /// - Returns: the items, with their attributes (and secrets when asked); `[]` when none.
    /// - Throws: `.interactionNotAllowed` when a class key is locked; `.decode` when an item fails
    ///   authentication.
    func credentials(
        in scope: CredentialScope, groups: GroupScope, withSecret: Bool, limit: Int? = nil
    ) throws(KeychainFailure) -> [StoredItem] {
        var found: [StoredItem] = []
        var candidates: [StoredItem]?
        if limit != nil {
            // Fast path through the server index: items stored in canonical form.
            var exact = scope.query(groups: groups)
            exact.filters[.server] = .string(CredentialScope.canonicalServer(scope.server))
            let indexed = try search(exact, projection: [.attributes]).filter { scope.contains($0.attributes) }
            if indexed.count >= limit ?? 0 { candidates = indexed }
        }
        if candidates == nil {
            candidates = try search(scope.query(groups: groups), projection: [.attributes])
                .filter { scope.contains($0.attributes) }
        }
        for record in candidates ?? [] {
            if let limit, found.count >= limit { break }
            var record = record
            if withSecret {
                let query = ItemQuery(
                    itemClass: .internetPassword, scope: groups, synchronizable: .any,
                    persistentRef: record.persistentRef)
                record.secret = try search(query, projection: [.secret]).first?.secret
            }
            found.append(record)
        }
        return found
    }

    /// Deletes the items in `scope` for which `predicate` holds: a conditional delete, judged and
    /// carried out in the caller's one write transaction (a credential stored by another process
    /// after the comparison is never removed).
    /// - Parameters:
    ///   - scope: what the request selects.
    ///   - groups: the access groups searched (the gateway's).
    ///   - predicate: decides on each item, with its attributes and secret. Compare secrets with
    ///     ``SecureBytes/constantTimeEquals(_:)``.
    /// - Returns: the number of items deleted.
    /// - Throws: as ``credentials(in:groups:withSecret:limit:)``.
    func deleteCredentials(
        in scope: CredentialScope, groups: GroupScope, where predicate: (StoredItem) -> Bool
    ) throws(KeychainFailure) -> Int {
        var deleted = 0
        for record in try credentials(in: scope, groups: groups, withSecret: true) where predicate(record) {
            deleted += try delete(
                ItemQuery(
                    itemClass: .internetPassword, scope: groups, synchronizable: .any,
                    persistentRef: record.persistentRef))
        }
        return deleted
    }

    /// Stores a helper's credential: the items in `scope` (the exact key the credential replaces)
    /// are replaced by one item with `attributes` and `secret`, and nothing else is touched.
    ///
    /// In order: when an item with the new item's primary key exists and is not the helper's
    /// (``CredentialScope/owns(_:)``), nothing changes and `.duplicateItem` is thrown; the helper's
    /// other items in `scope` are deleted; then the item is upserted
    /// (``upsert(_:attributes:secret:groups:now:)``) into `group`.
    /// - Parameters:
    ///   - scope: the key being replaced (an exact port and path; an account when several accounts
    ///     may be kept per key, as git does).
    ///   - attributes: the new item's attributes, without `agrp`.
    ///   - secret: the new secret.
    ///   - group: the access group the item goes into.
    ///   - searchGroups: the helper's access groups, searched for the items it replaces.
    /// - Returns: whether the item was inserted or updated in place.
    /// - Throws: `.duplicateItem` when another program's item has the primary key; otherwise as ``upsert(_:attributes:secret:groups:now:)``.
    func replaceCredential(
        in scope: CredentialScope, attributes: [String: AttributeValue], secret: SecureBytes, group: String,
        searchGroups: GroupScope
    ) throws(KeychainFailure) -> UpsertOutcome {
        var key = Self.normalized(.internetPassword, attributes)
        key[.accessGroup] = .string(group)
        var keep: [UInt8]?
        if let row = try rowByPrimaryKey(.internetPassword, key) {
            guard scope.owns(try openAttributes(row, itemKey: try itemKey(row))) else {
                throw KeychainFailure(
                    .duplicateItem, "another program's item for \(scope.server) has this credential's key; it is kept")
            }
            keep = row.persistentRef
        }
        for record in try credentials(in: scope, groups: searchGroups, withSecret: false)
        where Array(record.persistentRef) != keep {
            _ = try delete(
                ItemQuery(
                    itemClass: .internetPassword, scope: searchGroups, synchronizable: .any,
                    persistentRef: record.persistentRef))
        }
        return try upsert(.internetPassword, attributes: attributes, secret: secret, groups: [group])
    }
}

extension Keystore {
    /// Runs ``StoreSession/credentials(in:groups:withSecret:limit:)`` in one read transaction.
    func credentials(
        in scope: CredentialScope, groups: GroupScope, withSecret: Bool, limit: Int? = nil
    ) throws(KeychainFailure) -> [StoredItem] {
        try read { (s: borrowing StoreSession) throws(KeychainFailure) in
            try s.credentials(in: scope, groups: groups, withSecret: withSecret, limit: limit)
        }
    }

    /// Runs ``StoreSession/deleteCredentials(in:groups:where:)`` in one write transaction: the
    /// comparison and the delete cannot be separated by another process's write.
    func deleteCredentials(
        in scope: CredentialScope, groups: GroupScope, where predicate: (StoredItem) -> Bool
    ) throws(KeychainFailure) -> Int {
        try write { (s: borrowing StoreSession) throws(KeychainFailure) in
            try s.deleteCredentials(in: scope, groups: groups, where: predicate)
        }
    }

    /// Runs ``StoreSession/replaceCredential(in:attributes:secret:group:searchGroups:)`` in one
    /// write transaction.
    func replaceCredential(
        in scope: CredentialScope, attributes: [String: AttributeValue], secret: SecureBytes, group: String,
        searchGroups: GroupScope
    ) throws(KeychainFailure) -> UpsertOutcome {
        try write { (s: borrowing StoreSession) throws(KeychainFailure) in
            try s.replaceCredential(
                in: scope, attributes: attributes, secret: secret, group: group, searchGroups: searchGroups)
        }
    }

    /// Finds the first item `query` selects and deletes it, in one write transaction, so the item
    /// deleted is exactly the one found (`security delete-*-password`, which prints what it deletes).
    /// - Parameters:
    ///   - query: the search; its `limit` is ignored.
    ///   - projection: what to open of the item returned.
    /// - Returns: the deleted item, or `nil` when nothing matched.
    /// - Throws: as ``StoreSession/search(_:projection:)`` and ``StoreSession/delete(_:)``.
    func deleteFirst(_ query: ItemQuery, projection: ItemProjection) throws(KeychainFailure) -> StoredItem? {
        var first = query
        first.limit = 1
        return try write { (s: borrowing StoreSession) throws(KeychainFailure) -> StoredItem? in
            guard let item = try s.search(first, projection: projection).first else { return nil }
            _ = try s.delete(
                ItemQuery(
                    itemClass: item.itemClass, scope: first.scope, synchronizable: .any,
                    persistentRef: item.persistentRef))
            return item
        }
    }
}
