internal import KeychainCore

/// The byte formats of macOS `security`, from Apple's `SecurityTool` sources
/// (`keychain_utilities.c`: `print_buffer`, `print_uint32`; `keychain_find.c`: `do_password_item_printing`).
package enum AppleFormat {
    /// Whether `byte` is printed as itself: `' '`…`'~'` except the backslash.
    static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte <= 0x7E && byte != UInt8(ascii: "\\")
    }

    /// `print_buffer`: bytes that are all plain print as `"text"`; any other byte adds a hex dump
    /// first (`0x` + uppercase hex), followed by two spaces and the quoted text when some bytes are
    /// plain, or one space when none are; in the quoted text, other bytes print as `\ooo` (octal).
    /// No bytes print as nothing.
    /// - Parameter bytes: the value.
    /// - Returns: the text macOS prints.
    package static func buffer<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var hex = false
        var ascii = false
        for byte in bytes {
            if isPlain(byte) { ascii = true } else { hex = true }
        }
        var text = ""
        if hex {
            text += "0x"
            for byte in bytes { text += hexByte(byte, uppercase: true) }
            text += ascii ? "  " : " "
        }
        if ascii {
            text += "\""
            for byte in bytes {
                if isPlain(byte) {
                    text.unicodeScalars.append(Unicode.Scalar(byte))
                } else {
                    text += "\\" + String(byte >> 6 & 7) + String(byte >> 3 & 7) + String(byte & 7)
                }
            }
            text += "\""
        }
        return text
    }

    /// `print_uint32`: the four big-endian bytes of `value` through ``buffer(_:)``.
    /// So `'htps'` prints as `"htps"` and 0 as `0x00000000 ` (with its trailing space).
    package static func uint32(_ value: UInt32) -> String {
        buffer([UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }

    /// The password as `find-… -w` prints it: the bytes themselves when every byte is printable
    /// (`isprint`), else lowercase hex, two digits a byte.
    ///
    /// Difference from macOS: Apple's `printf("%02x", char)` sign-extends bytes ≥ 0x80 (printing
    /// `ffffffc3` for 0xC3); this prints `c3`, which tools can decode.
    /// - Returns: the bytes to print, without the newline.
    package static func passwordOnly<Bytes: Collection>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        if bytes.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E }) { return Array(bytes) }
        var hex: [UInt8] = []
        hex.reserveCapacity(bytes.count * 2)
        for byte in bytes { hex.append(contentsOf: hexByte(byte, uppercase: false).utf8) }
        return hex
    }

    /// A four-character code as the big-endian integer macOS stores (`'aapl'` → 0x6161706C).
    static func fourCharCode(_ text: String) -> UInt32? {
        let bytes = Array(text.utf8)
        guard bytes.count == 4 else { return nil }
        return bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The 16 bytes of a CSSM time-date attribute: `YYYYMMDDhhmmssZ` and a NUL, in UTC.
    static func timeDate(_ date: AbsoluteTime) -> [UInt8] {
        let seconds = Int64(date.secondsSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondsOfDay = seconds - days * 86_400
        // Civil date from days since 1970-01-01 (proleptic Gregorian calendar).
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let text =
            pad(year, 4) + pad(month, 2) + pad(day, 2) + pad(secondsOfDay / 3600, 2)
            + pad(secondsOfDay / 60 % 60, 2) + pad(secondsOfDay % 60, 2) + "Z"
        return Array(text.utf8) + [0]
    }

    private static func hexByte(_ byte: UInt8, uppercase: Bool) -> String {
        let digits: [Character] = uppercase ? Array("0123456789ABCDEF") : Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}
