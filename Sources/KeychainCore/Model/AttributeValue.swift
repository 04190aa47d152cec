#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// One attribute value, keeping the type it was stored with.
///
/// Apple keeps each "blob" attribute's CF type: an account stored as `Data` comes back as `Data`.
/// For matching, `string` and `data` compare by their bytes (UTF-8 for strings).
package enum AttributeValue: Sendable, Hashable, Codable {
    case string(String)
    case data(Data)
    case integer(Int64)
    case bool(Bool)
    case date(Date)

    /// The bytes used for digests and matching: UTF-8 for strings, raw for data,
    /// 8 big-endian bytes for integers and booleans, and the bit pattern of the
    /// reference-date interval for dates.
    package var matchBytes: [UInt8] {
        switch self {
        case .string(let s): Array(s.utf8)
        case .data(let d): Array(d)
        case .integer(let i): withUnsafeBytes(of: i.bigEndian, Array.init)
        case .bool(let b): withUnsafeBytes(of: Int64(b ? 1 : 0).bigEndian, Array.init)
        case .date(let d): withUnsafeBytes(of: d.timeIntervalSinceReferenceDate.bitPattern.bigEndian, Array.init)
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
            withUnsafeBytes(of: d.timeIntervalSinceReferenceDate.bitPattern.bigEndian) { bytes.append(contentsOf: $0) }
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

    // Compact keyed encoding inside the sealed attribute plist.
    private enum CodingKeys: String, CodingKey { case s, d, i, b, t }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let v = try c.decodeIfPresent(String.self, forKey: .s) {
            self = .string(v)
        } else if let v = try c.decodeIfPresent(Data.self, forKey: .d) {
            self = .data(v)
        } else if let v = try c.decodeIfPresent(Int64.self, forKey: .i) {
            self = .integer(v)
        } else if let v = try c.decodeIfPresent(Bool.self, forKey: .b) {
            self = .bool(v)
        } else if let v = try c.decodeIfPresent(Date.self, forKey: .t) {
            self = .date(v)
        } else {
            throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath, debugDescription: "empty value"))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .string(let v): try c.encode(v, forKey: .s)
        case .data(let v): try c.encode(v, forKey: .d)
        case .integer(let v): try c.encode(v, forKey: .i)
        case .bool(let v): try c.encode(v, forKey: .b)
        case .date(let v): try c.encode(v, forKey: .t)
        }
    }
}
