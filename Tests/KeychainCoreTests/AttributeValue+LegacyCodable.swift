import Foundation

@testable import KeychainCore

/// The legacy attribute encoding: each value a one-key dictionary (`s` string, `d` data, `i` integer,
/// `b` boolean, `t` date) inside the binary property list that `PropertyListEncoder` wrote for item
/// attributes before the item record format (`docs/RECORD-FORMAT.md`). The tests write legacy records with it,
/// as those builds did, and read them back with Foundation's decoder as the reference; the engine reads them
/// with libplist (``ItemCodec/decodeLegacyAttributes(_:)``). Data and dates go through Foundation's `Data` and
/// `Date` so the property list keeps its `<data>` and `<date>` types.
extension AttributeValue: Codable {
    // Compact keyed encoding inside the sealed attribute plist.
    private enum CodingKeys: String, CodingKey { case s, d, i, b, t }

    /// - Throws: `DecodingError.dataCorrupted` when the dictionary has none of the five keys; the decoder's
    ///   errors for a value of the wrong type.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let v = try c.decodeIfPresent(String.self, forKey: .s) {
            self = .string(v)
        } else if let v = try c.decodeIfPresent(Data.self, forKey: .d) {
            self = .data(Array(v))
        } else if let v = try c.decodeIfPresent(Int64.self, forKey: .i) {
            self = .integer(v)
        } else if let v = try c.decodeIfPresent(Bool.self, forKey: .b) {
            self = .bool(v)
        } else if let v = try c.decodeIfPresent(Date.self, forKey: .t) {
            self = .date(AbsoluteTime(secondsSinceReferenceDate: v.timeIntervalSinceReferenceDate))
        } else {
            throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath, debugDescription: "empty value"))
        }
    }

    /// - Throws: the encoder's errors.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .string(let v): try c.encode(v, forKey: .s)
        case .data(let v): try c.encode(Data(v), forKey: .d)
        case .integer(let v): try c.encode(v, forKey: .i)
        case .bool(let v): try c.encode(v, forKey: .b)
        case .date(let v): try c.encode(Date(timeIntervalSinceReferenceDate: v.secondsSinceReferenceDate), forKey: .t)
        }
    }
}
