/// One item to add: its class, attributes by raw name and secret.
package struct NewItem: Sendable {
    /// The item class.
    package var itemClass: ItemClass
    /// The attributes; `agrp` names the access group (see ``ItemGateway/groupForNewItem(named:)``).
    package var attributes: [String: AttributeValue]
    /// The secret, or `nil` for none.
    package var secret: SecureBytes?

    /// An item to add.
    package init(_ itemClass: ItemClass, attributes: [String: AttributeValue], secret: SecureBytes?) {
        self.itemClass = itemClass
        self.attributes = attributes
        self.secret = secret
    }
}

extension ItemGateway {
    // MARK: - Package

    /// Adds one item into ``groupForNewItem(named:)`` of its `agrp`, in one write transaction.
    /// - Returns: the new item's persistent reference.
    /// - Throws: `.missingEntitlement` (access groups); `.duplicateItem` when an item with the same
    ///   primary key exists (docs/APPLE-SEMANTICS.md rule 1); `.dataTooLarge`; `.interactionNotAllowed`
    ///   when the class key is locked; `.diskFull`.
    package func add(_ item: NewItem) throws(KeychainFailure) -> [UInt8] {
        let item = try placed(item)
        return try keystore.add(item.itemClass, attributes: item.attributes, secret: item.secret)
    }

    /// Adds every item in one write transaction: all of them, or none.
    /// - Parameters:
    ///   - count: how many items.
    ///   - item: makes the item at an index (called inside the transaction, just before it is added).
    ///   - added: told each index once its item is added.
    /// - Returns: the persistent references, in order.
    /// - Throws: as ``add(_:)``; a failure rolls every item back.
    package func addAll(
        _ count: Int, item: (Int) -> NewItem, added: (Int) -> Void = { _ in }
    ) throws(KeychainFailure) -> [[UInt8]] {
        try keystore.write { (s: borrowing StoreSession) throws(KeychainFailure) -> [[UInt8]] in
            var refs: [[UInt8]] = []
            refs.reserveCapacity(count)
            for index in 0..<count {
                let new = try placed(item(index))
                refs.append(try s.add(new.itemClass, attributes: new.attributes, secret: new.secret))
                added(index)
            }
            return refs
        }
    }

    /// Adds an identity (a certificate and its private key) in one write transaction. A private key
    /// already stored (created with `kSecAttrIsPermanent`, then the certificate added) completes the
    /// identity as it is (docs/APPLE-SEMANTICS.md rule 22).
    /// - Returns: the certificate's persistent reference.
    /// - Throws: as ``add(_:)``; `.duplicateItem` only for the certificate.
    package func addIdentity(certificate: NewItem, key: NewItem) throws(KeychainFailure) -> [UInt8] {
        let certificate = try placed(certificate)
        let key = try placed(key)
        return try keystore.write { (s: borrowing StoreSession) throws(KeychainFailure) -> [UInt8] in
            let ref = try s.add(certificate.itemClass, attributes: certificate.attributes, secret: certificate.secret)
            do throws(KeychainFailure) {
                _ = try s.add(key.itemClass, attributes: key.attributes, secret: key.secret)
            } catch  where error.status == .duplicateItem {}
            return ref
        }
    }

    /// Adds the item, or updates the one with its primary key in place: one write transaction,
    /// never delete-then-add (``StoreSession/upsert(_:attributes:secret:groups:now:)``), looking in
    /// ``upsertGroups(named:)``.
    /// - Parameters:
    ///   - item: the item; its `agrp`, when given, names the one group looked in.
    ///   - group: the group named by the request when it is not among the attributes.
    /// - Returns: whether the item was inserted or how many were updated.
    /// - Throws: `.missingEntitlement` (access groups); `.param` for an unknown protection class;
    ///   `.dataTooLarge`; `.interactionNotAllowed` when a class key is locked; `.decode`; `.diskFull`.
    package func upsert(_ item: NewItem, group: String? = nil) throws(KeychainFailure) -> UpsertOutcome {
        let groups = try upsertGroups(named: Self.namedGroup(item.attributes) ?? group)
        var attributes = item.attributes
        attributes.removeValue(for: .accessGroup)
        return try keystore.upsert(item.itemClass, attributes: attributes, secret: item.secret, groups: groups)
    }

    /// The items `query` matches, without their secrets: what ``search(_:projection:release:refusal:narrowing:)``
    /// alone returns (its scope is the gateway's: ``searchScope(named:)`` or ``callerScope``).
    /// - Parameter projection: what to open; ``ItemProjection/secret`` is ignored here.
    /// - Returns: the items, in insertion order; `[]` for none.
    /// - Throws: as ``StoreSession/search(_:projection:)``.
    package func search(_ query: ItemQuery, projection: ItemProjection) throws(KeychainFailure) -> [StoredItem] {
        try keystore.search(query, projection: projection.subtracting(.secret))
    }

