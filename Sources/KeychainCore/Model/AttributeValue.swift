/// One attribute value, keeping the type it was stored with.
///
/// Apple keeps each "blob" attribute's CF type: an account stored as `Data` comes back as `Data`.
/// The engine holds data as bytes and dates as ``AbsoluteTime`` (no Foundation in `KeychainCore`, issue 23);
/// front ends convert to `Data` and `Date` at their edge.
/// For matching, `string` and `data` compare by their bytes (UTF-8 for strings).
package enum AttributeValue: Sendable, Hashable {
    case string(String)
    case data([UInt8])
    case integer(Int64)
    case bool(Bool)
    case date(AbsoluteTime)

    /// The bytes used for digests and matching: UTF-8 for strings, raw for data,
    /// 8 big-endian bytes for integers and booleans, and the bit pattern of the
    /// reference-date interval for dates.
    package var matchBytes: [UInt8] {
        switch self {
        case .string(let s): Array(s.utf8)
        case .data(let d): d
        case .integer(let i): withUnsafeBytes(of: i.bigEndian, Array.init)
        case .bool(let b): withUnsafeBytes(of: Int64(b ? 1 : 0).bigEndian, Array.init)
        case .date(let d): withUnsafeBytes(of: d.secondsSinceReferenceDate.bitPattern.bigEndian, Array.init)
        }
    }

    /// Appends ``matchBytes`` to `bytes` without making an intermediate array.
    package func appendMatchBytes(to bytes: inout [UInt8]) {
        switch self {
        case .string(let s): bytes.append(contentsOf: s.utf8)
        case .data(let d): bytes.append(contentsOf: d)
        case .integer(let i): withUnsafeBytes(of: i.bigEndian) { bytes.append(contentsOf: $0) }
        case .bool(let b): withUnsafeBytes(of: Int64(b ? 1 : 0).bigEndian) { bytes.append(contentsOf: $0) }
        case .date(let d):
            withUnsafeBytes(of: d.secondsSinceReferenceDate.bitPattern.bigEndian) { bytes.append(contentsOf: $0) }
        }
    }

    /// Writes ``matchBytes`` at the start of `buffer`, which has room for ``matchByteCount`` bytes: the bytes
    /// ``appendMatchBytes(to:)`` appends, without an array.
    package func writeMatchBytes(to buffer: UnsafeMutableRawBufferPointer) {
        switch self {
        case .string(let s):
            var s = s
            s.withUTF8 { buffer.copyMemory(from: UnsafeRawBufferPointer($0)) }
        case .data(let d): d.withUnsafeBytes { buffer.copyMemory(from: $0) }
        case .integer(let i): buffer.storeBytes(of: i.bigEndian, as: Int64.self)
        case .bool(let b): buffer.storeBytes(of: Int64(b ? 1 : 0).bigEndian, as: Int64.self)
        case .date(let d): buffer.storeBytes(of: d.secondsSinceReferenceDate.bitPattern.bigEndian, as: UInt64.self)
        }
    }

    /// The length of ``matchBytes``.
    package var matchByteCount: Int {
        switch self {
        case .string(let s): s.utf8.count
        case .data(let d): d.count
        case .integer, .bool, .date: 8
        }
    }

    /// Whether `self` matches `other` as a search filter.
    package func matches(_ other: AttributeValue) -> Bool {
        switch (self, other) {
        case (.date(let a), .date(let b)): a == b
        case (.string, .string), (.string, .data), (.data, .string), (.data, .data),
            (.integer, .integer), (.bool, .bool), (.integer, .bool), (.bool, .integer):
            matchBytes == other.matchBytes
        default: false
        }
    }
}
