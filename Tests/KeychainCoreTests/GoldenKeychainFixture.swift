import Foundation

@testable import KeychainCore

/// The golden keychains in `Fixtures/golden-v2/` (issue 13): files written by this format (schema
/// version 2, item records), with a fixed device key, that every later build must read back unchanged.
///
/// How they were made: `SWKC_WRITE_GOLDEN=1 swift test --filter GoldenKeychainTests` runs
/// ``GoldenKeychainTests/writeFixture()``, which writes ``deviceKey`` to `device.key`, creates
/// `login.keychain-db` (no password) and `protected.keychain-db` (password ``password``, Argon2id
/// ``KDFParameters/testing``) next to it, and adds ``items`` and ``protectedItems`` in order with
/// `StoreSession.add(_:attributes:secret:now:)` at ``created``. Remaking them changes every byte (fresh
/// keys, salts and nonces) but not what they hold; do it only on purpose, for a new format version.
enum GoldenKeychainFixture {
    /// The folder holding the keychains and `device.key`.
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/golden-v2")

    /// The device key the fixtures were made with: bytes 32, 33, …, 63. Test-only.
    static let deviceKey: [UInt8] = Array(32..<64)

    /// The password of `protected.keychain-db`.
    static let password = "golden fixture password"

    /// `cdat` and `mdat` of every item: 2026-12-01 00:00:00 UTC.
    static let created = AbsoluteTime(secondsSince1970: 1_796_169_600)

    struct Item {
        let itemClass: ItemClass
        let attributes: [String: AttributeValue]
        let secret: [UInt8]
    }

    /// The items of `login.keychain-db`: every item class and the six protection classes a keychain
    /// without a password can hold, and every value type an item record carries.
    static let items: [Item] = [
        Item(
            itemClass: .genericPassword,
            attributes: [
                "svce": .string("com.example.mail"), "acct": .string("alice@example.com"), "agrp": .string("team.mail"),
                "pdmn": .string("ak"), "labl": .string("Mail (Alice)"), "desc": .string("application password"),
                "icmt": .string("a comment with ünïcödé ✓"), "crtr": .integer(0x6170_706C), "type": .integer(-7),
                "invi": .bool(true), "nega": .bool(false), "gena": .data([0, 1, 2, 254, 255]),
            ],
            secret: Array("correct horse battery staple".utf8)),
        Item(
            itemClass: .genericPassword,
            attributes: [
                "svce": .string("com.example.mail"), "acct": .data(Array("bob".utf8)), "agrp": .string("team.mail"),
                "pdmn": .string("ck"), "sync": .bool(true),
            ],
            secret: Array("bob's secret".utf8)),
        Item(
            itemClass: .genericPassword,
            attributes: [
                "svce": .string("device-id"), "acct": .string(""), "agrp": .string("unsigned"), "pdmn": .string("dku"),
            ],
            secret: Array("3F2504E0-4F89-11D3-9A0C-0305E82C3301".utf8)),
        Item(
            itemClass: .genericPassword,
            attributes: [
                "svce": .string("token"), "acct": .string("ci"), "agrp": .string("unsigned"), "pdmn": .string("aku"),
                "labl": .data(Array("label as data".utf8)),
            ],
            secret: Array(repeating: UInt8(ascii: "x"), count: 3000)),
        Item(
            itemClass: .internetPassword,
            attributes: [
                "srvr": .string("git.example.com"), "acct": .string("carol"), "agrp": .string("unsigned"),
                "pdmn": .string("dk"), "ptcl": .string("htps"), "port": .integer(8443), "path": .string("/repo.git"),
                "sdmn": .string("realm"), "atyp": .string("dflt"), "labl": .string("git.example.com (carol)"),
            ],
            secret: Array("ghp_exampletoken".utf8)),
        Item(
            itemClass: .internetPassword,
            attributes: [
                "srvr": .string("registry.example.com"), "acct": .string("dave"), "agrp": .string("unsigned"),
                "pdmn": .string("cku"), "ptcl": .string("htps"),
            ],
            secret: []),
        Item(
            itemClass: .key,
            attributes: [
                "kcls": .integer(1), "klbl": .data(Array((0..<20).map { UInt8($0 * 3) })),
                "atag": .data(Array("com.example.signing".utf8)), "type": .integer(73), "bsiz": .integer(256),
                "esiz": .integer(256), "agrp": .string("unsigned"), "pdmn": .string("aku"),
                "labl": .string("signing key"),
                "perm": .bool(true), "sign": .bool(true), "decr": .bool(false),
                "sdat": .date(AbsoluteTime(secondsSince1970: 0)),
            ],
            secret: Array(1...32)),
        Item(
            itemClass: .certificate,
            attributes: [
                "ctyp": .integer(3), "cenc": .integer(3), "issr": .data(Array("issuer DER".utf8)),
                "slnr": .data([0x01, 0x23, 0x45, 0x67]), "subj": .data(Array("subject DER".utf8)),
                "skid": .data([9, 8, 7]), "pkhh": .data(Array((0..<20).map { UInt8($0 * 3) })),
                "agrp": .string("unsigned"), "labl": .string("example certificate"),
            ],
            secret: Array("certificate DER bytes".utf8)),
    ]

    /// The items of `protected.keychain-db`: the class only a keychain with a password holds, and one
    /// of each other kind of key the password wraps.
    static let protectedItems: [Item] = [
        Item(
            itemClass: .genericPassword,
            attributes: [
                "svce": .string("vault"), "acct": .string("erin"), "agrp": .string("unsigned"), "pdmn": .string("akpu"),
            ],
            secret: Array("passcode-bound".utf8)),
        Item(
            itemClass: .genericPassword,
            attributes: [
                "svce": .string("vault"), "acct": .string("frank"), "agrp": .string("unsigned"), "pdmn": .string("ak"),
            ],
            secret: Array("unlocked-only".utf8)),
        Item(
            itemClass: .internetPassword,
            attributes: [
                "srvr": .string("vault.example.com"), "acct": .string("gina"), "agrp": .string("unsigned"),
                "pdmn": .string("dk"), "port": .integer(443),
            ],
            secret: Array("always".utf8)),
    ]

    /// The attributes an item reads back with: what was added, plus the defaults
    /// `StoreSession.normalized` fills and the dates.
    static func expectedAttributes(_ item: Item) -> [String: AttributeValue] {
        var attributes = StoreSession.normalized(item.itemClass, item.attributes)
        attributes["cdat"] = .date(created)
        attributes["mdat"] = .date(created)
        return attributes
    }
}