    /// What a release does with an item whose secret `authorizer` does not release.
    package enum ReleaseRefusal: Sendable {
        /// The item is left out, and a failure to authorize ends the call: SecItemCopyMatching's rule
        /// (`kSecUseAuthenticationUISkip` leaves items out; otherwise the failure is the call's status).
        case omitsItem
        /// The item stays, without its secret, and the call goes on: `security dump-keychain -d`, which
        /// says how many items' data it left out.
        case withholdsSecret
    }

    /// Secret reads for a release's narrowing step (the identity join reads its keys' secrets with
    /// them): only a releasing search hands one out, and what its narrowing returns is released.
    package struct SecretReads: Sendable {
        let keystore: Keystore

        /// The items `query` matches, with their secrets, not yet released.
        /// - Throws: as ``StoreSession/search(_:projection:)``.
        package func search(_ query: ItemQuery, projection: ItemProjection) throws(KeychainFailure) -> [StoredItem] {
            try keystore.search(query, projection: projection.union([.secret, .accessControl]))
        }
    }

    /// The items `query` matches with their secrets, released through `authorizer`: the one way a
    /// secret leaves the gateway. Access-controlled items (``AccessConstraints/requiresAuthentication``)
    /// are authorized by `authorizer` (asking the user when its UI allows); only secrets are guarded,
    /// so attributes of access-controlled items stay readable, as on iOS (SecAccessControl.h).
    ///
    /// A Secure Enclave (TPM) key's secret is its TPM blob, of no use without that TPM: its access
    /// control is asked at each use of the key instead (KeychainItems' `EnclaveKey`), as the enclave does.
    /// - Parameters:
    ///   - query: the search (its scope is the gateway's).
    ///   - projection: what else to open; the secret and the access control are always read.
    ///   - authorizer: the call's one authorizer (asks at most once for each kind of proof).
    ///   - refusal: what happens to an item whose secret is not released (``ReleaseRefusal``).
    ///   - narrowing: runs on the items found before any is released (joins, item lists, limits), so
    ///     the user is asked only about what the call returns; its ``SecretReads`` reads more items
    ///     (an identity's key), which are released with the rest when they are part of what it returns.
    /// - Returns: the items `narrowing` kept, minus (or without the secrets of) those not released.
    /// - Throws: as ``StoreSession/search(_:projection:)``; under ``ReleaseRefusal/omitsItem`` as
    ///   ``AccessAuthorizer/authorize(_:)``: `.interactionNotAllowed`, `.authFailed`, `.userCanceled`,
    ///   and as ``trustDecision(_:list:authorizer:refusal:identity:)`` for an item whose trusted-application
    ///   list does not name this process (`.authFailed` for Deny, `.interactionNotAllowed` with no prompter).
    package func search(
        _ query: ItemQuery, projection: ItemProjection, release authorizer: inout AccessAuthorizer,
        refusal: ReleaseRefusal = .omitsItem,
        narrowing: (_ found: [StoredItem], _ reads: SecretReads) throws(KeychainFailure) -> [StoredItem] = { found, _ in
            found
        }
    ) throws(KeychainFailure) -> [StoredItem] {
        let reads = SecretReads(keystore: keystore)
        let found = try narrowing(try reads.search(query, projection: projection), reads)
        return try Self.release(found, authorizer: &authorizer, refusal: refusal)
    }

    /// Applies `changes` to every item `query` matches, in one write transaction.
    /// - Returns: how many items were updated.
    /// - Throws: `.missingEntitlement` when `changes` moves items to a group not held; as
    ///   ``StoreSession/update(_:changes:secret:now:)`` otherwise.
    package func update(_ query: ItemQuery, changes: [String: AttributeValue], secret: SecureBytes?)
        throws(KeychainFailure) -> Int
    {
        if let group = Self.namedGroup(changes) { try checkHeld(group) }
        return try keystore.update(query, changes: changes, secret: secret)
    }

    /// Deletes every item `query` matches, in one write transaction. An item an adopted keychain
    /// can no longer open is deleted only when `query` selects it by indexed attributes alone.
    /// - Returns: how many items were deleted.
    /// - Throws: as ``StoreSession/delete(_:)``.
    package func delete(_ query: ItemQuery) throws(KeychainFailure) -> Int {
        try keystore.delete(query)
    }

    /// Deletes the items with these persistent references (each with its class) in the caller's
    /// groups (``callerScope``), in one write transaction: all of them or none (an identity's
    /// certificate and key).
    /// - Returns: how many items were deleted.
    package func delete(references: [(ItemClass, [UInt8])]) throws(KeychainFailure) -> Int {
        try keystore.write { (s: borrowing StoreSession) throws(KeychainFailure) -> Int in
            var deleted = 0
            for (itemClass, ref) in references {
                deleted += try s.delete(
                    ItemQuery(itemClass: itemClass, scope: callerScope, synchronizable: .any, persistentRef: ref))
            }
            return deleted
        }
    }

