import Foundation

@testable import KeychainCore

/// The golden keychain in `Fixtures/legacy-plist-records/` (tracker issue 15): a keychain written by
/// the build before the item record format (attributes sealed as binary property lists, schema
/// version 1), with a fixed device key, holding exactly ``items``.
///
/// It was made once with that build (commit 4b394ce) by adding ``items`` in order with
/// `StoreSession.add(_:attributes:secret:now:)` at ``created``; it cannot be remade by later builds,
/// which write the new format. Every value type the format carries appears: strings, data (an
/// account and a generic attribute given as `Data`), integers, booleans and dates, in both classes
/// and six protection classes (WhenPasscodeSet needs a password and is left out).
enum LegacyKeychainFixture {
    /// The folder holding `login.keychain-db` and `device.key`.
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/legacy-plist-records")

    /// The device key the fixture was made with: bytes 0, 1, …, 31.
    static let deviceKey: [UInt8] = Array(0..<32)

    /// `cdat` and `mdat` of every item: 2026-11-30 00:00:00 UTC.
    static let created = AbsoluteTime(secondsSince1970: 1_796_083_200)

    struct Item {
        let itemClass: ItemClass
        let attributes: [String: AttributeValue]
        let secret: String
    }

    static let items: [Item] = [
        Item(
            itemClass: .genericPassword,
            attributes: [
                "svce": .string("com.example.mail"), "acct": .string("alice@example.com"), "agrp": .string("team.mail"),
                "pdmn": .string("ak"), "labl": .string("Mail (Alice)"), "desc": .string("application password"),
                "icmt": .string("a comment with ünïcödé ✓"), "crtr": .integer(0x6170_706C), "type": .integer(-7),
                "invi": .bool(true), "nega": .bool(false), "gena": .data([0, 1, 2, 254, 255]),
            ],
            secret: "correct horse battery staple"),
        Item(
            itemClass: .genericPassword,
            attributes: [
                "svce": .string("com.example.mail"), "acct": .data(Array("bob".utf8)), "agrp": .string("team.mail"),
                "pdmn": .string("ck"), "sync": .bool(false),
            ],
            secret: "bob's secret"),
        Item(
            itemClass: .genericPassword,
            attributes: [
                "svce": .string("device-id"), "acct": .string(""), "agrp": .string("unsigned"), "pdmn": .string("dku"),
            ],
            secret: "3F2504E0-4F89-11D3-9A0C-0305E82C3301"),
        Item(
            itemClass: .genericPassword,
            attributes: [
                "svce": .string("token"), "acct": .string("ci"), "agrp": .string("unsigned"), "pdmn": .string("aku"),
                "labl": .data(Array("label as data".utf8)),
            ],
            secret: String(repeating: "x", count: 3000)),
        Item(
            itemClass: .internetPassword,
            attributes: [
                "srvr": .string("git.example.com"), "acct": .string("carol"), "agrp": .string("unsigned"),
                "pdmn": .string("dk"), "ptcl": .string("htps"), "port": .integer(8443), "path": .string("/repo.git"),
                "sdmn": .string("realm"), "atyp": .string("dflt"), "labl": .string("git.example.com (carol)"),
            ],
            secret: "ghp_exampletoken"),
        Item(
            itemClass: .internetPassword,
            attributes: [
                "srvr": .string("registry.example.com"), "acct": .string("dave"), "agrp": .string("unsigned"),
                "pdmn": .string("cku"), "ptcl": .string("htps"),
            ],
            secret: ""),
    ]

    /// The attributes an item of ``items`` reads back with: what was added, plus the defaults
    /// `StoreSession.normalized` fills and the dates.
    static func expectedAttributes(_ item: Item) -> [String: AttributeValue] {
        var attributes = StoreSession.normalized(item.itemClass, item.attributes)
        attributes["cdat"] = .date(created)
        attributes["mdat"] = .date(created)
        return attributes
    }
}
