/// Writes RFC 4180 fields to a ``FileWriter``: a field holding a comma, a quote, a line break or
/// leading or trailing spaces is quoted, with each `"` doubled. Secrets are written straight from
/// protected memory.
///
/// CSV injection (OWASP, "CSV Injection"): a spreadsheet runs a cell that starts with `=`, `+`, `-`,
/// `@`, tab or carriage return as a formula. Such a field is written with a `'` in front and quoted,
/// as OWASP recommends, so the spreadsheet shows it as text. So that the guard can be undone
/// exactly, a field made of `'`s followed by one of those characters gets one more `'` too;
/// ``CSVParser/removingFormulaGuard(_:in:)`` takes it off again on import.
enum CSVWriter {
    private static let quote = UInt8(ascii: "\"")
    /// The prefix that makes a spreadsheet read a cell as text.
    static let formulaGuard = UInt8(ascii: "'")
    /// The first characters a spreadsheet reads as the start of a formula (OWASP).
    static let formulaStarts: [UInt8] = [
        UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 0x09, 0x0D,
    ]

    /// Whether `bytes` is `'`* followed by a formula start, so it gets a guard in front.
    static func needsFormulaGuard(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let first = bytes.firstIndex(where: { $0 != formulaGuard }) else { return false }
        return formulaStarts.contains(bytes[first])
    }

    /// Writes one record: the fields separated by commas, then `\n` (Chrome's line ending).
    static func writeRecord(_ fields: [CSVValue], to file: FileWriter) throws(KeychainFailure) {
        for (index, field) in fields.enumerated() {
            if index > 0 { try file.write([UInt8(ascii: ",")]) }
            switch field {
            case .text(let text):
                try writeField(Array(text.utf8), to: file)
            case .secret(let secret):
                try secret.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws(KeychainFailure) in
                    try writeField(bytes, to: file)
                }
            }
        }
        try file.write([UInt8(ascii: "\n")])
    }

    /// A value to write.
    enum CSVValue {
        case text(String)
        case secret(SecureBytes)
    }

    /// A plain-text field (a name or URL, not a secret): written from the array in place.
    private static func writeField(_ bytes: [UInt8], to file: FileWriter) throws(KeychainFailure) {
        var failure: KeychainFailure?
        bytes.withUnsafeBytes { raw in
            do throws(KeychainFailure) { try writeField(raw, to: file) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    private static func writeField(_ bytes: UnsafeRawBufferPointer, to file: FileWriter) throws(KeychainFailure) {
        let guarded = needsFormulaGuard(bytes)
        let special = bytes.contains {
            $0 == quote || $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n")
        }
        let padded = bytes.first == UInt8(ascii: " ") || bytes.last == UInt8(ascii: " ")
        guard special || padded || guarded else {
            try file.write(bytes)
            return
        }
        try file.write(guarded ? [quote, formulaGuard] : [quote])
        var start = 0
        for index in bytes.indices where bytes[index] == quote {
            try file.write(UnsafeRawBufferPointer(rebasing: bytes[start...index]))
            try file.write([quote])
            start = index + 1
        }
        try file.write(UnsafeRawBufferPointer(rebasing: bytes[start...]))
        try file.write([quote])
    }
}
