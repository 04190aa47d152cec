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
        var message = Message(
            label: label, columnBytes: 8 * integers.count + columns.reduce(0) { $0 + Message.bytes($1) })
        for integer in integers { message.appendFixed(integer) }
        for column in columns {
            switch column {
            case .null: message.appendColumn(UnsafeRawBufferPointer(start: nil, count: 0))
            case .integer(let value): message.appendColumn(value)
            case .blob(let value): value.withUnsafeBytes { message.appendColumn($0) }
            case .text(let value): message.appendColumn(Array(value.utf8))
            }
        }
        return message.tag(key: key)
    }

    /// The tagged message, built in one buffer: for a caller that has a row's columns as fields rather than
    /// as ``SQLValue``s (``ItemRow``), so that it writes the same bytes as ``tag(label:key:integers:columns:)``
    /// without making the values first.
    ///
    /// The buffer is made at its full length once and each field is copied to its place: appending to an
    /// array cost about 75 instructions a field, about 2k of the 8k a row's tag took (issue 29).
    struct Message {
        private var bytes: [UInt8]
        /// Bytes written so far: the message is `bytes[..<written]`.
        private var written = 0

        /// A message that starts with `label`, with room for `columnBytes` more bytes.
        init(label: [UInt8], columnBytes: Int) {
            bytes = [UInt8](repeating: 0, count: label.count + columnBytes)
            label.withUnsafeBytes { write($0) }
        }

        /// Copies `source` after what was written, growing the buffer when the room given was too small.
        private mutating func write(_ source: UnsafeRawBufferPointer) {
            guard let base = source.baseAddress, source.count > 0 else { return }
            let end = written + source.count
            if end > bytes.count { bytes.append(contentsOf: repeatElement(0, count: end - bytes.count)) }
            bytes.withUnsafeMutableBytes { ($0.baseAddress! + written).copyMemory(from: base, byteCount: source.count) }
            written = end
        }

        /// The bytes `column` takes in a message: its length field and its value.
        static func bytes(_ column: SQLValue) -> Int {
            switch column {
            case .null: 4
            case .integer: 12
            case .blob(let value): 4 + value.count
            case .text(let value): 4 + value.utf8.count
            }
        }

        /// A fixed integer: 8 bytes big-endian, no length.
        mutating func appendFixed(_ integer: Int64) {
            withUnsafeBytes(of: integer.bigEndian) { write($0) }
        }

        /// An integer column: its length (8) then 8 bytes big-endian.
        mutating func appendColumn(_ integer: Int64) {
            withUnsafeBytes(of: UInt32(8).bigEndian) { write($0) }
            withUnsafeBytes(of: integer.bigEndian) { write($0) }
        }

        /// A blob column (or a null one: no bytes): its length (u32 big-endian) then its bytes.
        mutating func appendColumn(_ value: UnsafeRawBufferPointer) {
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: value.count).bigEndian) { write($0) }
            write(value)
        }

        /// A blob column.
        mutating func appendColumn(_ value: [UInt8]) {
            value.withUnsafeBytes { appendColumn($0) }
        }

        /// BLAKE2b-256 of the message under `key`.
        func tag(key: SecureBytes) -> [UInt8] {
            bytes.withUnsafeBytes {
                Sodium.keyedHash(UnsafeRawBufferPointer(rebasing: $0[..<written]), key: key, length: 32)
            }
        }
    }
}
