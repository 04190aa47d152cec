internal import KeychainCore
internal import KeychainToolSupport

/// Finds the values of a JSON object's members in the raw bytes, and decodes a JSON string value
/// straight into zeroising storage: how the docker helper reads `Secret` without ever making a
/// `String` of it (`JSONDecoder` reads the document lazily, so a member it is never asked to
/// decode stays bytes in the input).
///
/// Decoding follows RFC 8259 §7 and accepts exactly what `JSONDecoder` decodes as a `String`:
/// escapes `\" \\ \/ \b \f \n \r \t \uXXXX` (a surrogate pair makes one scalar), no raw control
/// character below U+0020, valid UTF-8, no lone surrogate.
enum JSONStringScanner {
    /// The byte ranges of the top-level object's member values, by member name (the first of
    /// duplicate names, as `JSONDecoder` keeps it). Structure is checked only as far as needed to
    /// find the members: `JSONDecoder` validates the document; `[:]` when it is not an object.
    /// - Parameter json: the document.
    /// - Returns: member name → the value's range in `json` (a string's range includes its quotes).
    static func members(_ json: [UInt8]) -> [String: Range<Int>] {
        var members: [String: Range<Int>] = [:]
        var index = skipSpace(json, 0)
        guard index < json.count, json[index] == UInt8(ascii: "{") else { return [:] }
        index += 1
        while true {
            index = skipSpace(json, index)
            guard index < json.count, json[index] == UInt8(ascii: "\"") else { return members }
            guard let keyEnd = stringEnd(json, index), let key = decodedString(json, index..<keyEnd) else {
                return members
            }
            index = skipSpace(json, keyEnd)
            guard index < json.count, json[index] == UInt8(ascii: ":") else { return members }
            index = skipSpace(json, index + 1)
            guard let valueEnd = valueEnd(json, index) else { return members }
            if members[key] == nil { members[key] = index..<valueEnd }
            index = skipSpace(json, valueEnd)
            guard index < json.count, json[index] == UInt8(ascii: ",") else { return members }
            index += 1
        }
    }

    /// Decodes the JSON string literal at `range` (quotes included) into zeroising storage.
    /// - Returns: its UTF-8 bytes, or `nil` when the range is not a string `JSONDecoder` would decode.
    static func secret(_ json: [UInt8], _ range: Range<Int>) -> SecureBytes? {
        guard let count = unescape(json, range, into: nil) else { return nil }
        var valid = true
        let secret = SecureBytes(count: count) { buffer in
            valid = unescape(json, range, into: buffer) == count
        }
        return valid ? secret : nil
    }

    // MARK: - Private

    private static func skipSpace(_ json: [UInt8], _ start: Int) -> Int {
        var index = start
        while index < json.count, [0x20, 0x09, 0x0A, 0x0D].contains(json[index]) { index += 1 }
        return index
    }

    /// The index just after the string literal starting at `start` (its closing quote), or `nil`.
    private static func stringEnd(_ json: [UInt8], _ start: Int) -> Int? {
        var index = start + 1
        while index < json.count {
            switch json[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return nil
    }

    /// The index just after the value starting at `start`: a string, an object or array (nested,
    /// strings inside skipped), or a scalar (up to the next `,`, `}`, `]` or space).
    private static func valueEnd(_ json: [UInt8], _ start: Int) -> Int? {
        guard start < json.count else { return nil }
        switch json[start] {
        case UInt8(ascii: "\""):
            return stringEnd(json, start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < json.count {
                switch json[index] {
                case UInt8(ascii: "\""):
                    guard let end = stringEnd(json, index) else { return nil }
                    index = end
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default: break
                }
                index += 1
            }
            return nil
        default:
            var index = start
            while index < json.count,
                ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D]
                    .contains(json[index])
            {
                index += 1
            }
            return index
        }
    }

    /// A member name: the decoded string (names are not secret).
    private static func decodedString(_ json: [UInt8], _ range: Range<Int>) -> String? {
        guard let count = unescape(json, range, into: nil) else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        let written = bytes.withUnsafeMutableBytes { unescape(json, range, into: $0) }
        guard written == count else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Decodes the string literal at `range` (quotes included) into `output` when given.
    /// - Returns: the decoded length in bytes, or `nil` for a literal `JSONDecoder` would not decode.
    private static func unescape(_ json: [UInt8], _ range: Range<Int>, into output: UnsafeMutableRawBufferPointer?)
        -> Int?
    {
        guard range.count >= 2, json[range.lowerBound] == UInt8(ascii: "\""),
            json[range.upperBound - 1] == UInt8(ascii: "\"")
        else { return nil }
        var written = 0
        func emit(_ scalar: Unicode.Scalar) {
            for byte in UTF8.encode(scalar)! {
                output?[written] = byte
                written += 1
            }
        }
        func hex4(_ at: Int) -> UInt32? {
            guard at + 4 <= range.upperBound - 1 else { return nil }
            var value: UInt32 = 0
            for byte in json[at..<at + 4] {
                guard let digit = Character(Unicode.Scalar(byte)).hexDigitValue else { return nil }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
        var index = range.lowerBound + 1
        let end = range.upperBound - 1
        while index < end {
            let byte = json[index]
            if byte == UInt8(ascii: "\\") {
                guard index + 1 < end else { return nil }
                let escaped = json[index + 1]
                index += 2
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): emit(Unicode.Scalar(escaped))
                case UInt8(ascii: "b"): emit("\u{08}")
                case UInt8(ascii: "f"): emit("\u{0C}")
                case UInt8(ascii: "n"): emit("\n")
                case UInt8(ascii: "r"): emit("\r")
                case UInt8(ascii: "t"): emit("\t")
                case UInt8(ascii: "u"):
                    guard let unit = hex4(index) else { return nil }
                    index += 4
                    if (0xD800..<0xDC00).contains(unit) {
                        // A high surrogate must be followed by an escaped low one.
                        guard index + 1 < end, json[index] == UInt8(ascii: "\\"), json[index + 1] == UInt8(ascii: "u"),
                            let low = hex4(index + 2), (0xDC00..<0xE000).contains(low)
                        else { return nil }
                        index += 6
                        emit(Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!)
                    } else {
                        guard let scalar = Unicode.Scalar(unit) else { return nil }  // a lone low surrogate
                        emit(scalar)
                    }
                default:
                    return nil
                }
            } else if byte < 0x20 {
                return nil
            } else if byte < 0x80 {
                output?[written] = byte
                written += 1
                index += 1
            } else {
                // One UTF-8 sequence, validated, copied as it is.
                var iterator = json[index..<end].makeIterator()
                var decoder = Unicode.UTF8()
                guard case .scalarValue(let scalar) = decoder.decode(&iterator) else { return nil }
                let length = UTF8.width(scalar)
                for offset in 0..<length {
                    output?[written] = json[index + offset]
                    written += 1
                }
                index += length
            }
        }
        return written
    }
}
