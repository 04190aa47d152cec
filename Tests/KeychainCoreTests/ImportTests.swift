import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// CSV password import and export (tracker issue 6). Fixtures are written here by hand, one per
/// format, with quoting edge cases (commas, doubled quotes, line breaks inside quotes, CRLF) and
/// non-ASCII names.
@Suite("Password import and export")
struct ImportTests {
    // MARK: - Fixtures

    /// Chrome/Edge, CRLF line endings as Chrome on Windows writes them.
    static let chrome =
        [
            "name,url,username,password,note",
            "example.com,https://example.com/,alice,\"pa,ss\"\"word\",",
            "Bücher,https://bücher.example/login,zoë,\"multi\r\nline\",\"note, with \"\"quotes\"\"\"",
            "GitHub,https://github.com:8443/path/to,bob,s3cret,plain note",
            "android,android://hash@com.example.app/,carol,pw,",
            "nourl,,dave,pw,",
            "nopassword,https://nopw.example/,erin,,",
        ].joined(separator: "\r\n") + "\r\n"

    static let firefox = #"""
        "url","username","password","httpRealm","formActionOrigin","guid","timeCreated","timeLastUsed","timePasswordChanged"
        "https://example.org","alice","p@ss ""quoted""",,"https://example.org","{guid-1}","1600000000000","1600000001000","1600000002000"
        "https://intranet.example:8080","bob","pw2","Intranet Realm",,"{guid-2}","1600000000000","1600000000000","1600000000000"
        "chrome://FirefoxAccounts","uid","token",,"","{guid-3}","1","1","1"

        """#

    static let apple = #"""
        Title,URL,Username,Password,Notes,OTPAuth
        example.net (alice),https://example.net/,alice,"with
        newline and ""quote""",Notes here,otpauth://totp/x?secret=ABC
        Café,https://cafe.example/,josé,mötley,,
        """#

    static let bitwarden = """
        folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp
        Work,1,login,Work Mail,"note, with comma",,0,https://mail.example.com,alice,pw1,JBSWY3DPEHPK3PXP
        ,,note,Secure note,secret note text,,0,,,,
        ,,card,Visa,,,0,,,,
        ,,login,Bare host,,,0,example.io,bob,pw2,
        ,,login,Multi,,,0,"https://a.example,https://b.example",carol,pw3,
        ,,login,No URL,,,0,,dan,pw4,

        """

    // MARK: - Helpers

    func csv(_ text: String) -> SecureBytes { SecureBytes(copying: Array(text.utf8)) }

    func items(_ keystore: Keystore) throws -> [String: (attributes: [String: AttributeValue], secret: String)] {
        var result: [String: (attributes: [String: AttributeValue], secret: String)] = [:]
        let records = try keystore.search(
            ItemQuery(itemClass: .internetPassword, scope: .all, synchronizable: .any),
            projection: [.attributes, .secret])
        for record in records {
            guard case .string(let server)? = record.attributes["srvr"] else { continue }
            result[server] = (record.attributes, record.secret!.withUnsafeBytes { String(decoding: $0, as: UTF8.self) })
        }
        return result
    }

    func keychainBytes(_ temp: TemporaryKeychain) -> [String: Data] {
        temp.files().filter { $0.key.hasSuffix("keychain-db") || $0.key.hasSuffix("-wal") }
    }

    // MARK: - Formats

    @Test("Chrome/Edge: quoted commas, doubled quotes, CRLF inside quotes, ports, paths and non-ASCII")
    func chromeImport() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        let summary = try keystore.importPasswords(csv: csv(Self.chrome), accessGroup: "test")
        #expect(summary.format == .chrome)
        #expect(summary.rows == 6)
        #expect(summary.imported == 3)
        #expect(summary.count(.unsupportedURL) == 1)
        #expect(summary.count(.noURL) == 1)
        #expect(summary.count(.noPassword) == 1)
        #expect(summary.skipped.map(\.row) == [4, 5, 6])
        #expect(summary.skipped.map(\.line) == [6, 7, 8], "the CRLF inside quotes counts as a line")

