import Foundation
import Testing

@testable import KeychainCore

/// The portable payload (docs/SYNC.md, "Payload"): round trip, and every malformed form refused.
@Suite("Sync payload format")
struct SyncPayloadTests {
    let ancestor = SyncClock(milliseconds: 42, counter: 1, device: SyncDeviceID(bytes: Array(repeating: 7, count: 16))!)

    func encoded(secret value: SecureBytes? = secret("pw")) throws -> [UInt8] {
        try SyncPayload.encode(.genericPassword, attributes: syncItem("svc", "a"), secret: value, ancestors: [ancestor])
            .unprotectedCopy
    }

    @Test("a payload decodes to the item's class, attributes, secret and ancestors")
    func roundTrip() throws {
        let bytes = try encoded()
        #expect(Array(bytes[0..<3]) == [1, 1, 1])
        let content = try SyncPayload.decode(SecureBytes(copying: bytes))
        #expect(content.itemClass == .genericPassword)
        #expect(content.ancestors == [ancestor])
        #expect(content.attributes["svce"] == .string("svc"))
        #expect(content.attributes["sync"] == .bool(true))
        #expect(content.secret?.unprotectedCopy == Array("pw".utf8))
        let none = try SyncPayload.decode(SecureBytes(copying: try encoded(secret: nil)))
        #expect(none.secret == nil)
    }

    @Test("a truncated, extended, unknown-version or unknown-class payload is errSecDecode")
    func malformed() throws {
        let bytes = try encoded()
        var cases: [[UInt8]] = [[], Array(bytes.dropLast()), bytes + [0]]
        var version = bytes
        version[0] = 2
        var itemClass = bytes
        itemClass[1] = 9
        var count = bytes
        count[2] = 17
        cases += [version, itemClass, count]
        for prefix in stride(from: 0, to: bytes.count, by: 7) { cases.append(Array(bytes.prefix(prefix))) }
        for bad in cases {
            let failure = #expect(throws: KeychainFailure.self) {
                _ = try SyncPayload.decode(SecureBytes(copying: bad))
            }
            #expect(failure?.status == .decode)
            #expect(failure?.description.contains("pw") == false)
        }
    }

    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus/syncpayload")

    @Test("the committed seeds, written from docs/SYNC.md by an independent encoder, decode and encode byte for byte")
    func golden() throws {
        let bytes = Array(try Data(contentsOf: Self.corpus.appendingPathComponent("seed-genp.bin")))
        let content = try SyncPayload.decode(SecureBytes(copying: bytes))
        let device = SyncDeviceID(bytes: Array(repeating: 7, count: 16))!
        #expect(content.ancestors == [SyncClock(milliseconds: 1_700_000_000_000, counter: 3, device: device)])
        #expect(content.attributes["acct"] == .string("alice"))
        #expect(content.attributes["svce"] == .string("mail"))
        #expect(content.attributes["agrp"] == .string("unsigned"))
        #expect(content.secret?.unprotectedCopy == Array("hunter2".utf8))
        let again = try SyncPayload.encode(
            .genericPassword,
            attributes: [
                "agrp": .string("unsigned"), "sync": .bool(true), "pdmn": .string("ak"), "acct": .string("alice"),
                "svce": .string("mail"),
            ], secret: secret("hunter2"), ancestors: content.ancestors)
        #expect(again.unprotectedCopy == bytes)
        let expected: [String: Bool] = [
            "seed-genp.bin": true, "seed-inet-no-secret.bin": true, "thisdeviceonly.bin": false,
            "not-synchronizable.bin": false, "too-many-ancestors.bin": false, "truncated.bin": false,
            "trailing.bin": false, "huge-length.bin": false, "seed-secret-item.bin": true,
            "secret-item-unsorted.bin": false,
        ]
        for (name, wellFormed) in expected {
            let seed = Array(try Data(contentsOf: Self.corpus.appendingPathComponent(name)))
            #expect(SyncPayloadParser.parse(seed) == wellFormed, "\(name)")
        }
    }

    @Test(
        "the committed Secret Service seed (kind 5), written from docs/SYNC.md by an independent encoder, decodes and encodes byte for byte"
    )
    func goldenSecretItem() throws {
        let bytes = Array(try Data(contentsOf: Self.corpus.appendingPathComponent("seed-secret-item.bin")))
        guard case .secretItem(let content) = try SyncPayload.decodeAny(SecureBytes(copying: bytes)) else {
            Issue.record("the seed is not a Secret Service payload")
            return
        }
        let device = SyncDeviceID(bytes: Array(repeating: 7, count: 16))!
        #expect(content.ancestors == [SyncClock(milliseconds: 1_700_000_000_000, counter: 3, device: device)])
        let item = SecretItem(
            number: 0, label: "Chromium Safe Storage",
            attributes: ["application": "chromium", "xdg:schema": "chrome_libsecret_os_crypt_password_v2"],
            created: 1_700_000_000, modified: 1_700_000_100, access: SecretItemAccess(owner: "exe:/usr/bin/chromium"))
        #expect(content.item == item)
        #expect(content.secret.contentType == "text/plain; charset=utf8")
        #expect(content.secret.value.unprotectedCopy == Array("hunter2".utf8))
        let again = SyncPayload.encodeSecretItem(
            item, SecretItemSecret(value: secret("hunter2"), contentType: "text/plain; charset=utf8"),
            ancestors: content.ancestors)
        #expect(again.unprotectedCopy == bytes)
    }
}
