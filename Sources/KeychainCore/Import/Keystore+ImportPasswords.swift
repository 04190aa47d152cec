/// Importing passwords exported by browsers and password managers (tracker issue 6).
extension Keystore {
    /// Largest export file read, 64 MiB: far above any real password export.
    package static let maximumImportBytes = 64 << 20

    /// Imports a CSV password export as internet passwords, in one transaction.
    ///
    /// The format (Chrome/Edge, Firefox, Apple Passwords/Safari, Bitwarden) is detected from the
    /// header row; see ``PasswordCSVFormat``. Rows without a URL (notes, cards), with an unsupported
    /// URL, without a password or with the wrong number of fields are skipped and reported by row
    /// number, never stored half-formed. Duplicates follow `policy`; under `.fail` the first one
    /// rolls the whole file back.
    ///
    /// ```swift
    /// let summary = try keystore.importPasswords(fromFile: "~/Downloads/Chrome Passwords.csv", accessGroup: group)
    /// print(summary)  // Chrome/Edge export: 120 rows, 118 imported, 2 skipped (no URL: 2)
    /// ```
    /// - Parameters:
    ///   - path: the CSV file; read into protected memory.
    ///   - accessGroup: the access group the items get (the importing identity's default group).
    ///   - protection: the items' protection class.
    ///   - policy: what to do when an item with the same primary key exists.
    /// - Returns: counts of imported and skipped rows, and why. No secret, no account.
    /// - Throws: `.unknownFormat` (-25257) for a header no format matches or an empty file; `.decode`
    ///   for broken quoting (with the line); `.duplicateItem` under `.fail` (with the row);
    ///   `.interactionNotAllowed` when `protection`'s class is locked; `.io` when the file cannot be read.
    /// - Important: the export file itself stays on disk in plain text; tell the user to delete it.
    package func importPasswords(
        fromFile path: String, accessGroup: String, protection: ProtectionClass = .whenUnlocked,
        policy: ConflictPolicy = .skip
    ) throws(KeychainFailure) -> ImportSummary {
        guard let size = FileSystem.size(path) else { throw KeychainFailure(.io, "cannot read \(path)") }
        guard size <= Self.maximumImportBytes else {
            throw KeychainFailure(.dataTooLarge, "\(path) is larger than \(Self.maximumImportBytes >> 20) MiB")
        }
        guard let csv = try FileSystem.readSecret(path, expectedCount: size) else {
            throw KeychainFailure(.io, "cannot read \(path)")
        }
        return try importPasswords(csv: csv, accessGroup: accessGroup, protection: protection, policy: policy)
    }

    /// Imports CSV text already in protected memory. See ``importPasswords(fromFile:accessGroup:protection:policy:)``.
    package func importPasswords(
        csv: SecureBytes, accessGroup: String, protection: ProtectionClass = .whenUnlocked,
        policy: ConflictPolicy = .skip
    ) throws(KeychainFailure) -> ImportSummary {
        try csv.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws(KeychainFailure) -> ImportSummary in
            let document = try PasswordCSVImport(bytes)
            return try write { (s: borrowing StoreSession) throws(KeychainFailure) -> ImportSummary in
                var summary = ImportSummary(format: document.format)
                summary.rows = document.rows.count
                for index in document.rows.indices {
                    let row = index + 1
                    let line = document.rows[index].line
                    switch document.entry(index, in: bytes, accessGroup: accessGroup, protection: protection) {
                    case .skip(let reason):
                        summary.skipped.append(.init(row: row, line: line, reason: reason))
                    case .item(let attributes, let secret, let oneTimeCode):
                        let result: (outcome: StoreSession.RestoreOutcome, reassignedReference: Bool, stored: [UInt8]?)
                        do throws(KeychainFailure) {
                            result = try s.restore(
                                .internetPassword, attributes: attributes, secret: secret, persistentRef: nil,
                                policy: policy)
                        } catch  where error.status == .duplicateItem {
                            throw KeychainFailure(
                                .duplicateItem,
                                "row \(row) (line \(line)) duplicates an item already in the keychain; nothing was imported"
                            )
                        }
                        switch result.outcome {
                        case .skipped:
                            summary.skipped.append(.init(row: row, line: line, reason: .alreadyExists))
                            continue
                        case .replaced:
                            summary.replaced += 1
                        case .inserted:
                            break
                        }
                        summary.imported += 1
                        if oneTimeCode { summary.oneTimeCodesNotImported += 1 }
                    }
                }
                return summary
            }
        }
    }
}