        let stored = try items(keystore)
        let example = try #require(stored["example.com"])
        #expect(example.secret == "pa,ss\"word")
        #expect(example.attributes["ptcl"] == .string("htps"))
        #expect(example.attributes["acct"] == .string("alice"))
        #expect(example.attributes["labl"] == .string("example.com"))
        #expect(example.attributes["port"] == .integer(0))
        #expect(example.attributes["path"] == .string(""))
        #expect(example.attributes["icmt"] == nil)
        #expect(example.attributes["agrp"] == .string("test"))
        #expect(example.attributes["pdmn"] == .string("ak"))

        let github = try #require(stored["github.com"])
        #expect(github.attributes["port"] == .integer(8443))
        #expect(github.attributes["path"] == .string("/path/to"))
        #expect(github.attributes["icmt"] == .string("plain note"))

        let books = try #require(stored.first { $0.value.attributes["acct"] == .string("zoë") }?.value)
        #expect(books.secret == "multi\r\nline")
        #expect(books.attributes["labl"] == .string("Bücher"))
        #expect(books.attributes["icmt"] == .string("note, with \"quotes\""))
        #expect(books.attributes["path"] == .string("/login"))
    }

    @Test("Firefox: realm becomes the security domain, and its times become cdat and mdat")
    func firefoxImport() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        let summary = try keystore.importPasswords(csv: csv(Self.firefox), accessGroup: "test")
        #expect(summary.format == .firefox)
        #expect(summary.imported == 2)
        #expect(summary.count(.unsupportedURL) == 1, "chrome://FirefoxAccounts has no internet protocol")
        let stored = try items(keystore)
        let org = try #require(stored["example.org"])
        #expect(org.secret == "p@ss \"quoted\"")
        #expect(org.attributes["labl"] == .string("example.org"))
        #expect(org.attributes["cdat"] == .date(AbsoluteTime(secondsSince1970: 1_600_000_000)))
        #expect(org.attributes["mdat"] == .date(AbsoluteTime(secondsSince1970: 1_600_000_002)))
        let intranet = try #require(stored["intranet.example"])
        #expect(intranet.attributes["sdmn"] == .string("Intranet Realm"))
        #expect(intranet.attributes["port"] == .integer(8080))
    }

    @Test("Apple Passwords/Safari: multi-line password, notes, and one-time codes counted but not stored")
    func appleImport() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        let summary = try keystore.importPasswords(
            csv: csv(Self.apple), accessGroup: "test", protection: .afterFirstUnlock)
        #expect(summary.format == .applePasswords)
        #expect(summary.imported == 2)
        #expect(summary.oneTimeCodesNotImported == 1)
        #expect(summary.description.contains("1 one-time-code secrets were not imported"))
        let stored = try items(keystore)
        let net = try #require(stored["example.net"])
        #expect(net.secret == "with\nnewline and \"quote\"")
        #expect(net.attributes["labl"] == .string("example.net (alice)"))
        #expect(net.attributes["icmt"] == .string("Notes here"))
        #expect(net.attributes["pdmn"] == .string("ck"))
        let cafe = try #require(stored["cafe.example"])
        #expect(cafe.secret == "mötley")
        #expect(cafe.attributes["acct"] == .string("josé"))
        #expect(cafe.attributes["labl"] == .string("Café"))
    }

    @Test("Bitwarden: notes and cards are skipped, a bare host is https, the first of several URIs counts")
    func bitwardenImport() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        let summary = try keystore.importPasswords(csv: csv(Self.bitwarden), accessGroup: "test")
        #expect(summary.format == .bitwarden)
        #expect(summary.rows == 6)
        #expect(summary.imported == 3)
        #expect(summary.count(.notALogin) == 2)
        #expect(summary.count(.noURL) == 1)
        #expect(summary.oneTimeCodesNotImported == 1)
        let stored = try items(keystore)
        #expect(stored["mail.example.com"]?.attributes["icmt"] == .string("note, with comma"))
        #expect(stored["mail.example.com"]?.attributes["labl"] == .string("Work Mail"))
        #expect(stored["example.io"]?.attributes["ptcl"] == .string("htps"))
        #expect(stored["a.example"]?.secret == "pw3")
        #expect(stored["b.example"] == nil)
    }

    // MARK: - Duplicates and refusals

    @Test("importing the same file again follows the policy: skip, replace or fail", arguments: ConflictPolicy.allCases)
    func duplicates(policy: ConflictPolicy) throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        _ = try keystore.importPasswords(csv: csv(Self.chrome), accessGroup: "test")
        let changed = Self.chrome.replacingOccurrences(of: "s3cret", with: "changed")
        let before = keychainBytes(temp)
        switch policy {
        case .skip:
            let summary = try keystore.importPasswords(csv: csv(changed), accessGroup: "test", policy: .skip)
            #expect(summary.imported == 0)
            #expect(summary.count(.alreadyExists) == 3)
            #expect(try items(keystore)["github.com"]?.secret == "s3cret")
        case .replace:
            let summary = try keystore.importPasswords(csv: csv(changed), accessGroup: "test", policy: .replace)
            #expect(summary.imported == 3)
            #expect(summary.replaced == 3)
            #expect(try items(keystore)["github.com"]?.secret == "changed")
            #expect(try items(keystore).count == 3)
        case .fail:
            do {
                _ = try keystore.importPasswords(csv: csv(changed), accessGroup: "test", policy: .fail)
                Issue.record("a duplicate was imported")
            } catch {
                #expect(error.status == .duplicateItem)
                #expect(error.description.contains("row 1 (line 2)"))
            }
            #expect(keychainBytes(temp) == before)
        }
    }

    @Test("a duplicate inside one file under policy fail rolls the whole file back")
    func duplicateInsideFile() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        let text =
            "name,url,username,password\nA,https://a.example/,u,1\nB,https://b.example/,u,2\nA again,https://a.example/,u,3\n"
        #expect(throws: KeychainFailure.self) {
            try keystore.importPasswords(csv: csv(text), accessGroup: "g", policy: .fail)
        }
        #expect(try items(keystore).isEmpty)
    }

    @Test(
        "an unknown header is refused with errSecUnknownFormat, broken quoting with errSecDecode, nothing stored",
        arguments: [
            ("user,pass\nalice,pw\n", KeychainStatus.unknownFormat), ("", KeychainStatus.unknownFormat),
            ("name,url,username,password\nx,https://x.example/,u,\"unterminated\n", KeychainStatus.decode),
            ("name,url,username,password\nx,https://x.example/,u,\"pw\"junk\n", KeychainStatus.decode),
        ])
    func refused(text: String, status: KeychainStatus) throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        do {
            _ = try keystore.importPasswords(csv: csv(text), accessGroup: "g")
            Issue.record("the file was imported")
        } catch {
            #expect(error.status == status)
            #expect(
                !error.description.contains("unterminated") || status != .decode || error.description.contains("line 2")
            )
        }
        #expect(try items(keystore).isEmpty)
    }

    @Test("summaries and errors never hold a password or an account")
    func noSecretsInSummaries() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        let summary = try keystore.importPasswords(csv: csv(Self.chrome), accessGroup: "test")
        let text = summary.description + "\(summary)"
        for secretText in ["pa,ss", "s3cret", "multi", "alice", "zoë"] { #expect(!text.contains(secretText)) }
        #expect(text.contains("Chrome/Edge export: 6 rows, 3 imported, 3 skipped"))
    }

    @Test("a file is read from disk into protected memory")
    func fromFile() throws {
        let temp = try TemporaryKeychain()
        let path = temp.directory + "/export.csv"
        try Data(Self.apple.utf8).write(to: URL(fileURLWithPath: path))
        let summary = try temp.open().importPasswords(fromFile: path, accessGroup: "g")
        #expect(summary.imported == 2)
    }

    // MARK: - Export

    @Test("export writes Chrome's format with mode 0600 and round-trips through import")
    func exportRoundTrip() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        _ = try keystore.importPasswords(csv: csv(Self.chrome), accessGroup: "test")
        _ = try keystore.add(
            .genericPassword, attributes: genericItem("not", "exported", .whenUnlocked), secret: secret("x"))
        let path = temp.directory + "/out.csv"
        let report = try keystore.exportPasswords(to: path, scope: .all)
        #expect(report.exported == 3)
        #expect(report.description.contains("plain text"))
        #expect(FileSystem.permissions(path) == 0o600)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(
            text == #"""
                name,url,username,password,note
                example.com,https://example.com/,alice,"pa,ss""word",
                Bücher,https://bücher.example/login,zoë,"multi\#r
                line","note, with ""quotes"""
                GitHub,https://github.com:8443/path/to,bob,s3cret,plain note

                """#)

        let other = try TemporaryKeychain()
        let copy = try other.open()
        let summary = try copy.importPasswords(fromFile: path, accessGroup: "test")
        #expect(summary.imported == 3)
        let original = try items(keystore)
        let imported = try items(copy)
        #expect(Set(imported.keys) == Set(original.keys))
        for (server, item) in original {
            #expect(imported[server]?.secret == item.secret)
            for name in ["srvr", "ptcl", "port", "path", "acct", "labl", "icmt"] {
                #expect(imported[server]?.attributes[name] == item.attributes[name], "\(server) \(name)")
            }
        }
    }

    /// The new-user trial: `/a?b`, `/a#b` and `/100%` were exported unencoded, and re-importing gave
    /// `/a`, `/a` and a skipped row. Each server, port and path here must come back exactly.
    static let trickyItems: [(protocolCode: String, server: String, port: Int64, path: String, url: String)] = [
        ("htps", "q.example", 0, "/a?b", "https://q.example/a%3Fb"),
        ("htps", "h.example", 0, "/a#b", "https://h.example/a%23b"),
        ("htps", "p.example", 0, "/100%", "https://p.example/100%25"),
        ("htps", "s.example", 8443, "/a b/ä✓", "https://s.example:8443/a%20b/%C3%A4%E2%9C%93"),
        ("http", "d.example", 1, "/;x=1+2,y:z@w!$&'()*~", "http://d.example:1/;x=1+2,y:z@w!$&'()*~"),
        ("htps", "[::1]", 65535, "/v2/", "https://[::1]:65535/v2/"),
        ("ldap", "[2001:db8::7]", 0, "/c=GB?objectClass", "ldap://[2001:db8::7]/c=GB%3FobjectClass"),
        ("ftp ", "[::ffff:192.0.2.1]", 21, "/pub", "ftp://[::ffff:192.0.2.1]:21/pub"),
        ("htps", "192.0.2.16", 80, "/x", "https://192.0.2.16:80/x"),
        ("htps", "bücher.example", 0, "/über", "https://bücher.example/%C3%BCber"),
        ("htps", "sp ace.example", 0, "/x", "https://sp%20ace.example/x"),
        ("htps", "a:b", 0, "/%2F", "https://a%3Ab/%252F"),
        ("htps", "x\u{E000}|y", 0, "/#frag", "https://x%EE%80%80%7Cy/%23frag"),
        ("htps", "e.example", 0, "", "https://e.example/"),
    ]

    @Test("export then import gives identical items for ?, #, %, spaces, non-ASCII, sub-delims, IP literals and ports")
    func exportImportRoundTripTrickyURLs() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        for (index, item) in Self.trickyItems.enumerated() {
            _ = try keystore.add(
                .internetPassword,
                attributes: [
                    "srvr": .string(item.server), "ptcl": .string(item.protocolCode), "port": .integer(item.port),
                    "path": .string(item.path), "acct": .string("u\(index)"), "labl": .string("L\(index)"),
                    "agrp": .string("test"), "pdmn": .string(ProtectionClass.whenUnlocked.rawValue),
                ], secret: secret("pw\(index)"))
        }
        let path = temp.directory + "/out.csv"
        #expect(try keystore.exportPasswords(to: path, scope: .all).exported == Self.trickyItems.count)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        // A URL holding a comma (a sub-delim, left as it is) is quoted, as RFC 4180 requires.
        let rows = Self.trickyItems.enumerated().map { index, item in
            "L\(index),\(item.url.contains(",") ? "\"\(item.url)\"" : item.url),u\(index),pw\(index),"
        }
        #expect(rows[4] == #"L4,"http://d.example:1/;x=1+2,y:z@w!$&'()*~",u4,pw4,"#)
        #expect(Set(lines) == Set(["name,url,username,password,note"] + rows))
        #expect(lines.count == rows.count + 1)

        let other = try TemporaryKeychain()
        let copy = try other.open()
        let summary = try copy.importPasswords(fromFile: path, accessGroup: "test")
        #expect(summary.imported == Self.trickyItems.count)
        #expect(summary.skipped.isEmpty)
        let original = try items(keystore)
        let imported = try items(copy)
        #expect(Set(imported.keys) == Set(Self.trickyItems.map(\.server)))
        for (server, item) in original {
            #expect(imported[server]?.secret == item.secret)
            for name in ["srvr", "ptcl", "port", "path", "acct", "labl", "icmt"] {
                #expect(imported[server]?.attributes[name] == item.attributes[name], "\(server) \(name)")
            }
        }
    }

    @Test("export leaves out an item whose port a URL cannot hold, and says so")
    func exportInvalidPort() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        _ = try keystore.add(
            .internetPassword,
            attributes: [
                "srvr": .string("big.example"), "ptcl": .string("htps"), "port": .integer(70000), "acct": .string("u"),
                "agrp": .string("test"), "pdmn": .string(ProtectionClass.whenUnlocked.rawValue),
            ], secret: secret("pw"))
        let path = temp.directory + "/out.csv"
        let report = try keystore.exportPasswords(to: path, scope: .all)
        #expect(report.exported == 0)
        #expect(report.skippedInvalidPort == 1)
        #expect(report.description.contains("; 1 with a port outside 1–65535 were left out"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "name,url,username,password,note\n")
    }

    @Test("import refuses a host with a character reg-name does not allow; an escaped one is decoded")
    func importHostCharacters() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        let summary = try keystore.importPasswords(
            csv: csv(
                """
                name,url,username,password
                a,https://sp ace.example/,u,p1
                b,https://a|b.example/,u,p2
                c,https://a<b>.example/,u,p3
                d,sp ace.example,u,p4
                e,https://sp%20ace.example/,u,p5
                f,https://ex%41mple.com/a%3Fb,u,p6
                g,https://bücher.example/,u,p7

                """), accessGroup: "test")
        #expect(summary.imported == 3)
        #expect(summary.count(.unsupportedURL) == 4)
        #expect(summary.skipped.map(\.row) == [1, 2, 3, 4])
        let stored = try items(keystore)
        #expect(Set(stored.keys) == ["sp ace.example", "exAmple.com", "bücher.example"])
        #expect(stored["exAmple.com"]?.attributes["path"] == .string("/a?b"))
    }

    @Test(
        "export writes the items of the gateway's scope only: another identity's groups are left out, the management identity's covers every group"
    )
    func exportScope() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        _ = try keystore.importPasswords(
            csv: csv("name,url,username,password\nmine,https://mine.example/,me,p1\n"), accessGroup: "TEAM.mine")
        _ = try keystore.importPasswords(
            csv: csv("name,url,username,password\ntheirs,https://theirs.example/,you,p2\n"), accessGroup: "TEAM.theirs")
        let path = temp.directory + "/out.csv"
        let app = ItemGateway(keystore: keystore, identity: ApplicationIdentity(accessGroups: ["TEAM.mine"]))
        #expect(app.callerScope == .groups(["TEAM.mine"]))
        #expect(try keystore.exportPasswords(to: path, scope: app.callerScope).exported == 1)
        #expect(
            try String(contentsOfFile: path, encoding: .utf8)
                == "name,url,username,password,note\nmine,https://mine.example/,me,p1,\n")
        let manager = ItemGateway(keystore: keystore, identity: .manager)
        #expect(manager.callerScope == .all)
        #expect(try keystore.exportPasswords(to: path, scope: manager.callerScope, overwrite: true).exported == 2)
        let none = ItemGateway(keystore: keystore, identity: ApplicationIdentity(accessGroups: []))
        #expect(try keystore.exportPasswords(to: path, scope: none.callerScope, overwrite: true).exported == 0)
    }

    @Test("export never replaces an existing file without the overwrite flag")
    func exportExisting() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        let path = temp.directory + "/out.csv"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: path))
        do {
            _ = try keystore.exportPasswords(to: path, scope: .all)
            Issue.record("an existing file was overwritten")
        } catch {
            #expect(error.status == .duplicateItem)
        }
        #expect(FileManager.default.contents(atPath: path) == Data("precious".utf8))
        _ = try keystore.exportPasswords(to: path, scope: .all, overwrite: true)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "name,url,username,password,note\n")
        #expect(FileSystem.permissions(path) == 0o600)
    }
}

