/// Big-endian writing of the sync formats (docs/SYNC.md).
package struct SyncByteWriter {
    package private(set) var bytes: [UInt8] = []

    package init() {}

    package mutating func append(_ other: some Sequence<UInt8>) { bytes.append(contentsOf: other) }

    package mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// `length (u32) ‖ bytes`.
    package mutating func appendLengthPrefixed(_ other: [UInt8]) {
        append(UInt32(other.count))
        append(other)
    }
}

/// Bounds-checked big-endian reading of the sync formats: every read throws ``SyncFormatError`` rather than
/// pass the end, so lengths from the bytes are checked before use.
package struct SyncByteReader {
    let bytes: [UInt8]
    let what: String
    package private(set) var offset = 0

    package init(_ bytes: [UInt8], what: String) {
        self.bytes = bytes
        self.what = what
    }

    package var remaining: Int { bytes.count - offset }

    package mutating func take(_ count: Int) throws(SyncFormatError) -> [UInt8] {
        guard count >= 0, count <= remaining else { throw .truncated(what) }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    package mutating func integer<T: FixedWidthInteger>(_: T.Type) throws(SyncFormatError) -> T {
        try take(MemoryLayout<T>.size).reduce(T(0)) { $0 << 8 | T($1) }
    }

    /// A `length (u32) ‖ bytes` field of at most `limit` bytes.
    package mutating func lengthPrefixed(limit: Int) throws(SyncFormatError) -> [UInt8] {
        let length = try integer(UInt32.self)
        guard Int(length) <= limit else { throw .malformed(what, "a field of \(length) bytes (at most \(limit))") }
        return try take(Int(length))
    }

    package func expectEnd() throws(SyncFormatError) {
        guard remaining == 0 else { throw .malformed(what, "\(remaining) bytes after the end") }
    }
}
