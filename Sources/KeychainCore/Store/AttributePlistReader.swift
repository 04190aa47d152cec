#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

/// A direct reader for the one binary property list shape ``ItemCodec/encodeAttributes(_:)`` writes:
/// a dictionary from attribute name to a one-entry dictionary `{s|d|i|b|t: value}` (``AttributeValue``'s
/// keyed encoding). It reads the same bytes `PropertyListDecoder` reads; the format is unchanged.
///
/// Why: `PropertyListDecoder` spends ~360k instructions per item on Codable machinery (generic
/// metadata lookups per nested container), which made attribute reads ~20x and enumerations ~170x
/// the floor (keychain-bench, issue 7). This reader is strict: anything outside that shape (another
/// marker, a 16-byte integer, a duplicate key, an out-of-range offset) returns `nil`, and the caller
/// falls back to `PropertyListDecoder`, so it can only be faster, never decode differently.
///
/// Binary plist layout (Apple's CFBinaryPList.c): "bplist00", objects, offset table, 32-byte trailer
/// (6 unused, offset int size, object ref size, object count, top object, offset table offset; big-endian).
enum AttributePlistReader {
    static func decode(_ bytes: [UInt8]) -> [String: AttributeValue]? {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(bytes: buffer)
            return reader.decode()
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var offsetSize = 0
        var refSize = 0
        var objectCount = 0
        var tableOffset = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        static let magic: [UInt8] = Array("bplist00".utf8)

        /// Big-endian unsigned integer of `size` bytes at `at`; nil when out of range or too wide.
        func uint(_ at: Int, _ size: Int) -> Int? {
            guard size >= 1, size <= 8, at >= 0, at <= bytes.count - size else { return nil }
            var value: UInt64 = 0
            for i in 0..<size { value = value << 8 | UInt64(bytes[at + i]) }
            return value > UInt64(Int.max) ? nil : Int(value)
        }

        mutating func decode() -> [String: AttributeValue]? {
            let count = bytes.count
            guard count >= 8 + 32, Self.magic.indices.allSatisfy({ bytes[$0] == Self.magic[$0] }) else { return nil }
            let trailer = count - 32
            offsetSize = Int(bytes[trailer + 6])
            refSize = Int(bytes[trailer + 7])
            guard let objects = uint(trailer + 8, 8), let top = uint(trailer + 16, 8),
                let table = uint(trailer + 24, 8),
                (1...8).contains(offsetSize), (1...8).contains(refSize),
                objects > 0, top < objects, table >= 8, objects <= (trailer - table) / offsetSize
            else { return nil }
            objectCount = objects
            tableOffset = table
            guard let entries = dictionary(top) else { return nil }
            var attributes: [String: AttributeValue] = [:]
            attributes.reserveCapacity(entries.count)
            for (keyRef, valueRef) in entries {
                guard let name = string(keyRef), let value = attributeValue(valueRef),
                    attributes.updateValue(value, forKey: name) == nil  // a duplicate key falls back
                else { return nil }
            }
            return attributes
        }

        /// Byte offset of object `ref`.
        func offset(_ ref: Int) -> Int? {
            guard ref >= 0, ref < objectCount, let at = uint(tableOffset + ref * offsetSize, offsetSize),
                at >= 8, at < tableOffset
            else { return nil }
            return at
        }

        /// The length encoded in a marker's low nibble (0xF: an int object follows), and where the payload starts.
        func length(_ at: Int) -> (count: Int, start: Int)? {
            let nibble = Int(bytes[at] & 0x0F)
            if nibble != 0x0F { return (nibble, at + 1) }
            guard at + 1 < bytes.count, bytes[at + 1] & 0xF0 == 0x10 else { return nil }
            let size = 1 << Int(bytes[at + 1] & 0x0F)
            guard size <= 8, let value = uint(at + 2, size) else { return nil }
            return (value, at + 2 + size)
        }

        /// Key and value refs of a dictionary object.
        func dictionary(_ ref: Int) -> [(Int, Int)]? {
            guard let at = offset(ref), bytes[at] & 0xF0 == 0xD0, let (count, start) = length(at),
                count <= (tableOffset - start) / (2 * refSize)
            else { return nil }
            var entries: [(Int, Int)] = []
            entries.reserveCapacity(count)
            for i in 0..<count {
                guard let key = uint(start + i * refSize, refSize),
                    let value = uint(start + (count + i) * refSize, refSize)
                else { return nil }
                entries.append((key, value))
            }
            return entries
        }

        func string(_ ref: Int) -> String? {
            guard let at = offset(ref), let (count, start) = length(at) else { return nil }
            switch bytes[at] & 0xF0 {
            case 0x50:  // ASCII
                guard count <= tableOffset - start else { return nil }
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<(start + count)])
                guard slice.allSatisfy({ $0 < 0x80 }) else { return nil }
                return String(decoding: slice, as: UTF8.self)
            case 0x60:  // UTF-16 big-endian
                guard count <= (tableOffset - start) / 2 else { return nil }
                var units: [UInt16] = []
                units.reserveCapacity(count)
                for i in 0..<count { units.append(UInt16(bytes[start + 2 * i]) << 8 | UInt16(bytes[start + 2 * i + 1])) }
                var result = ""
                // Strict: unpaired surrogates fall back to PropertyListDecoder.
                let failed = transcode(units.makeIterator(), from: UTF16.self, to: UTF32.self, stoppingOnError: true) {
                    result.unicodeScalars.append(Unicode.Scalar($0)!)
                }
                return failed ? nil : result
            default:
                return nil
            }
        }

        /// `{s|d|i|b|t: value}` as ``AttributeValue`` encodes itself.
        ///
        /// Read in place: a one-entry dictionary (marker 0xD1) whose key is a one-character ASCII string
        /// (marker 0x51). Anything else (even a valid but unusual encoding of the same) returns `nil`, so
        /// the caller falls back to `PropertyListDecoder`. No array or `String` is made for the wrapper:
        /// that was half of the reader's cost per attribute (keychain-bench issue 7).
        func attributeValue(_ ref: Int) -> AttributeValue? {
            guard let wrapper = offset(ref), bytes[wrapper] == 0xD1, wrapper + 1 <= tableOffset - 2 * refSize,
                let keyRef = uint(wrapper + 1, refSize), let valueRef = uint(wrapper + 1 + refSize, refSize),
                let keyAt = offset(keyRef), bytes[keyAt] == 0x51, keyAt + 1 < tableOffset,
                let at = offset(valueRef)
            else { return nil }
            let marker = bytes[at]
            switch bytes[keyAt + 1] {
            case UInt8(ascii: "s"):
                return string(valueRef).map { .string($0) }
            case UInt8(ascii: "d"):
                guard marker & 0xF0 == 0x40, let (count, start) = length(at), count <= tableOffset - start else {
                    return nil
                }
                return .data(Data(UnsafeBufferPointer(rebasing: bytes[start..<(start + count)])))
            case UInt8(ascii: "i"):
                // 1, 2 and 4-byte ints are unsigned, 8-byte ints are two's complement; 16-byte ints fall back.
                guard marker & 0xF0 == 0x10 else { return nil }
                let size = 1 << Int(marker & 0x0F)
                guard size <= 8, at + 1 <= tableOffset - size else { return nil }
                var value: UInt64 = 0
                for i in 0..<size { value = value << 8 | UInt64(bytes[at + 1 + i]) }
                return .integer(Int64(bitPattern: value))
            case UInt8(ascii: "b"):
                switch marker {
                case 0x08: return .bool(false)
                case 0x09: return .bool(true)
                default: return nil
                }
            case UInt8(ascii: "t"):
                guard marker == 0x33, at + 1 <= tableOffset - 8 else { return nil }
                var bits: UInt64 = 0
                for i in 0..<8 { bits = bits << 8 | UInt64(bytes[at + 1 + i]) }
                return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits)))
            default:
                return nil
            }
        }
    }
}