/// The RFC 4180 reader on its own.
@Suite("Password import: RFC 4180 parsing")
struct ImportCSVParserTests {
    func parse(_ text: String) throws -> [[String]] {
        let bytes = SecureBytes(copying: Array(text.utf8))
        return try bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws(KeychainFailure) -> [[String]] in
            try CSVParser.parse(raw).map { $0.fields.map { CSVParser.string($0, in: raw) } }
        }
    }

    @Test(
        "records, fields and quoting",
        arguments: [
            ("a,b\nc,d\n", [["a", "b"], ["c", "d"]]),
            ("a,b\r\nc,d", [["a", "b"], ["c", "d"]]),
            ("a,b\rc,d\r", [["a", "b"], ["c", "d"]]),
            ("\"a,b\",\"c\"\"d\"\n", [["a,b", "c\"d"]]),
            ("\"line\nbreak\",\"crlf\r\nbreak\"\n", [["line\nbreak", "crlf\r\nbreak"]]),
            ("a,,\n", [["a", "", ""]]),
            ("a,\"\",b", [["a", "", "b"]]),
            ("\u{FEFF}name,url\n", [["name", "url"]]),
            ("a\n\n\nb\n", [["a"], ["b"]]),
            ("ab\"c,d\n", [["ab\"c", "d"]]),
            ("\"\"\"\"\n", [["\""]]),
            ("é,日本,🔑\n", [["é", "日本", "🔑"]]),
            (" a , b \n", [[" a ", " b "]]),
        ])
    func records(text: String, expected: [[String]]) throws {
        #expect(try parse(text) == expected)
    }

    @Test("an unterminated quote names the line it starts on")
    func unterminated() {
        do {
            _ = try parse("a,b\nc,\"never\nends\n")
            Issue.record("parsed")
        } catch let error as KeychainFailure {
            #expect(error.status == .decode)
            #expect(error.description.contains("line 2"))
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test("a secret field goes to protected memory unescaped")
    func secretField() throws {
        let bytes = SecureBytes(copying: Array("x,\"p\"\"w,d\"\n".utf8))
        let value = try bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws(KeychainFailure) -> [UInt8] in
            let rows = try CSVParser.parse(raw)
            return CSVParser.secret(rows[0].fields[1], in: raw).withUnsafeBytes { Array($0) }
        }
        #expect(value == Array("p\"w,d".utf8))
    }
}
