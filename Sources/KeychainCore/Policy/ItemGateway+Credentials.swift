/// The credential helpers' operations (git, docker, and any later helper): reads, conditional
/// deletes and replacements scoped by a ``CredentialScope``, each in one transaction, over the
/// caller's access groups.
extension ItemGateway {
    // MARK: - Package

    /// The groups a credential helper reads, replaces in and deletes from: ``callerScope``. Unlike
    /// ``searchScope(named:)``, a caller without groups is not refused: it finds nothing, as
    /// git's protocol expects of a helper with no credentials.
    package var helperGroups: GroupScope { callerScope }

    /// The items in `scope` in the caller's groups, oldest first.
    /// - Parameters:
    ///   - scope: what the request selects.
    ///   - withSecret: also open each item's secret.
    ///   - limit: at most this many items; `nil` for all.
    /// - Throws: `.interactionNotAllowed` when locked; `.decode` for a damaged item.
    package func credentials(in scope: CredentialScope, withSecret: Bool, limit: Int? = nil) throws(KeychainFailure)
        -> [StoredItem]
    {
        let items = try keystore.credentials(in: scope, groups: helperGroups, withSecret: withSecret, limit: limit)
        guard withSecret else { return items }
        // Access-controlled secrets are released as SecItemCopyMatching releases them (UI allowed).
        var authorizer = AccessAuthorizer(keystore: keystore, context: nil, ui: .allow, reason: nil)
        return try Self.release(items, authorizer: &authorizer, refusal: .omitsItem)
    }

    /// Deletes the items in `scope` (in the caller's groups) for which `predicate` holds: a conditional
    /// delete, judged in the same write transaction as the delete, so a credential stored by another
    /// process after the comparison is never removed.
    /// - Parameters:
    ///   - scope: what the request selects.
    ///   - predicate: decides on each item, with its attributes and secret; compare secrets with
    ///     ``SecureBytes/constantTimeEquals(_:)``.
    /// - Returns: how many items were deleted.
    /// - Throws: as ``credentials(in:withSecret:limit:)``.
    package func deleteCredentials(in scope: CredentialScope, where predicate: (StoredItem) -> Bool)
        throws(KeychainFailure) -> Int
    {
        try keystore.deleteCredentials(in: scope, groups: helperGroups, where: predicate)
    }

    /// Stores a helper's credential into the caller's default group (``groupForNewItem(named:)``):
    /// the caller's items in `scope` are replaced by one item, and nothing else is touched, in one
    /// write transaction (``StoreSession/replaceCredential(in:attributes:secret:group:searchGroups:)``).
    /// - Parameters:
    ///   - scope: the exact key the credential replaces.
    ///   - attributes: the new internet password's attributes, without `agrp`.
    ///   - secret: the new secret.
    /// - Returns: whether the item was inserted or updated in place.
    /// - Throws: `.missingEntitlement` for a caller without an access group; `.duplicateItem` when
    ///   another program's item has the primary key (it is kept); `.dataTooLarge`; `.interactionNotAllowed`.
    package func replaceCredential(
        in scope: CredentialScope, attributes: [String: AttributeValue], secret: SecureBytes
    ) throws(KeychainFailure) -> UpsertOutcome {
        let group = try groupForNewItem(named: nil)
        return try keystore.replaceCredential(
            in: scope, attributes: attributes, secret: secret, group: group, searchGroups: helperGroups)
    }
}
