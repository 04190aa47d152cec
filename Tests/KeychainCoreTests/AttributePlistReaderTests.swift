import Foundation
import Testing
@testable import KeychainCore

/// The fast attribute reader must decode exactly what PropertyListDecoder decodes (issue 7).
@Suite("Attribute plist reader")
struct AttributePlistReaderTests {
    static let samples: [[String: AttributeValue]] = [
        [:],
        ["acct": .string("")],
        ["svce": .string("com.example.app"), "acct": .string("user@example.com"), "agrp": .string("unsigned")],
        ["acct": .string("Zoë 🙂 ünïcödé"), "labl": .string("\u{10FFFF}ab")],
        ["gena": .data(Data()), "genb": .data(Data((0..<300).map { UInt8($0 & 0xff) }))],
        [
            "type": .integer(0), "crtr": .integer(255), "port": .integer(65_535), "x": .integer(1 << 40),
            "n": .integer(-1), "min": .integer(.min), "max": .integer(.max),
        ],
        ["sync": .bool(true), "invi": .bool(false), "nega": .bool(true)],
        ["cdat": .date(Date(timeIntervalSinceReferenceDate: 786_000_000.125)), "mdat": .date(Date(timeIntervalSince1970: 0))],
        ["long": .string(String(repeating: "x", count: 70_000))],
    ]

    @Test("decodes every value type exactly as PropertyListDecoder", arguments: samples.indices)
    func matchesPropertyListDecoder(_ index: Int) throws {
        let encoded = ItemCodec.encodeAttributes(Self.samples[index])
        let slow = try PropertyListDecoder().decode([String: AttributeValue].self, from: Data(encoded))
        let fast = try #require(AttributePlistReader.decode(encoded))
        #expect(fast == slow)
        #expect(fast == Self.samples[index])
    }

    @Test("refuses truncated or altered input instead of guessing")
    func refusesDamagedInput() {
        let encoded = ItemCodec.encodeAttributes(Self.samples[2])
        for cut in [0, 7, 8, 20, encoded.count - 33, encoded.count - 1] {
            #expect(AttributePlistReader.decode(Array(encoded.prefix(cut))) == nil)
        }
        for position in encoded.indices {
            var damaged = encoded
            damaged[position] ^= 0xFF
            let fast = AttributePlistReader.decode(damaged)
            if let fast {
                // Whatever the reader accepts, PropertyListDecoder must read the same way.
                #expect(fast == (try? PropertyListDecoder().decode([String: AttributeValue].self, from: Data(damaged))))
            }
        }
    }
}
