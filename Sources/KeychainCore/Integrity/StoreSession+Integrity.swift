extension StoreSession {
    /// Checks every `items` row's tag and their XOR against `meta.accumulator`.
    /// - Returns: the number of items checked.
    /// - Throws: `.decode` naming the first modified row, or the accumulator when a row was replayed,
    ///   removed or added.
    func verifyItemRows() throws(KeychainFailure) -> Int {
        var accumulator = IntegrityAccumulator()
        var count = 0
        var modified: Int?
        do {
            let columns = ItemRow.taggedColumns.map(\.rawValue).joined(separator: ", ")
            let rows = try database.prepare("SELECT \(columns), tag FROM items")
            try rows.bind([])
            defer { rows.finish() }
            while try rows.step() {
                let tag = codec.rowTag(ItemRow.storedTaggedValues(rows))
                guard tag == rows.blob(Int32(ItemRow.taggedColumns.count)) else {
                    modified = count + 1
                    break
                }
                accumulator.add(tag)
                count += 1
            }
        }
        if let modified { throw KeychainFailure(.decode, "item \(modified) was modified outside the keychain") }
        guard accumulator.matches(try Meta.blob(database, RowKind.secItem.accumulatorMeta)) else {
            throw KeychainFailure(
                .decode, "the keychain's items do not match its integrity record: a row was replayed, removed or added")
        }
        return count
    }
}
