import Testing

@testable import KeychainCore

/// ``URIReference`` against RFC 3986's own examples (§1.1.2, §3, §5.4, Appendix B) and the edges
/// its callers meet: no scheme, an empty host, IP literals, ports 0, 65535 and 65536, percent signs.
@Suite("URI references (RFC 3986)")
struct URIReferenceTests {
    /// The expected split: scheme, userinfo, host, port, path, query, fragment.
    struct Split: Equatable, CustomStringConvertible {
        var scheme: String?
        var userinfo: String?
        var host: String?
        var port: UInt16?
        var path: String
        var query: String?
        var fragment: String?

        init(
            _ scheme: String?, user userinfo: String? = nil, host: String? = nil, port: UInt16? = nil,
            path: String = "", query: String? = nil, fragment: String? = nil
        ) {
            (self.scheme, self.userinfo, self.host, self.port) = (scheme, userinfo, host, port)
            (self.path, self.query, self.fragment) = (path, query, fragment)
        }

        init(_ uri: URIReference) {
            self.init(
                uri.scheme, user: uri.userinfo, host: uri.host, port: uri.port, path: uri.path, query: uri.query,
                fragment: uri.fragment)
        }

        var description: String {
            "\(scheme as Any) \(userinfo as Any) \(host as Any) \(port as Any) \(path) \(query as Any) \(fragment as Any)"
        }
    }

    @Test(
        "RFC 3986's example URIs split into their components (§1.1.2, §3, Appendix B)",
        arguments: [
            ("ftp://ftp.is.co.za/rfc/rfc1808.txt", Split("ftp", host: "ftp.is.co.za", path: "/rfc/rfc1808.txt")),
            ("http://www.ietf.org/rfc/rfc2396.txt", Split("http", host: "www.ietf.org", path: "/rfc/rfc2396.txt")),
            (
                "ldap://[2001:db8::7]/c=GB?objectClass?one",
                Split("ldap", host: "[2001:db8::7]", path: "/c=GB", query: "objectClass?one")
            ),
            ("mailto:John.Doe@example.com", Split("mailto", path: "John.Doe@example.com")),
            ("news:comp.infosystems.www.servers.unix", Split("news", path: "comp.infosystems.www.servers.unix")),
            ("tel:+1-816-555-1212", Split("tel", path: "+1-816-555-1212")),
            ("telnet://192.0.2.16:80/", Split("telnet", host: "192.0.2.16", port: 80, path: "/")),
            (
                "urn:oasis:names:specification:docbook:dtd:xml:4.1.2",
                Split("urn", path: "oasis:names:specification:docbook:dtd:xml:4.1.2")
            ),
            (
                "foo://example.com:8042/over/there?name=ferret#nose",
                Split(
                    "foo", host: "example.com", port: 8042, path: "/over/there", query: "name=ferret", fragment: "nose")
            ),
            ("urn:example:animal:ferret:nose", Split("urn", path: "example:animal:ferret:nose")),
            (
                "http://www.ics.uci.edu/pub/ietf/uri/#Related",
                Split("http", host: "www.ics.uci.edu", path: "/pub/ietf/uri/", fragment: "Related")
            ),
        ])
    func rfcExamples(_ text: String, _ expected: Split) throws {
        #expect(Split(try URIReference(text)) == expected)
    }

    @Test(
        "relative references split as Appendix B splits them (RFC 3986 §5.4's examples)",
        arguments: [
            ("g:h", Split("g", path: "h")), ("g", Split(nil, path: "g")), ("./g", Split(nil, path: "./g")),
            ("g/", Split(nil, path: "g/")), ("/g", Split(nil, path: "/g")), ("//g", Split(nil, host: "g")),
            ("?y", Split(nil, query: "y")), ("g?y", Split(nil, path: "g", query: "y")),
            ("#s", Split(nil, fragment: "s")), ("g#s", Split(nil, path: "g", fragment: "s")),
            ("g?y#s", Split(nil, path: "g", query: "y", fragment: "s")), (";x", Split(nil, path: ";x")),
            ("g;x?y#s", Split(nil, path: "g;x", query: "y", fragment: "s")), ("", Split(nil)),
            (".", Split(nil, path: ".")), ("../g", Split(nil, path: "../g")), ("a/b:c", Split(nil, path: "a/b:c")),
            ("?", Split(nil, query: "")), ("#", Split(nil, fragment: "")),
            ("a?b#c?d#e", Split(nil, path: "a", query: "b", fragment: "c?d#e")),
            // A first segment with a colon reads as a scheme (§4.2): why callers prepend `//` or `https://`.
            ("example.com:8080", Split("example.com", path: "8080")),
            ("//h:1/p", Split(nil, host: "h", port: 1, path: "/p")),
        ])
    func relativeReferences(_ text: String, _ expected: Split) throws {
        #expect(Split(try URIReference(text)) == expected)
    }

