/// The bytes of one of a row's columns, wherever they are: an array the engine holds (``ItemRow``), or
/// SQLite's own buffer while its statement is on the row (``Statement/blobBytes(_:)``, ``ItemRowCursor``).
/// Lets one writer copy a row's fields from either (``AssociatedData/itemBytes(_:keychainID:persistentRef:classCode:protectionCode:sync:accessGroup:primaryKey:account:name:)``).
protocol RowBytes {
    /// How many bytes.
    var count: Int { get }
    /// Gives `body` the bytes, valid only inside it.
    func withRowBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R
}

extension Array: RowBytes where Element == UInt8 {
    func withRowBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R { withUnsafeBytes(body) }
}

extension UnsafeRawBufferPointer: RowBytes {
    func withRowBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R { body(self) }
}
