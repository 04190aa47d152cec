/// Turns the rows of a password export into internet-password items (tracker issue 6).
///
/// Mapping: the URL gives `srvr` (host), `ptcl` (scheme as a kSecAttrProtocol code, `https` → `htps`),
/// `port` (only when the URL names one) and `path` (left out when empty or `/`); the username gives
/// `acct`; the title (Chrome `name`, Apple `Title`, Bitwarden `name`; the host when missing) gives
/// `labl`; notes give `icmt`; Firefox's `httpRealm` gives `sdmn` and its `timeCreated` and
/// `timePasswordChanged` give `cdat` and `mdat`. A URL without a scheme (Bitwarden allows
/// `example.com`) is read as `https`. Of a Bitwarden `login_uri` holding several URIs, the first counts.
/// One-time-code secrets (`OTPAuth`, `login_totp`) have no place in an internet password and are
/// counted, not stored.
///
/// Rows are parsed up front (as byte ranges), but each row becomes an item only when it is stored:
/// a password goes from the input buffer into protected memory, is sealed, and is released before
/// the next row, so a large file never holds thousands of `sodium_malloc` buffers at once.
struct PasswordCSVImport {
    /// One data row: an item to store, or the reason it is skipped.
    enum Entry {
        case item(attributes: [String: AttributeValue], secret: SecureBytes, oneTimeCode: Bool)
        case skip(ImportSummary.SkipReason)
    }

    let format: PasswordCSVFormat
    /// The data rows (the header excluded).
    let rows: [CSVParser.Row]
    private let header: [String]
    private let column: [String: Int]

    /// Parses a whole export and detects its format.
    /// - Throws: `.unknownFormat` (-25257) for an empty file or a header row no format matches;
    ///   `.decode` for broken quoting.
    init(_ bytes: UnsafeRawBufferPointer) throws(KeychainFailure) {
        let rows = try CSVParser.parse(bytes)
        guard let headerRow = rows.first else { throw KeychainFailure(.unknownFormat, "the file is empty") }
        header = headerRow.fields.map { CSVParser.string($0, in: bytes).trimmingWhitespace().lowercased() }
        guard let format = PasswordCSVFormat.detect(header) else {
            throw KeychainFailure(
                .unknownFormat,
                "the header row matches no known export (Chrome/Edge, Firefox, Apple Passwords/Safari, Bitwarden)")
        }
        self.format = format
        // Our own exports are Chrome's format with OWASP's formula guard (CSVWriter): undone here so
        // that `=1+1` comes back as `=1+1`. Other formats' exporters write cells as they are.
        if format == .chrome {
            self.rows = rows.dropFirst().map { row in
                var row = row
                row.fields = row.fields.map { CSVParser.removingFormulaGuard($0, in: bytes) }
                return row
            }
        } else {
            self.rows = Array(rows.dropFirst())
        }
        column = Dictionary(uniqueKeysWithValues: header.enumerated().map { ($0.element, $0.offset) })
    }

