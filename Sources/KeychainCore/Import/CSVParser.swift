/// An RFC 4180 reader over bytes in protected memory, for password exports.
///
/// - Fields are separated by `,` and records by CRLF, LF or CR.
/// - A field that starts with `"` is quoted: it may hold commas, line breaks and `""` (one quote),
///   and must be followed by a separator, a line break or the end of the input.
/// - A quote inside an unquoted field is kept as it is (exporters such as old Safari write them).
/// - A UTF-8 byte order mark before the first record is ignored; blank lines are skipped.
///
/// Rows hold byte ranges, not copies, so a field that is a secret goes straight from the input
/// buffer into a ``SecureBytes`` (``secret(_:in:)``) and never sits in a Swift `String`.
enum CSVParser {
    /// One field: where its content is in the input, and whether it was quoted (`""` to unescape).
    struct Field {
        let range: Range<Int>
        let quoted: Bool
    }

    /// One record, with the physical line it starts on (1-based), for messages.
    struct Row {
        let line: Int
        var fields: [Field]
    }

    private static let quote = UInt8(ascii: "\"")
    private static let comma = UInt8(ascii: ",")
    private static let cr = UInt8(ascii: "\r")
    private static let lf = UInt8(ascii: "\n")

    /// Splits `bytes` into records and fields.
    /// - Throws: `.decode` for a quoted field that never ends or text after a closing quote, naming the line.
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(KeychainFailure) -> [Row] {
        var rows: [Row] = []
        var i = 0
        let n = bytes.count
        if n >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { i = 3 }
        var line = 1
        while i < n {
            var row = Row(line: line, fields: [])
            var endOfRecord = false
            while !endOfRecord {
                if i < n && bytes[i] == quote {
                    let startLine = line
                    let start = i + 1
                    var j = start
                    var closed = false
                    while j < n {
                        if bytes[j] == quote {
                            if j + 1 < n && bytes[j + 1] == quote {
                                j += 2
                                continue
                            }
                            closed = true
                            break
                        }
                        if bytes[j] == lf || (bytes[j] == cr && (j + 1 >= n || bytes[j + 1] != lf)) { line += 1 }
                        j += 1
                    }
                    guard closed else {
                        throw KeychainFailure(.decode, "a quoted field starting on line \(startLine) never ends")
                    }
                    row.fields.append(Field(range: start..<j, quoted: true))
                    i = j + 1
                    if i < n && bytes[i] != comma && bytes[i] != cr && bytes[i] != lf {
                        throw KeychainFailure(.decode, "unexpected text after a closing quote on line \(line)")
                    }
                } else {
                    let start = i
                    while i < n && bytes[i] != comma && bytes[i] != cr && bytes[i] != lf { i += 1 }
                    row.fields.append(Field(range: start..<i, quoted: false))
                }
                // Here `i` is at a separator, a line break or the end.
                if i < n && bytes[i] == comma {
                    i += 1
                    continue
                }
                if i < n && bytes[i] == cr {
                    i += 1
                    if i < n && bytes[i] == lf { i += 1 }
                } else if i < n && bytes[i] == lf {
                    i += 1
                }
                line += 1
                endOfRecord = true
            }
            let blank = row.fields.count == 1 && !row.fields[0].quoted && row.fields[0].range.isEmpty
            if !blank { rows.append(row) }
        }
        return rows
    }

    /// The field without the `'` that ``CSVWriter`` puts in front of a cell a spreadsheet would run
    /// as a formula (`'` followed by `'`s and then `=`, `+`, `-`, `@`, tab or carriage return); any
    /// other field unchanged. Neither `'` nor those characters is `"`, so the test on the raw bytes
    /// agrees with the unescaped text.
    static func removingFormulaGuard(_ field: Field, in bytes: UnsafeRawBufferPointer) -> Field {
        let slice = UnsafeRawBufferPointer(rebasing: bytes[field.range])
        guard slice.first == CSVWriter.formulaGuard,
            CSVWriter.needsFormulaGuard(UnsafeRawBufferPointer(rebasing: slice.dropFirst()))
        else { return field }
        return Field(range: field.range.lowerBound + 1..<field.range.upperBound, quoted: field.quoted)
    }

    /// The field's text (UTF-8; invalid sequences become U+FFFD), with `""` unescaped.
    static func string(_ field: Field, in bytes: UnsafeRawBufferPointer) -> String {
        let slice = UnsafeRawBufferPointer(rebasing: bytes[field.range])
        guard field.quoted else { return String(decoding: slice, as: UTF8.self) }
        var unescaped: [UInt8] = []
        unescaped.reserveCapacity(slice.count)
        var k = 0
        while k < slice.count {
            unescaped.append(slice[k])
            k += slice[k] == quote ? 2 : 1
        }
        return String(decoding: unescaped, as: UTF8.self)
    }

    /// The field's bytes in protected memory, with `""` unescaped, never copied elsewhere.
    static func secret(_ field: Field, in bytes: UnsafeRawBufferPointer) -> SecureBytes {
        let slice = UnsafeRawBufferPointer(rebasing: bytes[field.range])
        guard field.quoted else { return SecureBytes(copying: slice) }
        var count = 0
        var k = 0
        while k < slice.count {
            count += 1
            k += slice[k] == quote ? 2 : 1
        }
        return SecureBytes(count: count) { out in
            var k = 0
            var o = 0
            while k < slice.count {
                out[o] = slice[k]
                o += 1
                k += slice[k] == quote ? 2 : 1
            }
        }
    }
}
