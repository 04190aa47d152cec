#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

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
    package func add(_ item: NewItem) throws(KeychainFailure) -> Data {
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
    ) throws(KeychainFailure) -> [Data] {
        try keystore.write { (s: borrowing StoreSession) throws(KeychainFailure) -> [Data] in
            var refs: [Data] = []
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
    package func addIdentity(certificate: NewItem, key: NewItem) throws(KeychainFailure) -> Data {
        let certificate = try placed(certificate)
        let key = try placed(key)
        return try keystore.write { (s: borrowing StoreSession) throws(KeychainFailure) -> Data in
            let ref = try s.add(certificate.itemClass, attributes: certificate.attributes, secret: certificate.secret)
            do throws(KeychainFailure) {
                _ = try s.add(key.itemClass, attributes: key.attributes, secret: key.secret)
            } catch where error.status == .duplicateItem {}
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

    /// The items `query` matches (the caller built `query.accessGroups` with ``searchGroups(named:)``).
    /// - Throws: as ``StoreSession/search(_:projection:)``.
    package func search(_ query: ItemQuery, projection: ItemProjection) throws(KeychainFailure) -> [ItemRecord] {
        try keystore.search(query, projection: projection)
    }

    /// The items whose secrets may be released: access-controlled ones are authorized by `authorizer`
    /// (asking the user when its UI allows) or, under `.skip`, left out. Only secrets are guarded:
    /// attributes of access-controlled items stay readable, as on iOS (SecAccessControl.h). Every front
    /// end that returns secrets passes its results through here; `items` must carry their access
    /// control (``ItemProjection/accessControl`` or `.attributes`).
    /// - Throws: as ``AccessAuthorizer/authorize(_:)``.
    package static func releasable(_ items: [ItemRecord], authorizer: inout AccessAuthorizer)
        throws(KeychainFailure) -> [ItemRecord]
    {
        var allowed: [ItemRecord] = []
        allowed.reserveCapacity(items.count)
        for item in items {
            // A Secure Enclave (TPM) key's secret is its TPM blob, of no use without that TPM: its access
            // control is asked at each use of the key instead (KeychainItems' EnclaveKey), as the enclave does.
            let isEnclaveKey = item.attributes[.tokenID] == .string("com.apple.setoken")
            if !isEnclaveKey, let constraints = item.constraints, constraints.requiresAuthentication {
                guard try authorizer.authorize(constraints) else { continue }
            }
            allowed.append(item)
        }
        return allowed
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

    /// Deletes the items with these persistent references (each with its class) in one write
    /// transaction: all of them or none (an identity's certificate and key).
    /// - Returns: how many items were deleted.
    package func delete(references: [(ItemClass, Data)]) throws(KeychainFailure) -> Int {
        try keystore.write { (s: borrowing StoreSession) throws(KeychainFailure) -> Int in
            var deleted = 0
            for (itemClass, ref) in references {
                deleted += try s.delete(ItemQuery(itemClass: itemClass, synchronizable: .any, persistentRef: ref))
            }
            return deleted
        }
    }

    /// Finds the first item `query` selects and deletes it, in one write transaction, so the item
    /// deleted is exactly the one found.
    /// - Returns: the deleted item, or `nil` when nothing matched.
    package func deleteFirst(_ query: ItemQuery, projection: ItemProjection) throws(KeychainFailure) -> ItemRecord? {
        try keystore.deleteFirst(query, projection: projection)
    }

    /// Moves the items the queries match: `changes` is applied to each item's attributes and the item
    /// re-sealed, all in one write transaction (all move, or none). A group in `changes` must be held.
    /// - Returns: the moved items with their new attributes and no secret.
    /// - Throws: `.missingEntitlement`; `.duplicateItem` when a moved item would take another's primary
    ///   key; as ``StoreSession/migrate(_:transform:)`` otherwise.
    package func migrate(_ queries: [ItemQuery], changes: [String: AttributeValue]) throws(KeychainFailure)
        -> [ItemRecord]
    {
        if let group = Self.namedGroup(changes) { try checkHeld(group) }
        return try keystore.write { (s: borrowing StoreSession) throws(KeychainFailure) -> [ItemRecord] in
            var moved: [ItemRecord] = []
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

    // MARK: - Private

    /// The item with its access group decided (``groupForNewItem(named:)``).
    private func placed(_ item: NewItem) throws(KeychainFailure) -> NewItem {
        var item = item
        item.attributes[.accessGroup] = .string(try groupForNewItem(named: Self.namedGroup(item.attributes)))
        return item
    }
}
