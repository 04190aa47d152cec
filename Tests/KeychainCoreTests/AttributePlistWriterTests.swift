import Foundation
import Testing
@testable import KeychainCore

/// The direct attribute writer must produce a plist that Foundation reads exactly as the
/// `PropertyListEncoder` output it replaces (issue 7: the on-disk format does not change).
@Suite("Attribute plist writer")
struct AttributePlistWriterTests {
    static let samples: [[String: AttributeValue]] = AttributePlistReaderTests.samples + [
        // Every integer width boundary CFBinaryPList distinguishes.
        Dictionary(
            uniqueKeysWithValues: [
                0, 1, 0xFF, 0x100, 0xFFFF, 0x1_0000, 0xFFFF_FFFF, 0x1_0000_0000, -1, -0x80, -0x8000, Int64.min, Int64.max,
            ].enumerated().map { ("i\($0.offset)", AttributeValue.integer($0.element)) }),
        // Counts at the 15-entry marker boundary, and enough objects for 2-byte refs and offsets.
        Dictionary(uniqueKeysWithValues: (0..<14).map { ("k\($0)", AttributeValue.bool($0 % 2 == 0)) }),
        Dictionary(uniqueKeysWithValues: (0..<15).map { ("k\($0)", AttributeValue.string(String(repeating: "a", count: $0))) }),
        Dictionary(uniqueKeysWithValues: (0..<120).map { ("attribute-\($0)", AttributeValue.data(Data(repeating: UInt8($0), count: $0 * 3))) }),
        // Non-ASCII names and values (UTF-16, surrogate pairs), empty strings and data, all five kinds together.
        [
            "ünï": .string("🙂 \u{1F600}x"), "": .string(""), "e": .data(Data()), "d": .date(Date(timeIntervalSinceReferenceDate: -1e9)),
            "b": .bool(false), "n": .integer(42), "nul": .string("a\u{0}b"),
        ],
        ["long": .data(Data(repeating: 7, count: 70_000)), "longer": .string(String(repeating: "é", count: 40_000))],
    ]

    @Test("PropertyListDecoder reads the writer's bytes as the value written", arguments: samples.indices)
    func foundationReadsWhatWasWritten(_ index: Int) throws {
        let sample = Self.samples[index]
        let written = AttributePlistWriter.encode(sample)
        let decoded = try PropertyListDecoder().decode([String: AttributeValue].self, from: Data(written))
        #expect(decoded == sample)
        // The same as what PropertyListEncoder's output decodes to.
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        let reference = try PropertyListDecoder().decode(
            [String: AttributeValue].self, from: try encoder.encode(sample))
        #expect(decoded == reference)
        // And the fast reader takes it on its fast path, to the same value.
        #expect(AttributePlistReader.decode(written) == sample)
    }

    @Test("Foundation's generic plist parser sees the same structure")
    func genericParserAgrees() throws {
        for sample in Self.samples {
            let written = try PropertyListSerialization.propertyList(
                from: Data(AttributePlistWriter.encode(sample)), options: [], format: nil)
            let encoder = PropertyListEncoder()
            encoder.outputFormat = .binary
            let reference = try PropertyListSerialization.propertyList(from: try encoder.encode(sample), options: [], format: nil)
            #expect((written as? NSDictionary) == (reference as? NSDictionary))
        }
    }

    @Test("output is deterministic")
    func deterministic() {
        for sample in Self.samples {
            #expect(AttributePlistWriter.encode(sample) == AttributePlistWriter.encode(sample))
        }
    }
}
