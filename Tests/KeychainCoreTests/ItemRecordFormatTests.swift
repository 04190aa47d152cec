import Foundation
import Testing

@testable import KeychainCore

/// The item record format (`docs/RECORD-FORMAT.md`, tracker issue 15): exact bytes, round trips,
/// and refusal of every malformed input.
@Suite("Item record format")
struct ItemRecordFormatTests {
    static let sample: [String: AttributeValue] = [
        "svce": .string("mail"), "acct": .data([0xFF, 0]), "port": .integer(-2), "sync": .bool(true),
        "cdat": .date(AbsoluteTime(secondsSinceReferenceDate: 1.5)), "tomb": .string("x"),
    ]

    /// The attributes ``ItemRecordFormat/forEachEntry(in:_:)`` visits, as a dictionary (`nil` when it
    /// refuses the record, or visits a name twice or under the wrong number).
    static func visited(_ bytes: [UInt8]) -> [String: AttributeValue]? {
        var attributes: [String: AttributeValue] = [:]
        var consistent = true
        let ok = ItemRecordFormat.forEachEntry(in: bytes) { number, name, value in
            if number != 0 && ItemRecordFormat.attributeNames[Int(number)].rawValue != name { consistent = false }
            let converted: AttributeValue =
                switch value {
                case .string(let s): .string(s)
                case .data(let d): .data(Array(d))
                case .integer(let i): .integer(i)
                case .bool(let b): .bool(b)
                case .date(let t): .date(AbsoluteTime(secondsSinceReferenceDate: t))
                }
            if attributes.updateValue(converted, forKey: name) != nil { consistent = false }
        }
        return ok && consistent ? attributes : nil
    }

    @Test("a record's bytes are exactly as the format document gives them")
    func exactBytes() throws {
        let bytes = try #require(ItemRecordFormat.encode(Self.sample))
        let expected: [UInt8] =
            [1, 6]  // version 1, six entries
            + [2, 4, 1]  // sync (2): bool true
            + [4, 5, 0x3F, 0xF8, 0, 0, 0, 0, 0, 0]  // cdat (4): date 1.5 (binary64 0x3FF8000000000000)
            + [13, 2, 0, 0, 0, 2, 0xFF, 0]  // acct (13): data FF 00
            + [14, 1, 0, 0, 0, 4] + Array("mail".utf8)  // svce (14): string "mail"
            + [20, 3, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE]  // port (20): integer -2
            + [0, 4] + Array("tomb".utf8) + [1, 0, 0, 0, 1] + Array("x".utf8)  // named "tomb": string "x"
        #expect(bytes == expected)
        #expect(ItemRecordFormat.decode(bytes) == Self.sample)
        #expect(Self.visited(bytes) == Self.sample)
    }

    @Test("every value type and every numbered attribute round-trips; an empty record is two bytes")
    func roundTrip() throws {
        var attributes: [String: AttributeValue] = [:]
        for (index, name) in ItemRecordFormat.attributeNames.enumerated().dropFirst() {
            switch index % 5 {
            case 0: attributes[name] = .string("välue \(index) ✓")
            case 1: attributes[name] = .data(Array((0..<UInt8(index)).map { $0 &* 37 }))
            case 2: attributes[name] = .integer(Int64.min + Int64(index))
            case 3: attributes[name] = .bool(index % 2 == 0)
            default: attributes[name] = .date(AbsoluteTime(secondsSinceReferenceDate: -Double(index) * 1e9 + 0.125))
            }
        }
        attributes["labl"] = .string("")
        attributes["gena"] = .data([])
        let bytes = try #require(ItemRecordFormat.encode(attributes))
        #expect(ItemRecordFormat.decode(bytes) == attributes)
        #expect(ItemCodec.decodeAttributes(bytes) == attributes)
        #expect(Self.visited(bytes) == attributes)
        #expect(Self.visited([1, 0]) == [:])
        #expect(ItemRecordFormat.encode([:]) == [1, 0])
        #expect(ItemRecordFormat.decode([1, 0]) == [:])
    }

    @Test("the encoding is canonical: the same attributes give the same bytes in any insertion order")
    func canonical() throws {
        var reversed: [String: AttributeValue] = [:]
        for (name, value) in Self.sample.sorted(by: { $0.key > $1.key }) { reversed[name] = value }
        reversed["zzzz"] = .integer(1)
        var forward = Self.sample
        forward["zzzz"] = .integer(1)
        #expect(ItemRecordFormat.encode(reversed) == ItemRecordFormat.encode(forward))
    }

    @Test("every truncation, and any trailing byte, is refused")
    func truncation() throws {
        let bytes = try #require(ItemRecordFormat.encode(Self.sample))
        for length in 0..<bytes.count {
            #expect(ItemRecordFormat.decode(Array(bytes.prefix(length))) == nil, "length \(length)")
            #expect(Self.visited(Array(bytes.prefix(length))) == nil, "length \(length)")
        }
        #expect(ItemRecordFormat.decode(bytes + [0]) == nil)
        #expect(Self.visited(bytes + [0]) == nil)
    }

