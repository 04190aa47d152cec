/// Bounds-checked, big-endian reading of the byte formats the engine owns: item records
/// (`docs/RECORD-FORMAT.md`), Secret Service metadata (``SecretItemCodec``) and backup messages
/// (`docs/BACKUP-FORMAT.md`). Every read returns `nil` rather than pass the end, so a length taken
/// from the bytes is checked before it is used; callers turn `nil` into their own error.
///
/// It reads in place: the buffer must outlive the reader (use it inside `withUnsafeBytes`).
struct ByteReader {
    let buffer: UnsafeRawBufferPointer
    private(set) var offset = 0

    init(_ buffer: UnsafeRawBufferPointer, offset: Int = 0) {
        self.buffer = buffer
        self.offset = offset
    }

    /// Bytes not read yet.
    var remaining: Int { buffer.count - offset }

    var isAtEnd: Bool { offset == buffer.count }

    mutating func byte() -> UInt8? {
        guard offset < buffer.count else { return nil }
        defer { offset += 1 }
        return buffer[offset]
    }

    /// The next `count` bytes, in place; `nil` for a negative count or past the end.
    mutating func bytes(_ count: Int) -> UnsafeRawBufferPointer? {
        guard count >= 0, count <= buffer.count - offset else { return nil }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + count)])
    }

    mutating func bigEndian<T: FixedWidthInteger>(_: T.Type) -> T? {
        guard let bytes = bytes(MemoryLayout<T>.size) else { return nil }
        return bytes.reduce(T(0)) { $0 << 8 | T($1) }
    }

    /// A `length (u32) ‖ UTF-8` string; `nil` when it is short or not UTF-8.
    mutating func lengthPrefixedString() -> String? {
        guard let length = bigEndian(UInt32.self), let bytes = bytes(Int(length)) else { return nil }
        return Self.string(bytes)
    }

    /// The string of `bytes`, or `nil` when they are not UTF-8. ASCII (nearly every attribute) takes a
    /// byte scan and a direct copy; anything else goes through the standard library's validation,
    /// which costs several times as much (callgrind, keychain-bench read.enumerate).
    static func string(_ bytes: UnsafeRawBufferPointer) -> String? {
        for byte in bytes where byte >= 0x80 { return String(validating: bytes, as: UTF8.self) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
