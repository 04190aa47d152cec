import Testing

@testable import KeychainCore

/// The shared sealed-row primitives (issue 23 item 1) produce the bytes keychains already on disk hold: each
/// expectation is built here from the layout in docs/RECORD-FORMAT.md, "Associated data and row tags", not from
/// the code under test.
@Suite("One sealed-row core: associated data and row tags as stored")
struct SealedRowCoreTests {
    static let keychainID: [UInt8] = Array(repeating: 0x4B, count: 16)

    static func be64(_ value: Int64) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
    static func be32(_ value: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(value).bigEndian, Array.init) }

    @Test(
        "A Secret Service item's associated data: swkc.ss.v1, part, keychain id, number, and the set digest for its metadata only"
    )
    func secretServiceAssociatedData() {
        let set: [UInt8] = Array(repeating: 0xEE, count: 32)
        let metadata = AssociatedData.bytes(
            .secretService, .attributes, keychainID: Self.keychainID,
            [
                .number(258), .digest(set),
            ])
        #expect(metadata == Array("swkc.ss.v1".utf8) + [2] + Self.keychainID + Self.be64(258) + set)
        var key = AssociatedData.bytes(.secretService, .key, keychainID: Self.keychainID, [.number(258)])
        #expect(key == Array("swkc.ss.v1".utf8) + [1] + Self.keychainID + Self.be64(258))
        AssociatedData.relabel(&key, .secretService, as: .secret)
        #expect(key == Array("swkc.ss.v1".utf8) + [3] + Self.keychainID + Self.be64(258))
    }

    @Test(
        "A SecItem row's associated data: swkc.item.v1, part, keychain id, persistref, class, pdmn, sync, four digests")
    func itemAssociatedData() {
        let reference = Array("genp".utf8) + Array(repeating: 9, count: 16)
        let digests = (0..<4).map { Array(repeating: UInt8($0), count: 16) }
        var ad = AssociatedData.bytes(
            .item, .key, keychainID: Self.keychainID,
            [
                .persistentRef(reference), .code(1), .code(ProtectionClass.afterFirstUnlock.code), .flag(true),
            ] + digests.map { .digest($0) })
        let tail = reference + [1, UInt8(ProtectionClass.afterFirstUnlock.code), 1] + digests.joined()
        #expect(ad == Array("swkc.item.v1".utf8) + [1] + Self.keychainID + tail)
        AssociatedData.relabel(&ad, .item, as: .attributes)
        #expect(ad == Array("swkc.item.v1".utf8) + [2] + Self.keychainID + tail)
    }

    @Test("The row tag is keyed BLAKE2b of the label, the fixed integers, then each column's length and bytes")
    func rowTag() {
        let key = SecureBytes(copying: Array(repeating: 0x11, count: 32))
        let columns: [SQLValue] = [.blob([1, 2, 3]), .integer(7), .null, .text("ab")]
        let message =
            Array("swkc.ss.row.v1".utf8) + Self.be64(5) + Self.be64(9) + Self.be32(3) + [1, 2, 3] + Self.be32(8)
            + Self.be64(7) + Self.be32(0) + Self.be32(2) + Array("ab".utf8)
        let tag = RowTag.tag(label: Array("swkc.ss.row.v1".utf8), key: key, integers: [5, 9], columns: columns)
        #expect(tag == Sodium.keyedHash(message, key: key, length: 32))
        #expect(tag != RowTag.tag(label: Array("swkc.ss.row.v1".utf8), key: key, integers: [5, 10], columns: columns))
    }
}
