#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

/// Reading every item with a cursor, one decrypted item at a time, for backups and exports.
extension StoreSession {
    /// Calls `body` with each item of the keychain (or of `itemClass`), in insertion order,
    /// attributes and secret decrypted; memory does not grow with the number of items.
    ///
    /// - Parameters:
    ///   - itemClass: only items of this class, or every item when `nil`.
    ///   - include: decides from the row's class and protection class whether to open it;
    ///     rows it rejects are neither decrypted nor passed on.
    /// - Throws: `.interactionNotAllowed` when an included item's class key is locked; `.decode`
    ///   when a row does not authenticate; whatever `body` throws.
    func forEachItem(
        of itemClass: ItemClass? = nil, include: (ItemClass, ProtectionClass) -> Bool = { _, _ in true },
        _ body: (ItemRecord) throws(KeychainFailure) -> Void
    ) throws(KeychainFailure) {
        var sql = """
            SELECT rowid, persistref, class, pdmn, sync, agrp, pk, acct, name, wrapped_key, attributes, secret
            FROM items
            """
        var values: [SQLValue] = []
        if let itemClass {
            sql += " WHERE class = ?"
            values.append(.integer(ItemCodec.classCode(itemClass)))
        }
        sql += " ORDER BY rowid"
        let statement: Statement
        do throws(SQLiteError) {
            statement = try database.prepare(sql)
            try statement.bind(values)
        } catch {
            throw Self.failure(error)
        }
        defer { statement.finish() }
        while true {
            let more: Bool
            do throws(SQLiteError) { more = try statement.step() } catch { throw Self.failure(error) }
            guard more else { return }
            guard let rowClass = ItemCodec.itemClass(code: statement.int64(2)),
                let protection = ProtectionClass(code: statement.int64(3))
            else { throw KeychainFailure(.decode, "an item row has an unknown class or protection class") }
            guard include(rowClass, protection) else { continue }
            let row = Row(
                rowid: statement.int64(0), persistentRef: statement.blob(1), itemClass: rowClass,
                protection: protection, sync: statement.int64(4) != 0,
                digests: ItemCodec.Digests(
                    accessGroup: statement.blob(5), primaryKey: statement.blob(6), account: statement.blob(7),
                    name: statement.blob(8)),
                wrappedKey: statement.blob(9), attributes: statement.blob(10), secret: statement.blob(11))
            let key = try itemKey(row)
            let attributes = try openAttributes(row, itemKey: key)
            let secret = try openSecret(row, itemKey: key)
            try body(
                ItemRecord(
                    itemClass: rowClass, attributes: attributes, persistentRef: Data(row.persistentRef), secret: secret))
        }
    }
}
