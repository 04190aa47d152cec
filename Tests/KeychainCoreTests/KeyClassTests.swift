import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// The key and certificate classes in the engine (tracker issue 18): Apple's primary keys
/// (APPLE-SEMANTICS.md rule 3), defaults (rule 12), persistent references, index columns.
@Suite("Engine: key and certificate classes")
struct KeyClassTests {
    static let label = AttributeValue.data(Data(repeating: 0xAB, count: 20))

    @Test("classes have Apple's raw names and primary keys; every class has a distinct stored code")
    func schema() {
        #expect(ItemClass.key.rawValue == "keys")
        #expect(ItemClass.certificate.rawValue == "cert")
        #expect(
            ItemClass.key.primaryKey.map(\.name)
                == ["agrp", "sync", "kcls", "klbl", "atag", "crtr", "type", "bsiz", "esiz", "sdat", "edat"])
        #expect(ItemClass.certificate.primaryKey.map(\.name) == ["agrp", "sync", "ctyp", "issr", "slnr"])
        // The password classes keep their primary keys (and so their digests) unchanged.
        #expect(ItemClass.genericPassword.primaryKey.map(\.name) == ["agrp", "sync", "acct", "svce"])
        #expect(Set(ItemClass.allCases.map(ItemRow.code)).count == ItemClass.allCases.count)
        for itemClass in ItemClass.allCases { #expect(ItemRow.itemClass(code: ItemRow.code(itemClass)) == itemClass) }
        #expect(ItemClass.key.descriptor("svce") == nil)
        #expect(ItemClass.certificate.descriptor("klbl") == nil)
    }

    @Test(
        "defaults: keys WhenUnlocked, certificates Always; missing key attributes get zero values; refs carry the class"
    )
    func defaults() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        let keyRef = try keystore.add(
            .key, attributes: ["agrp": .string("g"), "klbl": Self.label, "kcls": .integer(1)], secret: secret("k"))
        let certRef = try keystore.add(
            .certificate, attributes: ["agrp": .string("g"), "issr": .data(Data([1])), "slnr": .data(Data([2]))],
            secret: secret("c"))
        #expect(Array(keyRef.prefix(4)) == Array("keys".utf8))
        #expect(Array(certRef.prefix(4)) == Array("cert".utf8))
        let key = try #require(
            keystore.search(
                ItemQuery(itemClass: .key, filters: ["klbl": Self.label], scope: .all), projection: .attributes
            ).first)
        #expect(key.protection == .whenUnlocked)
        #expect(key.attributes["bsiz"] == .integer(0))
        #expect(key.attributes["sdat"] == .date(Date(timeIntervalSinceReferenceDate: 0)))
        #expect(key.attributes["atag"] == .string(""))
        let cert = try #require(
            keystore.search(
                ItemQuery(itemClass: .certificate, filters: ["slnr": .data(Data([2]))], scope: .all),
                projection: .attributes
            )
            .first)
        #expect(cert.protection == .always)
        #expect(cert.attributes["ctyp"] == .integer(0))
        // Uniqueness on the primary key only: a new label is still a duplicate, another tag is not.
        #expect(throws: KeychainFailure.self) {
            try keystore.add(
                .key,
                attributes: ["agrp": .string("g"), "klbl": Self.label, "kcls": .integer(1), "labl": .string("x")],
                secret: nil)
        }
        _ = try keystore.add(
            .key, attributes: ["agrp": .string("g"), "klbl": Self.label, "kcls": .integer(1), "atag": .string("t")],
            secret: nil)
        #expect(
            try keystore.search(ItemQuery(itemClass: .key, filters: ["klbl": Self.label], scope: .all), projection: [])
                .count == 2)
        #expect(
            try keystore.search(
                ItemQuery(itemClass: .key, filters: ["atag": .string("t")], scope: .all), projection: []
            ).count == 1)
        // A password search never sees keys or certificates.
        #expect(try keystore.search(ItemQuery(itemClass: .genericPassword, scope: .all), projection: []).isEmpty)
        #expect(try keystore.verifyIntegrity() == 3)
    }
}
