/// The keyed tag of a sync table's row: ``ItemCodec/rowTag(_:)`` (BLAKE2b under the index key) over the table's
/// name and the row's columns, so a row cannot be moved to another table, edited, or replayed from an older copy
/// of the file without ``Keystore/verifyIntegrity()`` finding it (every tag is XORed into `meta.sync_accumulator`).
enum SyncRowTag {
    static func tag(_ table: String, _ values: [SQLValue], codec: ItemCodec) -> [UInt8] {
        codec.rowTag([.text(table)] + values)
    }
}
