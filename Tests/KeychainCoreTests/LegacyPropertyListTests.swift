import Foundation
import Testing

@testable import KeychainCore

/// Legacy item records (binary property lists written by Foundation's `PropertyListEncoder`) read with
/// libplist (tracker issue 23): every value as Foundation's `PropertyListDecoder` read it, exactly, and
/// every malformed list refused.
@Suite("Legacy attribute property lists")
struct LegacyPropertyListTests {
    /// What builds before the record format sealed: `attributes` through `AttributeValue`'s `Encodable`.
    static func legacy(_ attributes: [String: AttributeValue]) throws -> [UInt8] {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        return Array(try encoder.encode(attributes))
    }

    /// A binary list of any shape, as a forged or damaged legacy record would be.
    static func binary(_ value: Any) throws -> [UInt8] {
        Array(try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0))
    }

    /// What Foundation's decoder, the reference, reads from `bytes` (`nil` when it refuses them).
    static func reference(_ bytes: [UInt8]) -> [String: AttributeValue]? {
        try? PropertyListDecoder().decode([String: AttributeValue].self, from: Data(bytes))
    }

    static let values: [String: AttributeValue] = [
        "svce": .string("mail"), "icmt": .string("ünïcödé ✓ 𝄞"), "empty": .string(""),
        "acct": .data([0xFF, 0, 1]), "gena": .data([]), "big": .data([UInt8](repeating: 7, count: 300)),
        "port": .integer(-2), "min": .integer(.min), "max": .integer(.max), "byte": .integer(255),
        "crtr": .integer(0x6170_706C), "sync": .bool(true), "nega": .bool(false),
    ]

    @Test("every value type reads back as Foundation's decoder read it")
    func everyType() throws {
        let bytes = try Self.legacy(Self.values)
        #expect(Self.reference(bytes) == Self.values)
        #expect(ItemCodec.decodeLegacyAttributes(bytes) == Self.values)
        #expect(ItemCodec.decodeLegacyAttributes(try Self.legacy([:])) == [:])
    }

    @Test(
        "a date is the exact double the list holds, seconds since 2001-01-01 (not 1970), to the last bit",
        arguments: [
            0, 1.5, -1.5, -0.25, 817_776_000, 817_776_000.123_456_789, 786_000_000.000_000_1, -978_307_200,
            -3_000_000_000.75, 4_000_000_000.5,
            Date(timeIntervalSince1970: 1_796_083_200).timeIntervalSinceReferenceDate,
        ])
    func dates(seconds: Double) throws {
        let bytes = try Self.legacy(["cdat": .date(AbsoluteTime(secondsSinceReferenceDate: seconds))])
        let decoded = try #require(ItemCodec.decodeLegacyAttributes(bytes))
        guard case .date(let date)? = decoded["cdat"] else {
            Issue.record("no date: \(decoded)")
            return
        }
        #expect(date.secondsSinceReferenceDate.bitPattern == seconds.bitPattern)
        #expect(decoded == Self.reference(bytes))
    }

    @Test("the fixture's creation date (2026-11-30 UTC, Unix 1796083200) reads as that instant")
    func fixtureDate() throws {
        let bytes = try Self.legacy(["cdat": .date(LegacyKeychainFixture.created)])
        #expect(
            ItemCodec.decodeLegacyAttributes(bytes) == ["cdat": .date(AbsoluteTime(secondsSince1970: 1_796_083_200))])
    }

    @Test("the first of s, d, i, b, t present decides; other keys are ignored; a value with none is refused")
    func valueShapes() throws {
        let cases: [(Any, AttributeValue?)] = [
            (["s": "x", "d": Data([1])], .string("x")),
            (["d": Data([1]), "i": 3], .data([1])),
            (["i": 3, "b": true, "zz": "ignored"], .integer(3)),
            (["b": false, "t": Date(timeIntervalSinceReferenceDate: 2)], .bool(false)),
            (
                ["t": Date(timeIntervalSinceReferenceDate: 2), "x": 1],
                .date(AbsoluteTime(secondsSinceReferenceDate: 2))
            ),
            ([String: Any](), nil), (["x": "y"], nil),
            (["s": 1], nil), (["s": Data([1])], nil), (["d": "text"], nil), (["i": "3"], nil), (["i": 1.5], nil),
            (["b": 1], nil), (["t": 5.0], nil), (["t": "2001-01-01"], nil), (["s": 1, "d": Data([1])], nil),
        ]
        for (value, expected) in cases {
            let bytes = try Self.binary(["attr": value])
            let ours = ItemCodec.decodeLegacyAttributes(bytes)
            #expect(ours == expected.map { ["attr": $0] }, "\(value)")
            #expect(ours == Self.reference(bytes), "\(value)")
        }
    }

    @Test("a list that is not a dictionary of dictionaries is refused, as Foundation refused it")
    func wrongShapes() throws {
        for value: Any in [
            ["s", "x"], "string", ["attr": "not a dictionary"], ["attr": ["s"]], ["a": ["s": "x"], "b": 5],
        ] {
            let bytes = try Self.binary(value)
            #expect(ItemCodec.decodeLegacyAttributes(bytes) == nil, "\(value)")
            #expect(Self.reference(bytes) == nil, "\(value)")
        }
    }

    @Test("every truncation and a damaged trailer are refused; what is not bplist00 is not read as one")
    func truncated() throws {
        let bytes = try Self.legacy(Self.values)
        for length in 0..<bytes.count {
            #expect(ItemCodec.decodeLegacyAttributes(Array(bytes.prefix(length))) == nil, "length \(length)")
        }
        var damaged = bytes
        damaged[damaged.count - 9] ^= 0xFF  // the offset table's position in the trailer
        #expect(ItemCodec.decodeLegacyAttributes(damaged) == nil)
        let xml = Array(
            try PropertyListSerialization.data(fromPropertyList: ["a": ["s": "x"]], format: .xml, options: 0))
        #expect(ItemCodec.decodeLegacyAttributes(xml) == nil)
        #expect(ItemCodec.decodeAttributes(Array(bytes.dropLast(3))) == nil)
    }
}
