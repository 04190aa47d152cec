import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// The permanent numbers and orders the on-disk format is made of, written down once in `ItemRow` and
/// `KeybagEntry` (issue 13). A change to any of them would make existing keychains unreadable, so each
/// is pinned here as well as by the golden keychains (`GoldenKeychainTests`).
@Suite("Item row and keybag entries")
struct ItemRowTests {
    /// A generic password row sealed with fresh keys: the row, its attributes, its codec and class key.
    static func sealedRow() throws -> (ItemRow, [String: AttributeValue], ItemCodec, ClassKey) {
        let codec = ItemCodec(
            keychainID: Array(repeating: 7, count: 16), indexKey: IndexKey(SecureBytes.random(count: 32)))
        let classKey = ClassKey.random()
        let attributes = StoreSession.normalized(
            .genericPassword, ["svce": .string("s"), "acct": .string("a"), "agrp": .string("g")])
        let row = try ItemRow.seal(
            .genericPassword, attributes: attributes, secret: SecureBytes(copying: Array("secret".utf8)),
            persistentRef: Array("genp".utf8) + Array(repeating: 1, count: 16), protection: .whenUnlocked, sync: false,
            classKey: classKey, codec: codec)
        return (row, attributes, codec, classKey)
    }

    @Test("the row tag covers every column but rowid and tag, in the table's order")
    func taggedColumns() {
        #expect(
            ItemRow.taggedColumns.map(\.rawValue)
                == [
                    "persistref", "class", "pdmn", "sync", "agrp", "pk", "acct", "name", "wrapped_key", "attributes",
                    "secret",
                ])
        #expect(ItemRow.taggedColumns.filter(\.isInteger) == [.itemClass, .protection, .sync])
    }

    @Test("a row's tag written from its fields is the tag of its tagged values, with and without a secret read")
    func computedTagIsTheTagOfTheTaggedValues() throws {
        let (row, _, codec, _) = try Self.sealedRow()
        #expect(row.tag == codec.rowTag(row.taggedValues))
        #expect(row.computedTag(codec: codec) == codec.rowTag(row.taggedValues))
        let unread = ItemRow(
            rowid: 9, persistentRef: row.persistentRef, itemClass: .internetPassword, protection: .afterFirstUnlock,
            sync: true, digests: row.digests, wrappedKey: row.wrappedKey, attributes: row.attributes, secret: nil,
            tag: [])
        #expect(unread.computedTag(codec: codec) == codec.rowTag(unread.taggedValues))
        // The shared message: a null column and a text column as RowTag has always written them.
        let key = SecureBytes.random(count: 32)
        let label = Array("swkc.test".utf8)
        let expected: [UInt8] =
            label + [0, 0, 0, 0, 0, 0, 0, 42] + [0, 0, 0, 0] + [0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 1, 0] + [0, 0, 0, 3]
            + Array("hé".utf8) + [0, 0, 0, 1, 9]
        #expect(
            RowTag.tag(
                label: label, key: key, integers: [42], columns: [.null, .integer(256), .text("hé"), .blob([9])])
                == Sodium.keyedHash(expected, key: key, length: 32))
    }

    @Test("the insert and in-place rewrite put each tagged value in the column of its name, and the tag in tag")
    func statementsWriteTheTaggedColumns() throws {
        let folder = try TemporaryKeychain()
        let database = try Database(path: folder.directory + "/rows.db", mode: .readWriteCreate)
        try database.execute(Schema.create)
        let (row, attributes, codec, classKey) = try Self.sealedRow()
        /// The stored row, read by column name: the tagged columns in the tag's order, then the tag.
        func stored() throws -> [SQLValue] {
            let names = ItemRow.taggedColumns.map(\.rawValue) + ["tag"]
            let statement = try database.prepare("SELECT \(names.joined(separator: ", ")) FROM items")
            defer { statement.finish() }
            #expect(try statement.step())
            return ItemRow.taggedColumns.enumerated().map { index, column in
                column.isInteger ? .integer(statement.int64(Int32(index))) : .blob(statement.blob(Int32(index)))
            } + [.blob(statement.blob(Int32(names.count - 1)))]
        }
        try database.prepare(ItemRow.insertSQL).run(row.taggedValues + [.blob(row.tag)])
        #expect(try stored() == row.taggedValues + [.blob(row.tag)])
        // A rewrite keeps the persistent reference and class (its first two columns) and replaces the rest.
        let key = try #require(
            row.openItemKey(classKey: classKey, associatedData: row.associatedData(.key, codec: codec)))
        var changed = attributes
        changed["labl"] = .string("label")
        let resealed = try row.resealed(
            record: try ItemCodec.encodeAttributes(changed), secret: nil, itemKey: key, codec: codec)
        let rowid = try database.scalar("SELECT rowid FROM items")
        try database.prepare(ItemRow.rewriteSQL).run(
            Array(resealed.taggedValues.dropFirst(2)) + [.blob(resealed.tag), .integer(rowid)])
        #expect(try stored() == resealed.taggedValues + [.blob(resealed.tag)])
        #expect(try database.scalar("SELECT count(*) FROM items") == 1)
    }

    @Test("a row read in place gives the same associated data, item key, attributes and secret as ItemRow")
    func cursorReadsTheSameRow() throws {
        let folder = try TemporaryKeychain()
        let database = try Database(path: folder.directory + "/rows.db", mode: .readWriteCreate)
        try database.execute(Schema.create)
        let (row, attributes, codec, classKey) = try Self.sealedRow()
        try database.prepare(ItemRow.insertSQL).run(row.taggedValues + [.blob(row.tag)])
        for withSecret in [false, true] {
            let statement = try database.prepare(ItemRowCursor.select(withSecret: withSecret, "WHERE class = 1"))
            defer { statement.finish() }
            #expect(try statement.step())
            let cursor = try ItemRowCursor(statement)
            #expect(cursor.itemClass == .genericPassword && cursor.protection == .whenUnlocked && !cursor.sync)
            #expect(cursor.persistentRef == row.persistentRef)
            for part in [SealedPart.key, .attributes, .secret] {
                #expect(cursor.associatedData(part, codec: codec) == row.associatedData(part, codec: codec))
            }
            let key = try #require(
                cursor.openItemKey(classKey: classKey, associatedData: row.associatedData(.key, codec: codec)))
            #expect(
                cursor.openItemKey(classKey: ClassKey.random(), associatedData: row.associatedData(.key, codec: codec))
                    == nil)
            #expect(
                cursor.openAttributes(itemKey: key, associatedData: row.associatedData(.attributes, codec: codec))
                    == attributes)
            // The wrong part's associated data does not open the attributes.
            #expect(
                cursor.openAttributes(itemKey: key, associatedData: row.associatedData(.secret, codec: codec)) == nil)
            if withSecret {
                let secret = try #require(
                    cursor.openSecret(itemKey: key, associatedData: row.associatedData(.secret, codec: codec)))
                #expect(secret.withUnsafeBytes { Array($0) } == Array("secret".utf8))
            }
        }
    }

    @Test("class codes are 1 genp, 2 inet, 3 keys, 4 cert; other codes are no class")
    func classCodes() {
        #expect(ItemClass.allCases.map(ItemRow.code) == [1, 2, 3, 4])
        #expect(ItemRow.itemClass(code: 0) == nil)
        #expect(ItemRow.itemClass(code: 5) == nil)
    }

    @Test("keybag entries are 0 for the index key and the protection class code for its class key")
    func keybagEntries() {
        #expect(KeybagEntry.all.map(\.code) == [0, 1, 2, 3, 4, 5, 6, 7])
        for entry in KeybagEntry.all { #expect(KeybagEntry(code: entry.code) == entry) }
        #expect(KeybagEntry(code: 8) == nil)
        #expect(KeybagEntry(code: -1) == nil)
        #expect(KeybagEntry.index.protection == nil)
        #expect(KeybagEntry.classKey(.always).protection == .always)
        #expect(Keybag.migrationEntries.map(\.code) == [0, 1, 2, 3])
        #expect(Keybag.passcodeEntries.map(\.code) == [1, 2, 4, 5, 7])
    }

    @Test("each key-encryption key type wraps into its own keybag slot")
    func kekSlots() {
        #expect(DeviceKEK.slot == .device)
        #expect(PasscodeKEK.slot == .passcode)
        #expect(MigrationKEK.slot == .migration)
    }

    @Test("a row sealed and re-sealed opens with its associated data only, and its tag covers its stored values")
    func sealAndReseal() throws {
        let (row, attributes, codec, classKey) = try Self.sealedRow()
        #expect(row.tag == codec.rowTag(row.taggedValues))
        let key = try #require(
            row.openItemKey(classKey: classKey, associatedData: row.associatedData(.key, codec: codec)))
        #expect(
            row.openItemKey(classKey: ClassKey.random(), associatedData: row.associatedData(.key, codec: codec)) == nil)
        #expect(row.openItemKey(classKey: classKey, associatedData: row.associatedData(.secret, codec: codec)) == nil)
        let secret = Sodium.openSecret(
            row.secret ?? [], key: key.bytes, associatedData: row.associatedData(.secret, codec: codec))
        #expect(secret?.constantTimeEquals(Array("secret".utf8)) == true)

        var changed = attributes
        changed["labl"] = .string("label")
        let resealed = try row.resealed(
            record: try ItemCodec.encodeAttributes(changed), secret: nil, itemKey: key, codec: codec)
        #expect(
            resealed.wrappedKey == row.wrappedKey && resealed.secret == row.secret && resealed.digests == row.digests)
        #expect(resealed.attributes != row.attributes && resealed.tag != row.tag)
        #expect(resealed.tag == codec.rowTag(resealed.taggedValues))
        let plain = try #require(
            Sodium.open(
                resealed.attributes, key: key.bytes, associatedData: resealed.associatedData(.attributes, codec: codec))
        )
        #expect(ItemCodec.decodeAttributes(plain) == changed)
    }
}