    /// Finds the first item `query` selects and deletes it, in one write transaction, so the item
    /// deleted is exactly the one found.
    /// - Returns: the deleted item (without its secret), or `nil` when nothing matched.
    package func deleteFirst(_ query: ItemQuery, projection: ItemProjection) throws(KeychainFailure) -> StoredItem? {
        try keystore.deleteFirst(query, projection: projection.subtracting(.secret))
    }

    /// Moves the items the queries match into ``groupForNewItem(named:)`` of `group`: `changes` is
    /// applied to each item's attributes and the item re-sealed, all in one write transaction (all
    /// move, or none).
    /// - Parameters:
    ///   - queries: the items to move.
    ///   - changes: the new attributes, without `agrp` (the gateway places the items).
    ///   - group: the group the destination names, or `nil` for the caller's default.
    /// - Returns: the moved items with their new attributes and no secret.
    /// - Throws: `.missingEntitlement`; `.duplicateItem` when a moved item would take another's primary
    ///   key; as ``StoreSession/migrate(_:transform:)`` otherwise.
    package func migrate(_ queries: [ItemQuery], changes: [String: AttributeValue], into group: String?)
        throws(KeychainFailure) -> [StoredItem]
    {
        var changes = changes
        changes[.accessGroup] = .string(try groupForNewItem(named: group))
        return try keystore.write { (s: borrowing StoreSession) throws(KeychainFailure) -> [StoredItem] in
            var moved: [StoredItem] = []
            for query in queries {
                moved += try s.migrate(query) { attributes in
                    for (name, value) in changes { attributes[name] = value }
                }
            }
            return moved
        }
    }

    /// Imports a browser's or password manager's CSV export as internet passwords into
    /// ``groupForNewItem(named:)`` of `group`, in one write transaction
    /// (``Keystore/importPasswords(fromFile:accessGroup:protection:policy:)``).
    /// - Parameters:
    ///   - path: the CSV file.
    ///   - group: the access group named by the request, or `nil` for the caller's default.
    ///   - policy: what to do with an item whose primary key is already stored.
    /// - Returns: what was imported, replaced and skipped.
    /// - Throws: `.missingEntitlement` (access groups); as the engine's import otherwise.
    package func importPasswords(fromFile path: String, group: String?, policy: ConflictPolicy) throws(KeychainFailure)
        -> ImportSummary
    {
        try keystore.importPasswords(fromFile: path, accessGroup: try groupForNewItem(named: group), policy: policy)
    }

    // MARK: - Internal

    /// The release rule of ``search(_:projection:release:refusal:narrowing:)``, over items read with
    /// their secrets and access entries: the trusted-application list first (``trustDecision(_:list:authorizer:refusal:identity:)``;
    /// "Always Allow" answers are stored before this returns), then the access control.
    static func release(_ found: [StoredItem], authorizer: inout AccessAuthorizer, refusal: ReleaseRefusal)
        throws(KeychainFailure) -> [StoredItem]
    {
        var released: [StoredItem] = []
        released.reserveCapacity(found.count)
        var remembered: [(ItemClass, [UInt8], TrustedApplications)] = []
        var identity: String?
        for var item in found {
            // The trusted-application list (security add-*-password -T), before the access control.
            switch TrustedApplications.of(item.attributes) {
            case .absent: break
            case .malformed: throw KeychainFailure(.decode, "an item's trusted-application list is malformed")
            case .present where item.secret == nil: break
            case .present(let list):
                let me = identity ?? CallerIdentity.current.string
                identity = me
                switch try trustDecision(item, list: list, authorizer: authorizer, refusal: refusal, identity: me) {
                case .release: break
                case .remember(let list): remembered.append((item.itemClass, item.persistentRef, list))
                case .refuse:
                    if refusal == .withholdsSecret {
                        item.secret = nil
                        released.append(item)
                    }
                    continue
                }
            }
            let isEnclaveKey = item.attributes[.tokenID] == .string("com.apple.setoken")
            guard !isEnclaveKey, let constraints = item.constraints, constraints.requiresAuthentication else {
                released.append(item)
                continue
            }
            switch refusal {
            case .omitsItem:
                if try authorizer.authorize(constraints) { released.append(item) }
            case .withholdsSecret:
                var item = item
                if (try? authorizer.authorize(constraints)) != true { item.secret = nil }
                released.append(item)
            }
        }
        try remember(remembered, keystore: authorizer.keystore)
        return released
    }

    // MARK: - Private

    /// The item with its access group decided (``groupForNewItem(named:)``).
    private func placed(_ item: NewItem) throws(KeychainFailure) -> NewItem {
        var item = item
        item.attributes[.accessGroup] = .string(try groupForNewItem(named: Self.namedGroup(item.attributes)))
        return item
    }
}
