import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// The typed values requests are parsed into once (docs/APPLE-SEMANTICS.md rules 4, 5, 11 and 12).
@Suite("Typed request values: match limit, synchronizable, protection class, attribute names")
struct TypedRequestValuesTests {
    @Test("rules 4 and 5: kSecMatchLimitOne (or 1) returns one object; All and numbers above 1 return arrays")
    func matchLimit() {
        #expect(MatchLimit(count: 1) == .one)
        #expect(MatchLimit(count: 3) == .count(3))
        #expect(MatchLimit.one.maximum == 1 && !MatchLimit.one.returnsArray)
        #expect(MatchLimit.all.maximum == nil && MatchLimit.all.returnsArray)
        #expect(MatchLimit.count(3).maximum == 3 && MatchLimit.count(3).returnsArray)
    }

    @Test("rule 11: no and yes filter, any removes the filter, and an add stores any as not synchronizable")
    func synchronizable() throws {
        let keychain = try TemporaryKeychain()
        let keystore = try keychain.open()
        for (account, flag) in [("local", false), ("synced", true)] {
            var attributes = genericItem("svc", account, .whenUnlocked)
            attributes[.synchronizable] = .bool(flag)
            _ = try keystore.add(.genericPassword, attributes: attributes, secret: secret(account))
        }
        func accounts(_ synchronizable: Synchronizable) throws -> Set<String> {
            let query = ItemQuery(itemClass: .genericPassword, scope: .all, synchronizable: synchronizable)
            return Set(
                try keystore.search(query, projection: .attributes).compactMap { $0.attributes.string(.account) })
        }
        #expect(ItemQuery(itemClass: .genericPassword, scope: .all).synchronizable == .no)
        #expect(try accounts(.no) == ["local"])
        #expect(try accounts(.yes) == ["synced"])
        #expect(try accounts(.any) == ["local", "synced"])
        #expect(Synchronizable(true) == .yes && Synchronizable(false) == .no)
        #expect(Synchronizable.yes.attribute == .bool(true))
        #expect(Synchronizable.any.attribute == .bool(false))
    }

    /// SecItem.h's `kSecAttrAccessible…` raw values (the `pdmn` strings).
    static let appleRawValues: [(String, ProtectionClass)] = [
        ("ak", .whenUnlocked), ("ck", .afterFirstUnlock), ("dk", .always), ("aku", .whenUnlockedThisDeviceOnly),
        ("cku", .afterFirstUnlockThisDeviceOnly), ("dku", .alwaysThisDeviceOnly),
        ("akpu", .whenPasscodeSetThisDeviceOnly),
    ]

    @Test("rule 12: the one pdmn parser accepts Apple's raw values only", arguments: appleRawValues)
    func protection(_ raw: String, _ protection: ProtectionClass) {
        #expect(ProtectionClass(attribute: .string(raw)) == protection)
        #expect(protection.attribute == .string(raw))
        #expect(ProtectionClass(attribute: .data(Array(raw.utf8))) == nil)
    }

    @Test("an unknown or missing protection class is no class")
    func unknownProtection() {
        #expect(ProtectionClass(attribute: .string("akx")) == nil)
        #expect(ProtectionClass(attribute: .integer(1)) == nil)
        #expect(ProtectionClass(attribute: nil) == nil)
    }

    @Test("attribute names are Apple's raw keys, read and written through the typed subscript")
    func attributeNames() {
        var attributes: [String: AttributeValue] = ["acct": .string("me")]
        #expect(attributes[.account] == .string("me"))
        attributes[.service] = .string("s")
        #expect(attributes["svce"] == .string("s"))
        #expect(attributes.string(.service) == "s")
        #expect(attributes.removeValue(for: .account) == .string("me"))
        #expect([String: AttributeValue](named: [.accessGroup: .string("g")]) == ["agrp": .string("g")])
        #expect(AttributeName.protocol.rawValue == "ptcl" && AttributeName.accessible.rawValue == "pdmn")
    }
}