    /// The item data row `index` (0-based) becomes, or why it is skipped.
    func entry(_ index: Int, in bytes: UnsafeRawBufferPointer, accessGroup: String, protection: ProtectionClass)
        -> Entry
    {
        let row = rows[index]
        guard row.fields.count == header.count else { return .skip(.malformedRow) }
        func text(_ name: String?) -> String {
            guard let name, let index = column[name] else { return "" }
            return CSVParser.string(row.fields[index], in: bytes)
        }
        if format == .bitwarden && text("type").trimmingWhitespace().lowercased() != "login" {
            return .skip(.notALogin)
        }
        var url = text(format.url).trimmingWhitespace()
        if format == .bitwarden, let first = url.split(separator: ",").first {
            url = String(first).trimmingWhitespace()
        }
        guard !url.isEmpty else { return .skip(.noURL) }
        guard let target = Self.parseURL(url) else { return .skip(.unsupportedURL) }
        guard let passwordColumn = column[format.password], !row.fields[passwordColumn].range.isEmpty else {
            return .skip(.noPassword)
        }

        var attributes = [String: AttributeValue](named: [
            .server: .string(target.host), .protocol: .string(target.protocolCode),
            .account: .string(text(format.username)), .accessGroup: .string(accessGroup),
            .accessible: .string(protection.rawValue),
        ])
        if let port = target.port { attributes[.port] = .integer(Int64(port)) }
        if !target.path.isEmpty && target.path != "/" { attributes[.path] = .string(target.path) }
        let title = text(format.title).trimmingWhitespace()
        attributes[.label] = .string(title.isEmpty ? target.host : title)
        let notes = text(format.notes)
        if !notes.isEmpty { attributes[.comment] = .string(notes) }
        if format == .firefox {
            let realm = text("httprealm")
            if !realm.isEmpty { attributes[.securityDomain] = .string(realm) }
            if let created = Self.milliseconds(text("timecreated")) { attributes[.creationDate] = .date(created) }
            if let changed = Self.milliseconds(text("timepasswordchanged")) {
                attributes[.modificationDate] = .date(changed)
            }
        }
        // The one-time-code field holds a TOTP seed: test it in place, never copy it into a String.
        let oneTimeCode =
            format.oneTimeCode.flatMap { column[$0] }.map { index in
                UnsafeRawBufferPointer(rebasing: bytes[row.fields[index].range]).contains {
                    ![0x20, 0x09, 0x0A, 0x0D].contains($0)
                }
            } ?? false
        return .item(
            attributes: attributes, secret: CSVParser.secret(row.fields[passwordColumn], in: bytes),
            oneTimeCode: oneTimeCode)
    }

    /// The parts of a URL an internet password keeps, or `nil` when it is not a URL with a host and a known scheme.
    ///
    /// Split by ``URIReference`` (RFC 3986); a URL without `://` is read as `https://` followed by it.
    /// The host must be an IP literal or a `reg-name` as written (``URIReference/isHost(_:)``: no space,
    /// `<`, `|`, …; non-ASCII letters allowed, as in an IRI), so `https://sp ace.example/` is not a URL.
    /// The host and path are then percent-decoded (`%41` → `A`, `%3F` → `?`), as `URLComponents.host`
    /// and `.path` give them, whatever the escapes stand for: the export writes any server and path with
    /// escapes (``URIReference/url(scheme:host:port:path:)``), and they come back unchanged. A query or
    /// fragment is not part of the path and is dropped.
    /// - Parameter text: the URL field of a row.
    /// - Returns: the protocol code (``InternetProtocol/codeForScheme``), the host (an IPv6 literal in
    ///   brackets), the port when the URL names one, and the path; `nil` for an unknown scheme, no or an
    ///   empty host, a host with a character `reg-name` does not allow, a port that is not 0–65535, or a
    ///   malformed `%` escape in the host or path.
    static func parseURL(_ text: String) -> (protocolCode: String, host: String, port: Int?, path: String)? {
        let full = text.contains("://") ? text : "https://" + text
        guard let uri = try? URIReference(full), let scheme = uri.scheme?.lowercased(),
            let code = InternetProtocol.codeForScheme[scheme], let encodedHost = uri.host,
            URIReference.isHost(encodedHost),
            let host = URIReference.percentDecoded(encodedHost), !host.isEmpty,
            let path = URIReference.percentDecoded(uri.path)
        else { return nil }
        return (code, host, uri.port.map(Int.init), path)
    }

    /// A Unix time in milliseconds (Firefox), or `nil` when the field is empty or not a positive number.
    static func milliseconds(_ text: String) -> AbsoluteTime? {
        guard let value = Int64(text.trimmingWhitespace()), value > 0 else { return nil }
        return AbsoluteTime(secondsSince1970: Double(value) / 1000)
    }
}

extension KeychainStatus {
    /// `errSecUnknownFormat` (-25257): "Unknown format in import."
    package static let unknownFormat = KeychainStatus(-25257)
}
