/// What ``Keystore/importPasswords(csv:accessGroup:protection:policy:)`` did with a file. It holds no secret.
package struct ImportSummary: Sendable, Equatable, CustomStringConvertible {
    /// Why a row was not imported.
    package enum SkipReason: String, Sendable, CaseIterable, Comparable {
        /// The row has no URL (a secure note, a card, an identity).
        case noURL = "no URL"
        /// Bitwarden rows of another type than `login`.
        case notALogin = "not a login"
        /// The URL cannot be parsed, or its scheme has no kSecAttrProtocol value (e.g. `android://`).
        case unsupportedURL = "URL not supported"
        /// The row has a URL but no password.
        case noPassword = "no password"
        /// The row has more or fewer fields than the header.
        case malformedRow = "wrong number of fields"
        /// An item with the same primary key is in the keychain (policy `.skip`).
        case alreadyExists = "already in the keychain"

        package static func < (a: SkipReason, b: SkipReason) -> Bool {
            allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
        }
    }

    /// One skipped row: its number among the data rows (1-based), the line it starts on, and why.
    package struct Skip: Sendable, Equatable {
        package var row: Int
        package var line: Int
        package var reason: SkipReason
    }

    /// The format the header row matched.
    package var format: PasswordCSVFormat
    /// Data rows read (the header excluded).
    package var rows = 0
    /// Items stored, including ``replaced``.
    package var imported = 0
    /// Items stored in place of an existing one (policy `.replace`).
    package var replaced = 0
    /// Rows that were not stored, in file order.
    package var skipped: [Skip] = []
    /// Imported rows whose one-time-code secret (OTPAuth, login_totp) was left out: items here have none.
    package var oneTimeCodesNotImported = 0

    package init(format: PasswordCSVFormat) { self.format = format }

    /// How many rows were skipped for `reason`.
    package func count(_ reason: SkipReason) -> Int { skipped.filter { $0.reason == reason }.count }

    package var description: String {
        var text = "\(format.rawValue) export: \(rows) rows, \(imported) imported"
        if replaced > 0 { text += " (\(replaced) replaced existing items)" }
        text += ", \(skipped.count) skipped"
        let reasons = Dictionary(grouping: skipped, by: \.reason).sorted { $0.key < $1.key }
        if !reasons.isEmpty {
            text += " (" + reasons.map { "\($0.key.rawValue): \($0.value.count)" }.joined(separator: ", ") + ")"
        }
        if oneTimeCodesNotImported > 0 {
            text += "; \(oneTimeCodesNotImported) one-time-code secrets were not imported"
        }
        return text
    }
}
