/// Reading every item with a cursor, one decrypted item at a time, for backups and exports.
extension StoreSession {
    /// Calls `body` with each item of the keychain (or of `itemClass`), in insertion order,
    /// attributes and secret decrypted; memory does not grow with the number of items.
    ///
    /// - Parameters:
    ///   - itemClass: only items of this class, or every item when `nil`.
    ///   - include: decides from the row's class and protection class whether to open it;
    ///     rows it rejects are neither decrypted nor passed on.
    /// - Returns: how many orphaned `…ThisDeviceOnly` items (from before an adoption; see
    ///   ``itemKeyUnlessOrphaned(_:associatedData:)``) were skipped because they cannot be opened.
    /// - Throws: `.interactionNotAllowed` when an included item's class key is locked; `.decode`
    ///   when a row does not authenticate; whatever `body` throws.
    @discardableResult
    func forEachItem(
        of itemClass: ItemClass? = nil, include: (ItemClass, ProtectionClass) -> Bool = { _, _ in true },
        _ body: (StoredItem) throws(KeychainFailure) -> Void
    ) throws(KeychainFailure) -> Int {
        var skippedOrphans = 0
        var clauses = ""
        var values: [SQLValue] = []
        if let itemClass {
            clauses = "WHERE class = ? "
            values.append(.integer(ItemRow.code(itemClass)))
        }
        let sql = ItemRow.select(withSecret: true, clauses + "ORDER BY rowid")
        let statement: Statement
        statement = try database.prepare(sql)
        try statement.bind(values)
        defer { statement.finish() }
        while true {
            let more: Bool
            more = try statement.step()
            guard more else { return skippedOrphans }
            let row = try ItemRow(statement, withSecret: true)
            let rowClass = row.itemClass
            guard include(rowClass, row.protection) else { continue }
            guard let key = try itemKeyUnlessOrphaned(row, associatedData: associatedData(.key, row)) else {
                skippedOrphans += 1
                continue
            }
            let attributes = try openAttributes(row, itemKey: key)
            let secret = try openSecret(row, itemKey: key)
            try body(
                StoredItem(
                    itemClass: rowClass, attributes: attributes, persistentRef: row.persistentRef, secret: secret)
            )
        }
    }
}