    @Test(
        "malformed records are refused",
        arguments: [
            ("version 0", [0, 0]),
            ("version 2", [2, 0]),
            ("unknown type 6", [1, 1, 14, 6]),
            ("unknown type 0", [1, 1, 14, 0]),
            ("attribute number 23", [1, 1, 23, 4, 1]),
            ("bool 2", [1, 1, 2, 4, 2]),
            ("repeated attribute", [1, 2, 2, 4, 1, 2, 4, 0]),
            ("invalid UTF-8", [1, 1, 14, 1, 0, 0, 0, 2, 0xC3, 0x28]),
            ("length past the end", [1, 1, 14, 2, 0xFF, 0xFF, 0xFF, 0xFF, 0]),
            ("named entry with a numbered name", [1, 1, 0, 4, 0x61, 0x63, 0x63, 0x74, 4, 1]),
            ("named entry with an empty name", [1, 1, 0, 0, 4, 1]),
            ("NaN date", [1, 1, 4, 5, 0x7F, 0xF8, 0, 0, 0, 0, 0, 0]),
            ("count larger than the entries", [1, 2, 2, 4, 1]),
            ("repeated named attribute", [1, 2, 0, 1, 0x7A, 4, 1, 0, 1, 0x7A, 4, 0]),
        ] as [(String, [UInt8])])
    func malformed(_ name: String, _ bytes: [UInt8]) {
        #expect(ItemRecordFormat.decode(bytes) == nil, "\(name)")
        #expect(!ItemRecordFormat.forEachEntry(in: bytes) { _, _, _ in }, "\(name)")
        #expect(ItemCodec.decodeAttributes(bytes) == nil, "\(name)")
    }

    @Test("the encoder refuses what the decoder would: a non-finite date, an empty name, a name over 255 bytes")
    func encoderRefuses() {
        #expect(ItemRecordFormat.encode(["cdat": .date(AbsoluteTime(secondsSinceReferenceDate: .nan))]) == nil)
        #expect(ItemRecordFormat.encode(["cdat": .date(AbsoluteTime(secondsSinceReferenceDate: .infinity))]) == nil)
        #expect(ItemRecordFormat.encode([String(repeating: "n", count: 256): .bool(true)]) == nil)
        #expect(ItemRecordFormat.encode(["": .bool(true)]) == nil)
        #expect(ItemRecordFormat.encode([String(repeating: "n", count: 255): .bool(true)]) != nil)
    }

    @Test("what a record search leaves in the attributes: pdmn, accc and tapp, present or absent")
    func releaseEntries() throws {
        var attributes = Self.sample
        #expect(ItemRecordFormat.releaseEntries(in: try #require(ItemRecordFormat.encode(attributes))) == [:])
        attributes["pdmn"] = .string("ak")
        attributes["accc"] = .data([1, 2])
        attributes["tapp"] = .data([3])
        let bytes = try #require(ItemRecordFormat.encode(attributes))
        #expect(
            ItemRecordFormat.releaseEntries(in: bytes)
                == ["pdmn": .string("ak"), "accc": .data([1, 2]), "tapp": .data([3])])
        #expect(ItemRecordFormat.releaseEntries(in: Array(bytes.dropLast())) == nil)
    }

    @Test("one attribute is read in place: present, absent, or malformed")
    func singleAttribute() throws {
        var attributes = Self.sample
        attributes["accc"] = .data([1, 0, 0, 0, 0, 0, 0, 0, 1])
        let bytes = try #require(ItemRecordFormat.encode(attributes))
        #expect(ItemCodec.accessControl(bytes) == .present(.data([1, 0, 0, 0, 0, 0, 0, 0, 1])))
        #expect(ItemRecordFormat.value(number: 14, in: bytes) == .present(.string("mail")))
        let without = try #require(ItemRecordFormat.encode(Self.sample))
        #expect(ItemCodec.accessControl(without) == .absent)
        for length in 0..<bytes.count {
            #expect(ItemCodec.accessControl(Array(bytes.prefix(length))) == .malformed, "length \(length)")
        }
        #expect(ItemCodec.accessControl(bytes + [0]) == .malformed)
        #expect(ItemRecordFormat.value(number: 2, in: [1, 2, 2, 4, 1, 2, 4, 0]) == .malformed)  // repeated
        #expect(ItemRecordFormat.value(number: 2, in: [1, 1, 23, 4, 1]) == .malformed)  // unknown number
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        #expect(
            ItemCodec.accessControl(Array(try encoder.encode(attributes))) == .present(try #require(attributes["accc"]))
        )
    }

    @Test("legacy binary property lists (builds before the record format, version 1 backups) still decode")
    func legacyPropertyList() throws {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        let plist = Array(try encoder.encode(Self.sample))
        #expect(ItemCodec.isLegacyAttributes(plist))
        #expect(!ItemRecordFormat.isRecord(plist))
        #expect(ItemCodec.decodeAttributes(plist) == Self.sample)
        #expect(ItemCodec.decodeAttributes(Array(plist.dropLast(3))) == nil)
        #expect(ItemCodec.decodeLegacyAttributes(try #require(ItemRecordFormat.encode(Self.sample))) == nil)
    }
}
