/// The keyed tag of one stored row, for every kind (``RowKind``): BLAKE2b-256 under the kind's tag key of
/// `label ‖ fixed integers ‖ columns`, where each fixed integer is 8 bytes big-endian and each column is its
/// length (u32 big-endian) then its bytes (an integer column: 8 bytes big-endian; null: nothing). Every row's
/// tag is XORed into its kind's accumulator (``IntegrityAccumulator``), which ``Keystore/verifyIntegrity()``
/// checks.
///
/// The bytes are fixed by the keychains already on disk: SecItem rows and sync rows use `swkc.row.v1` under the
/// index key and no fixed integers (``ItemCodec/rowTag(_:)``); Secret Service rows use `swkc.ss.row.v1` under
/// their tag key, with the item number and serial as fixed integers (``SecretItemCodec/rowTag(number:serial:attributeSet:metadata:wrappedKey:secret:)``).
enum RowTag {
    static func tag(label: [UInt8], key: SecureBytes, integers: [Int64] = [], columns: [SQLValue]) -> [UInt8] {
        func length(_ column: SQLValue) -> Int {
            switch column {
            case .null: 0
            case .integer: 8
            case .blob(let value): value.count
            case .text(let value): value.utf8.count
            }
        }
        var message: [UInt8] = []
        message.reserveCapacity(label.count + 8 * integers.count + columns.reduce(0) { $0 + 4 + length($1) })
        message += label
        for integer in integers { withUnsafeBytes(of: integer.bigEndian) { message.append(contentsOf: $0) } }
        for column in columns {
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: length(column)).bigEndian) { message.append(contentsOf: $0) }
            switch column {
            case .null: break
            case .integer(let value): withUnsafeBytes(of: value.bigEndian) { message.append(contentsOf: $0) }
            case .blob(let value): message.append(contentsOf: value)
            case .text(let value): message.append(contentsOf: value.utf8)
            }
        }
        return Sodium.keyedHash(message, key: key, length: 32)
    }
}
