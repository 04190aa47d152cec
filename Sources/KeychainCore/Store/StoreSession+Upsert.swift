/// What ``StoreSession/upsert(_:attributes:secret:groups:now:)`` did.
package enum UpsertOutcome: Sendable, Equatable {
    /// No item had the primary key: one was added.
    case inserted
    /// This many existing items (one per candidate group at most) were updated in place.
    case updated(Int)
}

extension StoreSession {
    // MARK: - Package

    /// Adds the item, or updates it in place when one with the same primary key exists: an atomic
    /// upsert, to be run inside one write transaction (``Keystore/write(_:)``), never delete-then-add.
    ///
    /// The primary key is looked up through the `pk` digest column (O(log n)) once per candidate
    /// access group in `groups`. Every item found is re-sealed in place with `attributes` merged over
    /// its stored attributes (its access group, persistent reference and `cdat` are kept; `mdat` is
    /// set to `now`) and the new secret. When none is found, the item is inserted into `groups[0]`.
    ///
    /// Passing several groups mirrors an app that writes without naming a group: the items it can
    /// see in any of its groups are updated, so a later read never returns a stale copy from a
    /// second group.
    /// - Parameters:
    ///   - itemClass: the item class.
    ///   - attributes: the item's attributes without `agrp`; missing primary-key attributes take
    ///     their defaults. `sync` selects the synchronizable state looked up and stored.
    ///   - secret: the new secret, or `nil`: a new item then has no secret and an existing one keeps
    ///     its own (`security add-… -U` without `-w`).
    ///   - groups: candidate access groups, in order; the first is where a new item goes. Must not be empty.
    /// - Returns: whether the item was inserted or how many were updated.
    /// - Throws: `.param` when `groups` is empty or the protection class is unknown; `.dataTooLarge`;
    ///   `.interactionNotAllowed` when a class key is locked; `.decode` when a stored item fails
    ///   authentication; `.diskFull`; `.duplicateItem` only if the database's uniqueness check fires.
    func upsert(
        _ itemClass: ItemClass, attributes input: [String: AttributeValue], secret: SecureBytes?, groups: [String],
        now: AbsoluteTime = .now
    ) throws(KeychainFailure) -> UpsertOutcome {
        guard let first = groups.first else { throw KeychainFailure(.param, "an upsert needs an access group") }
        var changes = input
        changes.removeValue(for: .accessGroup)
        changes.removeValue(for: .creationDate)
        changes.removeValue(for: .modificationDate)
        var updated = 0
        for group in groups {
            var keyAttributes = Self.normalized(itemClass, changes)
            keyAttributes[.accessGroup] = .string(group)
            guard let row = try rowByPrimaryKey(itemClass, keyAttributes, withSecret: secret == nil) else { continue }
            let key = try itemKey(row)
            let stored = try openAttributes(row, itemKey: key)
            try apply(changes: changes, to: row, itemKey: key, stored: stored, secret: secret, now: now)
            updated += 1
        }
        if updated > 0 { return .updated(updated) }
        var attributes = changes
        attributes[.accessGroup] = .string(first)
        _ = try add(itemClass, attributes: attributes, secret: secret, now: now)
        return .inserted
    }

    // MARK: - Internal

    /// The row whose primary key equals that of `attributes` (already normalized), if any, with its
    /// sealed secret when `withSecret`.
    func rowByPrimaryKey(
        _ itemClass: ItemClass, _ attributes: [String: AttributeValue], withSecret: Bool = false
    ) throws(KeychainFailure) -> Row? {
        let digest = codec.primaryKeyDigest(itemClass, attributes)
        let statement: Statement
        let found: Bool
        let columns = withSecret ? Self.rowColumns + ", secret" : Self.rowColumns
        statement = try database.prepare("SELECT \(columns) FROM items WHERE pk = ?")
        try statement.bind([.blob(digest)])
        found = try statement.step()
        defer { statement.finish() }
        return found ? try Self.row(statement, withSecret: withSecret) : nil
    }
}

extension Keystore {
    /// Runs ``StoreSession/upsert(_:attributes:secret:groups:now:)`` in one write transaction.
    func upsert(
        _ itemClass: ItemClass, attributes: [String: AttributeValue], secret: SecureBytes?, groups: [String]
    ) throws(KeychainFailure) -> UpsertOutcome {
        try write { (s: borrowing StoreSession) throws(KeychainFailure) in
            try s.upsert(itemClass, attributes: attributes, secret: secret, groups: groups)
        }
    }
}
