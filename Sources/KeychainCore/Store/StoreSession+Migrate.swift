extension StoreSession {
    // MARK: - Package

    /// Rewrites every item `query` matches with `transform` applied to its attributes, keeping its
    /// secret, persistent reference and every attribute `transform` leaves alone (`cdat` and `mdat`
    /// included): the engine half of a migration. Run it inside one write transaction
    /// (``Keystore/write(_:)``) so that it moves all the items or none.
    ///
    /// Each item is re-sealed in place with a fresh item key under its (possibly new) protection class.
    /// `transform` may not change the item class: the class is part of every row's identity.
    /// - Parameters:
    ///   - query: the items to move.
    ///   - transform: edits one item's attributes (for example `agrp`, `pdmn`, `sync`).
    /// - Returns: the moved items with their new attributes and no secret, in storage order.
    /// - Throws: `.duplicateItem` when a moved item would take the primary key of another item (the
    ///   caller's transaction then rolls back every move); `.interactionNotAllowed` when a source or
    ///   target class key is locked; `.decode` when an item fails authentication; `.param` for an
    ///   unknown protection class.
    func migrate(
        _ query: ItemQuery, transform: (inout [String: AttributeValue]) -> Void
    ) throws(KeychainFailure) -> [StoredItem] {
        let rows = try candidateRows(query, withSecret: true)
        var moved: [StoredItem] = []
        for row in rows {
            let key = try itemKey(row)
            var attributes = try openAttributes(row, itemKey: key)
            guard Self.satisfies(attributes, query) else { continue }
            let secret = try openSecret(row, itemKey: key)
            transform(&attributes)
            attributes = Self.normalized(row.itemClass, attributes)
            try rewrite(row, attributes: attributes, secret: secret)
            moved.append(
                StoredItem(
                    itemClass: row.itemClass, attributes: attributes, persistentRef: row.persistentRef,
                    secret: nil))
        }
        return moved
    }
}
