/// What ``Keystore/exportPasswords(to:scope:overwrite:)`` wrote.
package struct ExportReport: Sendable, Equatable, CustomStringConvertible {
    /// Internet passwords written.
    package var exported = 0
    /// Internet passwords left out because they have no server to make a URL from.
    package var skippedWithoutServer = 0
    /// Internet passwords left out because their port is not 1–65535 (a URL cannot hold it; 0 is no port).
    package var skippedInvalidPort = 0
    /// ThisDeviceOnly internet passwords left out because they belong to another installation.
    package var skippedUnreadable = 0
    /// Items with access control that needs authentication (`kSecAttrAccessControl`): left out.
    package var skippedAccessControlled = 0
    /// The file written.
    package var path: String

    package var description: String {
        var text = "exported \(exported) internet passwords to \(path)"
        if skippedWithoutServer > 0 { text += "; \(skippedWithoutServer) without a server were left out" }
        if skippedInvalidPort > 0 { text += "; \(skippedInvalidPort) with a port outside 1–65535 were left out" }
        if skippedAccessControlled > 0 {
            text += "; \(skippedAccessControlled) access-controlled items were left out (they need authentication)"
        }
        if skippedUnreadable > 0 {
            text +=
                "; \(skippedUnreadable) ThisDeviceOnly items of another installation were left out (unreadable here)"
        }
        return text + ". " + Keystore.plainTextExportWarning
    }
}

/// Exporting internet passwords as CSV in Chrome's format (tracker issue 6).
extension Keystore {
    /// The warning to show whenever passwords are exported.
    package static let plainTextExportWarning =
        "Warning: the exported file holds your passwords in plain text. Anyone who can read it can use them. "
        + "Import it where you need it, then delete it."

    /// Writes every internet password to a CSV file in Chrome's format: `name,url,username,password,note`.
    ///
    /// Only on explicit request: the file holds the passwords in plain text (show
    /// ``plainTextExportWarning``). It is created with mode 0600 and `O_EXCL`, written whole, then
    /// linked into place, so an existing file is never replaced unless `overwrite` is set.
    /// `name` is the label (the server when there is none); `url` is
    /// `scheme://server[:port][path]` built by ``URIReference/url(scheme:host:port:path:)``, the
    /// scheme from `ptcl` (`https` when it has none or has no URL scheme), the server and path
    /// percent-encoded per RFC 3986 (`/a?b` → `/a%3Fb`, `100%` → `100%25`; an IPv6 literal in brackets
    /// as it is), so that ``importPasswords(csv:accessGroup:protection:policy:)`` stores the same
    /// server, port and path again; `note` is the comment. Security domain and authentication type
    /// have no column and are not written. Items without a server, or with a port outside 1–65535,
    /// are left out and counted.
    ///
    /// ```swift
    /// print(Keystore.plainTextExportWarning)
    /// let gateway = ItemGateway(keystore: keystore, identity: .manager)
    /// let report = try keystore.exportPasswords(to: "passwords.csv", scope: gateway.callerScope)
    /// ```
    /// - Parameters:
    ///   - path: the CSV file to create.
    ///   - scope: the access groups whose items are written, as the gateway hands it out
    ///     (``ItemGateway/callerScope``: every group for the management identity, the `security` tool's view;
    ///     else the caller's own groups).
    ///   - overwrite: replace an existing file at `path`.
    /// - Returns: the counts written.
    /// - Throws: `.duplicateItem` when `path` exists and `overwrite` is false; `.interactionNotAllowed`
    ///   when a class is locked (nothing is written); `.io`/`.diskFull` for file errors.
    /// - Important: the write buffer is wiped after each flush, but the file is plain text on disk.
    package func exportPasswords(
        to path: String, scope: GroupScope, overwrite: Bool = false
    ) throws(KeychainFailure) -> ExportReport {
        let file = try FileWriter(path: path, overwrite: overwrite, wipesBuffer: true)
        try CSVWriter.writeRecord(
            [.text("name"), .text("url"), .text("username"), .text("password"), .text("note")], to: file)
        var report = try read { (s: borrowing StoreSession) throws(KeychainFailure) -> ExportReport in
            var report = ExportReport(path: path)
            let skipped = try s.forEachItem(of: .internetPassword) { (record: StoredItem) throws(KeychainFailure) in
                guard scope.covers(record.accessGroup) else { return }
                // An access-controlled item's secret is never written to a plain-text file without
                // the user's proof: left out and counted (issue 16).
                if record.needsAuthentication {
                    report.skippedAccessControlled += 1
                    return
                }
                let server = Self.text(record.attributes[.server])
                guard !server.isEmpty else {
                    report.skippedWithoutServer += 1
                    return
                }
                var port: UInt16?
                if case .integer(let number)? = record.attributes[.port], number != 0 {
                    guard let valid = UInt16(exactly: number) else {
                        report.skippedInvalidPort += 1
                        return
                    }
                    port = valid
                }
                let scheme = InternetProtocol.schemeForCode[Self.text(record.attributes[.protocol])] ?? "https"
                let url = URIReference.url(
                    scheme: scheme, host: server, port: port, path: Self.text(record.attributes[.path]))
                let label = Self.text(record.attributes[.label])
                try CSVWriter.writeRecord(
                    [
                        .text(label.isEmpty ? server : label), .text(url),
                        .text(Self.text(record.attributes[.account])),
                        .secret(record.secret ?? SecureBytes(count: 0) { _ in }),
                        .text(Self.text(record.attributes[.comment])),
                    ], to: file)
                report.exported += 1
            }
            report.skippedUnreadable = skipped
            return report
        }
        try file.commit()
        report.path = path
        return report
    }

    /// A string or UTF-8 data attribute as text ("" when absent).
    private static func text(_ value: AttributeValue?) -> String {
        switch value {
        case .string(let text)?: text
        case .data(let data)?: String(decoding: data, as: UTF8.self)
        default: ""
        }
    }
}
