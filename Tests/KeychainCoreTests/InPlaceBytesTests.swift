import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// The bytes a durable `SecItemUpdate` writes without intermediate arrays (tracker issue 29, item 1): each
/// is compared with the way it replaces (the digests' messages, the row tag's message, the accumulator's
/// delta, the bound values of a statement run).
@Suite("Bytes written in place")
struct InPlaceBytesTests {
    static let values: [AttributeValue] = [
        .string(""), .string("service"), .string("hé ☃"), .data([]), .data([0, 1, 2, 255]), .integer(-2),
        .integer(1 << 40),
        .bool(true), .bool(false), .date(AbsoluteTime(secondsSinceReferenceDate: 12.5)),
    ]

    @Test("a value's match bytes written in a buffer are the bytes appended to an array")
    func writtenMatchBytes() {
        for value in Self.values {
            var written = [UInt8](repeating: 0xEE, count: value.matchByteCount)
            written.withUnsafeMutableBytes { value.writeMatchBytes(to: $0) }
            var appended: [UInt8] = []
            value.appendMatchBytes(to: &appended)
            #expect(written == appended, "\(value)")
            #expect(written == value.matchBytes, "\(value)")
        }
    }

    @Test("an attribute's keyed digest is BLAKE2b-128 of its name, a zero byte and its match bytes")
    func digestMessage() {
        let codec = ItemCodec(
            keychainID: Array(repeating: 7, count: 16), indexKey: IndexKey(SecureBytes.random(count: 32)))
        for value in Self.values {
            for name: AttributeName in [.service, .account, .label] {
                let message = Array(name.rawValue.utf8) + [0] + value.matchBytes
                #expect(
                    codec.digest(name, value) == Sodium.keyedHash(message, key: codec.indexKey.bytes, length: 16),
                    "\(name.rawValue) \(value)")
            }
        }
    }

    @Test("a row tag's message grows past the room it was given and hashes only what was written")
    func messageGrows() {
        let key = SecureBytes.random(count: 32)
        let label = Array("swkc.test".utf8)
        let blob = [UInt8](repeating: 5, count: 300)
        func written(room: Int) -> RowTag.Message {
            var message = RowTag.Message(label: label, columnBytes: room)
            message.appendColumn(blob)
            message.appendColumn(Int64(-1))
            return message
        }
        let expected = label + [0, 0, 1, 44] + blob + [0, 0, 0, 8] + [UInt8](repeating: 0xFF, count: 8)
        let tag = Sodium.keyedHash(expected, key: key, length: 32)
        for room in [4 + 300 + 12, 1, 0, 1_000] { #expect(written(room: room).tag(key: key) == tag, "\(room)") }
        #expect(
            RowTag.Message(label: [], columnBytes: 0).tag(key: key) == Sodium.keyedHash([UInt8](), key: key, length: 32)
        )
    }

    @Test("a SecItem row's associated data written in one buffer is the bytes its fields make, for every part")
    func associatedData() throws {
        let (sealed, _, codec, _) = try ItemRowTests.sealedRow()
        let other = ItemRow(
            rowid: 9, persistentRef: sealed.persistentRef, itemClass: .internetPassword, protection: .afterFirstUnlock,
            sync: true, digests: sealed.digests, wrappedKey: sealed.wrappedKey, attributes: sealed.attributes,
            secret: nil, tag: [])
        for row in [sealed, other] {
            for part: SealedPart in [.key, .attributes, .secret] {
                let fields = AssociatedData.bytes(
                    .item, part, keychainID: codec.keychainID,
                    [
                        .persistentRef(row.persistentRef), .code(ItemRow.code(row.itemClass)),
                        .code(row.protection.code),
                        .flag(row.sync), .digest(row.digests.accessGroup), .digest(row.digests.primaryKey),
                        .digest(row.digests.account), .digest(row.digests.name),
                    ])
                #expect(row.associatedData(part, codec: codec) == fields, "\(part)")
            }
        }
    }

    @Test("an accumulator delta is the byte-wise XOR of the two tags, as long as the shorter")
    func delta() {
        let a: [UInt8] = (0..<32).map { UInt8($0 * 7 & 0xFF) }
        let b: [UInt8] = (0..<32).map { UInt8(255 - $0) }
        #expect(IntegrityAccumulator.delta(from: a, to: b) == zip(a, b).map { $0 ^ $1 })
        #expect(IntegrityAccumulator.delta(from: a, to: Array(b.prefix(5))) == zip(a, b.prefix(5)).map { $0 ^ $1 })
        #expect(IntegrityAccumulator.delta(from: [], to: b) == [])
        #expect(IntegrityAccumulator.delta(from: a, to: a) == [UInt8](repeating: 0, count: 32))
    }

    @Test("a statement run binds each value where it is: the values stored, empty ones not NULL, and a failure")
    func runBindsInPlace() throws {
        let temp = try TemporaryKeychain()
        let keystore = try temp.open()
        let rows = try keystore.write { (s: borrowing StoreSession) throws(KeychainFailure) -> [String] in
            try s.database.execute("CREATE TEMP TABLE t (a, b, c, d)")
            let insert = try s.database.prepare("INSERT INTO t (a, b, c, d) VALUES (?, ?, ?, ?)")
            try insert.run([.blob([1, 2, 3]), .text("hé"), .integer(-7), .null])
            try insert.run([.blob([]), .text(""), .integer(0), .blob([0])])
            // Fewer values than parameters: the rest are NULL, not the last run's values.
            try insert.run([.text("only")])
            // More values than parameters: SQLITE_RANGE, and the statement is usable afterwards.
            var failed = false
            do { try insert.run([.null, .null, .null, .null, .null]) } catch { failed = true }
            try insert.run([.integer(1), .integer(2), .integer(3), .integer(4)])
            let select = try s.database.prepare(
                "SELECT quote(a) || ',' || quote(b) || ',' || quote(c) || ',' || quote(d) FROM t ORDER BY rowid")
            defer { select.finish() }
            var rows: [String] = []
            while try select.step() { rows.append(select.text(0)) }
            return rows + [failed ? "failed" : "ran"]
        }
        #expect(
            rows == [
                "X'010203','hé',-7,NULL", "X'','',0,X'00'", "'only',NULL,NULL,NULL", "1,2,3,4", "failed",
            ])
    }
}