    @Test(
        "authorities: empty hosts, userinfo up to the last @, IP literals kept in brackets, an empty port",
        arguments: [
            ("file:///etc/hosts", Split("file", host: "", path: "/etc/hosts")),
            ("http://", Split("http", host: "")),
            ("http://?q", Split("http", host: "", query: "q")),
            ("https://user:pw@h.example/x", Split("https", user: "user:pw", host: "h.example", path: "/x")),
            ("https://a@b@h.example", Split("https", user: "a@b", host: "h.example")),
            ("https://@h.example", Split("https", user: "", host: "h.example")),
            ("https://h.example:/x", Split("https", host: "h.example", path: "/x")),
            ("HTTPS://H.Example", Split("HTTPS", host: "H.Example")),
            ("https://[::1]:8080/p", Split("https", host: "[::1]", port: 8080, path: "/p")),
            ("https://[::1]", Split("https", host: "[::1]")),
            ("https://[::1]:", Split("https", host: "[::1]")),
            ("https://[1:2:3:4:5:6:7:8]", Split("https", host: "[1:2:3:4:5:6:7:8]")),
            ("https://[1:2:3:4:5:6:7::]", Split("https", host: "[1:2:3:4:5:6:7::]")),
            ("https://[::ffff:192.0.2.1]", Split("https", host: "[::ffff:192.0.2.1]")),
            ("https://[1:2:3:4:5:6:1.2.3.4]", Split("https", host: "[1:2:3:4:5:6:1.2.3.4]")),
            ("https://[FE80::A:b]", Split("https", host: "[FE80::A:b]")),
            ("https://[::]", Split("https", host: "[::]")),
            ("https://[v7.fe80::1+x]:1", Split("https", host: "[v7.fe80::1+x]", port: 1)),
            ("https://bücher.example/ä b", Split("https", host: "bücher.example", path: "/ä b")),
        ])
    func authorities(_ text: String, _ expected: Split) throws {
        #expect(Split(try URIReference(text)) == expected)
    }

    @Test(
        "ports are decimal digits up to 65535",
        arguments: [("0", UInt16(0)), ("1", 1), ("65535", 65535), ("00080", 80), ("443", 443)])
    func validPorts(_ port: String, _ expected: UInt16) throws {
        #expect(try URIReference("https://h.example:\(port)/").port == expected)
        #expect(try URIReference("https://[::1]:\(port)/").port == expected)
    }

    @Test(
        "a port that is not digits, or above 65535, is refused with the text after the host",
        arguments: ["65536", "99999999999999999999", "+80", "-1", "8o", "80 ", " 80", "٣", "1:2", "0x50"])
    func invalidPorts(_ port: String) {
        #expect(throws: URIReference.Failure.invalidPort(":" + port)) { try URIReference("https://h.example:\(port)/") }
        #expect(throws: URIReference.Failure.invalidPort(":" + port)) { try URIReference("//[::1]:\(port)") }
    }

    @Test(
        "bracketed hosts must be IPv6 addresses or IPvFuture",
        arguments: [
            "[]", "[::1", "[1::2::3]", "[12345::]", "[:1]", "[1:]", "[1:2:3:4:5:6:7:8:9]", "[1:2:3:4:5:6:7::8]",
            "[1:2:3:4:5:6:7]", "[::256.0.0.1]", "[::1.2.3]", "[::01.2.3.4]", "[1.2.3.4::]", "[g::1]", "[v.x]",
            "[v1.]", "[vz.x]", "[v1.a%b]", "[::1%25eth0]", "[ ::1]", "[1:2:3:4:5:6:7:1.2.3.4]",
        ])
    func invalidIPLiterals(_ host: String) {
        #expect(throws: URIReference.Failure.invalidHost(host)) { try URIReference("https://\(host)/x") }
    }

    @Test("text after an IP literal that is not a port is refused")
    func afterIPLiteral() {
        #expect(throws: URIReference.Failure.invalidPort("x")) { try URIReference("https://[::1]x/") }
        #expect(throws: URIReference.Failure.invalidPort("]")) { try URIReference("https://[::1]]") }
    }

    @Test(
        "a scheme must start with a letter and hold only letters, digits, +, - and .",
        arguments: ["1a", "a b", "é", "a_b"])
    func invalidSchemes(_ scheme: String) {
        #expect(throws: URIReference.Failure.invalidScheme(scheme)) { try URIReference("\(scheme)://h/") }
    }

    @Test("valid schemes keep their case", arguments: ["a", "A1", "svn+ssh", "x-y.z", "HTTPS"])
    func validSchemes(_ scheme: String) throws {
        #expect(try URIReference("\(scheme)://h/").scheme == scheme)
    }

