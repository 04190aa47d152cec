#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

/// Writes the sealed attribute plist directly: the binary property list `PropertyListEncoder` makes for
/// `[String: AttributeValue]`, a dictionary from attribute name to a one-entry dictionary
/// `{s|d|i|b|t: value}` (``AttributeValue``'s keyed encoding). The format is unchanged: the bytes
/// decode with `PropertyListDecoder` to the same dictionary (tested for every value type against
/// Foundation in `AttributePlistWriterTests`), and ``AttributePlistReader`` reads them on its fast path.
///
/// Why: `PropertyListEncoder` spent ~155k instructions per item on Codable machinery (a container
/// and a reference object per value), half of a bulk add (keychain-bench, issue 7).
///
/// Layout (Apple's CFBinaryPList.c): "bplist00", objects, offset table, 32-byte trailer (6 unused bytes,
/// offset int size, object ref size, object count, top object, offset table offset; big-endian).
/// Objects: 0 is the top dictionary; each attribute adds its name, its wrapper dictionary and its value;
/// the one-letter wrapper keys are written once each and shared, as `PropertyListEncoder` does.
/// Integers follow CFBinaryPList: non-negative values in 1, 2 or 4 unsigned bytes when they fit,
/// anything else in 8 two's-complement bytes. Strings are ASCII when every byte is, else UTF-16BE.
enum AttributePlistWriter {
    static func encode(_ attributes: [String: AttributeValue]) -> [UInt8] {
        // Sorted for a deterministic output (PropertyListEncoder's order is the dictionary's).
        let entries = attributes.sorted { $0.key < $1.key }
        let count = entries.count

        // Object numbering: top = 0; attribute i: name 1 + 3i, wrapper 2 + 3i, value 3 + 3i;
        // then the shared wrapper keys, in order of first use.
        var letters: [UInt8] = []
        var letterRefs: [Int] = []
        letterRefs.reserveCapacity(count)
        for (_, value) in entries {
            let letter = Self.letter(value)
            if let index = letters.firstIndex(of: letter) {
                letterRefs.append(1 + 3 * count + index)
            } else {
                letterRefs.append(1 + 3 * count + letters.count)
                letters.append(letter)
            }
        }
        let objectCount = 1 + 3 * count + letters.count
        let refSize = objectCount <= 0xFF ? 1 : objectCount <= 0xFFFF ? 2 : 4

        var out: [UInt8] = []
        out.reserveCapacity(64 + count * 48)
        out.append(contentsOf: "bplist00".utf8)
        var offsets = [Int](repeating: 0, count: objectCount)

        // Top dictionary: keys are the names, values the wrappers.
        offsets[0] = out.count
        appendMarker(0xD0, count, to: &out)
        for i in 0..<count { appendRef(1 + 3 * i, refSize, to: &out) }
        for i in 0..<count { appendRef(2 + 3 * i, refSize, to: &out) }

        for (i, (name, value)) in entries.enumerated() {
            offsets[1 + 3 * i] = out.count
            appendString(name, to: &out)
            offsets[2 + 3 * i] = out.count
            out.append(0xD1)
            appendRef(letterRefs[i], refSize, to: &out)
            appendRef(3 + 3 * i, refSize, to: &out)
            offsets[3 + 3 * i] = out.count
            appendValue(value, to: &out)
        }
        for (index, letter) in letters.enumerated() {
            offsets[1 + 3 * count + index] = out.count
            out.append(0x51)
            out.append(letter)
        }

        let tableOffset = out.count
        let offsetSize = tableOffset <= 0xFF ? 1 : tableOffset <= 0xFFFF ? 2 : tableOffset <= 0xFFFF_FFFF ? 4 : 8
        for offset in offsets { appendBigEndian(UInt64(offset), size: offsetSize, to: &out) }
        out.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)])
        appendBigEndian(UInt64(objectCount), size: 8, to: &out)
        appendBigEndian(0, size: 8, to: &out)
        appendBigEndian(UInt64(tableOffset), size: 8, to: &out)
        return out
    }

    /// The key ``AttributeValue`` encodes each case under.
    static func letter(_ value: AttributeValue) -> UInt8 {
        switch value {
        case .string: UInt8(ascii: "s")
        case .data: UInt8(ascii: "d")
        case .integer: UInt8(ascii: "i")
        case .bool: UInt8(ascii: "b")
        case .date: UInt8(ascii: "t")
        }
    }

    static func appendValue(_ value: AttributeValue, to out: inout [UInt8]) {
        switch value {
        case .string(let string):
            appendString(string, to: &out)
        case .data(let data):
            appendMarker(0x40, data.count, to: &out)
            out.append(contentsOf: data)
        case .integer(let integer):
            appendInteger(integer, to: &out)
        case .bool(let flag):
            out.append(flag ? 0x09 : 0x08)
        case .date(let date):
            out.append(0x33)
            appendBigEndian(date.timeIntervalSinceReferenceDate.bitPattern, size: 8, to: &out)
        }
    }

    static func appendString(_ string: String, to out: inout [UInt8]) {
        let utf8 = string.utf8
        if utf8.allSatisfy({ $0 < 0x80 }) {
            appendMarker(0x50, utf8.count, to: &out)
            out.append(contentsOf: utf8)
        } else {
            let units = string.utf16
            appendMarker(0x60, units.count, to: &out)
            for unit in units {
                out.append(UInt8(unit >> 8))
                out.append(UInt8(unit & 0xFF))
            }
        }
    }

    /// An int object: 1, 2 or 4 unsigned bytes for values that fit, else 8 two's-complement bytes.
    static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        if value >= 0 && value <= 0xFF {
            out.append(0x10)
            appendBigEndian(UInt64(value), size: 1, to: &out)
        } else if value >= 0 && value <= 0xFFFF {
            out.append(0x11)
            appendBigEndian(UInt64(value), size: 2, to: &out)
        } else if value >= 0 && value <= 0xFFFF_FFFF {
            out.append(0x12)
            appendBigEndian(UInt64(value), size: 4, to: &out)
        } else {
            out.append(0x13)
            appendBigEndian(UInt64(bitPattern: value), size: 8, to: &out)
        }
    }

    /// A marker with its count in the low nibble, or 0xF and an int object for counts from 15.
    static func appendMarker(_ marker: UInt8, _ count: Int, to out: inout [UInt8]) {
        if count < 15 {
            out.append(marker | UInt8(count))
        } else {
            out.append(marker | 0x0F)
            appendInteger(Int64(count), to: &out)
        }
    }

    static func appendRef(_ ref: Int, _ size: Int, to out: inout [UInt8]) {
        appendBigEndian(UInt64(ref), size: size, to: &out)
    }

    static func appendBigEndian(_ value: UInt64, size: Int, to out: inout [UInt8]) {
        for shift in stride(from: (size - 1) * 8, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}