    @Test("percent signs are left as they are; percentDecoded decodes them")
    func percentSigns() throws {
        let uri = try URIReference("https://ex%41mple.com/a%20b%2Fc?q=%26#%23")
        #expect(
            Split(uri) == Split("https", host: "ex%41mple.com", path: "/a%20b%2Fc", query: "q=%26", fragment: "%23"))
        #expect(URIReference.percentDecoded(uri.host!) == "exAmple.com")
        #expect(URIReference.percentDecoded(uri.path) == "/a b/c")
        #expect(URIReference.percentDecoded("%C3%a9%25") == "é%")
        #expect(URIReference.percentDecoded("plain") == "plain")
        #expect(URIReference.percentDecoded("") == "")
    }

    @Test(
        "percentDecoded refuses a malformed escape or bytes that are not UTF-8",
        arguments: ["%", "%4", "%zz", "a%g1", "%FF", "%C3", "%ED%A0%80"])
    func percentDecodedRefuses(_ text: String) {
        #expect(URIReference.percentDecoded(text) == nil)
    }

    @Test(
        "percentEncoded(for: .path) encodes every byte that is not pchar or /, and the split then decode gives the path back",
        arguments: [
            ("/a?b", "/a%3Fb"), ("/a#b", "/a%23b"), ("/100%", "/100%25"), ("/a b", "/a%20b"),
            ("/ä/✓", "/%C3%A4/%E2%9C%93"), ("/𝄞", "/%F0%9D%84%9E"), ("/%41", "/%2541"),
            ("/;x=1+2,a:b@c!$&'()*~-._", "/;x=1+2,a:b@c!$&'()*~-._"), ("/a/../b/./c//", "/a/../b/./c//"),
            ("/[x]\"<>\\^`{|}", "/%5Bx%5D%22%3C%3E%5C%5E%60%7B%7C%7D"), ("/tab\tnl\n", "/tab%09nl%0A"), ("", ""),
            ("relative:x", "relative:x"),
        ])
    func percentEncodedPath(_ path: String, _ encoded: String) throws {
        #expect(URIReference.percentEncoded(path, for: .path) == encoded)
        let uri = try URIReference(
            "https://h.example" + (encoded.hasPrefix("/") || encoded.isEmpty ? "" : "/") + encoded)
        #expect(uri.query == nil && uri.fragment == nil)
        #expect(URIReference.percentDecoded(uri.path) == (path.hasPrefix("/") || path.isEmpty ? path : "/" + path))
    }

    @Test(
        "percentEncoded(for: .host) keeps IP literals, reg-name characters and ucschar, and encodes the rest",
        arguments: [
            ("h.example", "h.example"), ("192.0.2.1", "192.0.2.1"), ("[::1]", "[::1]"), ("[FE80::A:b]", "[FE80::A:b]"),
            ("[v7.fe80::1+x]", "[v7.fe80::1+x]"), ("bücher.example", "bücher.example"),
            ("a!$&'()*+,;=~_-.", "a!$&'()*+,;=~_-."),
            ("sp ace.example", "sp%20ace.example"), ("a:b", "a%3Ab"), ("a/b?c#d@e", "a%2Fb%3Fc%23d%40e"),
            ("100%", "100%25"), ("[::1", "%5B%3A%3A1"), ("[::1]x", "%5B%3A%3A1%5Dx"), ("[nope]", "%5Bnope%5D"),
            ("\u{E000}x", "%EE%80%80x"), ("\u{85}\u{FFFE}", "%C2%85%EF%BF%BE"), ("a|b<c>", "a%7Cb%3Cc%3E"),
        ])
    func percentEncodedHost(_ host: String, _ encoded: String) throws {
        #expect(URIReference.percentEncoded(host, for: .host) == encoded)
        #expect(URIReference.isHost(encoded))
        let uri = try URIReference("https://" + encoded + ":8443/")
        #expect(uri.host == encoded)
        #expect(uri.port == 8443)
        #expect(URIReference.percentDecoded(uri.host!) == host)
    }

    @Test(
        "isHost accepts IP literals and reg-names (with escapes and non-ASCII letters), and nothing else",
        arguments: [
            ("h.example", true), ("", true), ("[::1]", true), ("[v1.x]", true), ("sp%20ace.example", true),
            ("ex%41mple.com", true), ("bücher.example", true), ("日本.example", true), ("a_b~c", true),
            ("sp ace.example", false), ("a\"b", false), ("a<b", false), ("a>b", false), ("a\\b", false),
            ("a^b", false), ("a`b", false), ("a{b", false), ("a|b", false), ("a}b", false), ("a\u{7F}b", false),
            ("a\tb", false), ("a\u{85}b", false), ("a\u{E000}b", false), ("a\u{FFFF}b", false), ("a%", false),
            ("a%4", false), ("a%zz", false), ("a%4g", false), ("[::1", false), ("[nope]", false), ("a:b", false),
            ("a[b", false), ("\u{A0}", true),
        ])
    func isHost(_ host: String, _ valid: Bool) {
        #expect(URIReference.isHost(host) == valid)
    }

    @Test("url(scheme:host:port:path:) encodes the host and path and splits back into the same values")
    func url() throws {
        #expect(
            URIReference.url(scheme: "https", host: "q.example", port: 8443, path: "/a?b")
                == "https://q.example:8443/a%3Fb")
        #expect(URIReference.url(scheme: "ftp", host: "[::1]", port: nil, path: "") == "ftp://[::1]/")
        #expect(URIReference.url(scheme: "http", host: "h", port: nil, path: "x y") == "http://h/x%20y")
        let uri = try URIReference(URIReference.url(scheme: "https", host: "sp ace:1", port: 1, path: "/#%?"))
        #expect(Split(uri) == Split("https", host: "sp%20ace%3A1", port: 1, path: "/%23%25%3F"))
    }
}
