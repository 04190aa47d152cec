import CSQLite
import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// Converting keychains written before the item record format (tracker issue 15): the golden
/// keychain in `Fixtures/legacy-plist-records/` opens, is converted, and reads back every item; a
/// conversion killed at any step leaves every row old or new, never neither, and the next open
/// finishes it with nothing lost.
@Suite("Record migration", .serialized)
struct RecordMigrationTests {
    /// A copy of the golden keychain and its device key at `temp`'s paths.
    func legacyCopy() throws -> TemporaryKeychain {
        let temp = try TemporaryKeychain()
        let manager = FileManager.default
        for (file, target) in [
            ("login.keychain-db", temp.location.databasePath), ("device.key", temp.location.deviceKeyPath),
        ] {
            let folder = (target as NSString).deletingLastPathComponent
            try manager.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let bytes = try Data(contentsOf: LegacyKeychainFixture.folder.appendingPathComponent(file))
            #expect(manager.createFile(atPath: target, contents: bytes, attributes: [.posixPermissions: 0o600]))
        }
        return temp
    }

    /// How many rows hold item records and how many legacy property lists, by decrypting each.
    func formats(_ keystore: Keystore) throws -> (records: Int, legacy: Int) {
        try keystore.read { (s: borrowing StoreSession) throws(KeychainFailure) -> (records: Int, legacy: Int) in
            var counts = (records: 0, legacy: 0)
            for itemClass in ItemClass.allCases {
                for row in try s.candidateRows(
                    ItemQuery(itemClass: itemClass, scope: .all, synchronizable: .any), withSecret: false)
                {
                    var ad = s.associatedData(.attributes, row)
                    AssociatedData.relabel(&ad, .item, as: .key)
                    let key = try s.itemKey(row, associatedData: ad)
                    AssociatedData.relabel(&ad, .item, as: .attributes)
                    let plain = Sodium.open(row.attributes, key: key.bytes, associatedData: ad) ?? []
                    if ItemRecordFormat.isRecord(plain) { counts.records += 1 }
                    if ItemCodec.isLegacyAttributes(plain) { counts.legacy += 1 }
                }
            }
            return counts
        }
    }

    /// Every item of the fixture reads back with its attributes and secret, and nothing else is there.
    func expectEveryItem(_ keystore: Keystore) throws {
        var total = 0
        for item in LegacyKeychainFixture.items {
            let nameAttribute = ItemCodec.nameAttribute(item.itemClass)
            let query = ItemQuery(
                itemClass: item.itemClass,
                filters: .init(named: [
                    nameAttribute: item.attributes[nameAttribute]!, .account: item.attributes[.account]!,
                ]), scope: .all,
                synchronizable: .any)
            let found = try keystore.search(query, projection: [.attributes, .secret])
            #expect(found.count == 1)
            #expect(found.first?.attributes == LegacyKeychainFixture.expectedAttributes(item))
            #expect(found.first?.secret?.constantTimeEquals(Array(item.secret.utf8)) == true)
        }
        for itemClass in ItemClass.allCases {
            total += try keystore.search(
                ItemQuery(itemClass: itemClass, scope: .all, synchronizable: .any), projection: .attributes
            ).count
        }
        #expect(total == LegacyKeychainFixture.items.count)
    }

    @Test("the golden keychain made by the build before the record format opens, converts, and reads back every item")
    func goldenKeychain() throws {
        let temp = try legacyCopy()
        #expect(userVersion(temp.location.databasePath) == Schema.legacyRecordVersion)
        let keystore = try temp.open()
        #expect(userVersion(temp.location.databasePath) == Schema.version)
        #expect(try formats(keystore) == (records: LegacyKeychainFixture.items.count, legacy: 0))
        #expect(try keystore.verifyIntegrity() == LegacyKeychainFixture.items.count)
        try expectEveryItem(keystore)
        #expect(
            try keystore.read { (s: borrowing StoreSession) throws(KeychainFailure) in try s.legacyRecordClasses() }
                == 0)
        // Nothing is left to do, now or at the next open.
        #expect(try keystore.migrateLegacyRecords() == RecordMigrationReport())
    }

    @Test("a conversion in batches of one row converts and reports every row, and clears every class")
    func conversionInBatches() throws {
        let temp = try legacyCopy()
        let keystore = try Keystore(location: temp.location, convertingRecords: false)
        #expect(try formats(keystore) == (records: 0, legacy: LegacyKeychainFixture.items.count))
        try expectEveryItem(keystore)  // legacy rows read as they are
        let report = try keystore.migrateLegacyRecords(batchSize: 1)
        #expect(report.converted == LegacyKeychainFixture.items.count)
        #expect(report.alreadyCurrent == 0 && report.unopenable == 0 && report.lockedClasses.isEmpty)
        #expect(try formats(keystore) == (records: LegacyKeychainFixture.items.count, legacy: 0))
        #expect(
            try keystore.read { (s: borrowing StoreSession) throws(KeychainFailure) in try s.legacyRecordClasses() }
                == 0)
        #expect(try keystore.verifyIntegrity() == LegacyKeychainFixture.items.count)
    }

    @Test(
        "a conversion killed at any step leaves old or new rows, never neither; the next open finishes it",
        arguments: Keystore.recordMigrationCrashPoints)
    func killedConversion(point: String) throws {
        let temp = try legacyCopy()
        let (process, pipe) = try StressProcess.start(
            ["read", temp.location.databasePath, temp.location.deviceKeyPath, "k1"],
            environment: ["KEYCHAIN_CRASH_POINT": point])
        _ = StressProcess.lines(pipe)
        process.waitUntilExit()
        #expect(
            process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL,
            "not killed at \(point)")
        #expect(
            userVersion(temp.location.databasePath)
                == (point == "records.marked" ? Schema.legacyRecordVersion : Schema.version))
        // As the kill left it: every row old or new (the first batch is one class, one row).
        let converted = ["records.marked": 0, "records.converted": 0, "records.committed": 1][point] ?? 6
        do {
            let untouched = try Keystore(location: temp.location, convertingRecords: false)
            #expect(try untouched.verifyIntegrity() == LegacyKeychainFixture.items.count)
            #expect(
                try formats(untouched) == (records: converted, legacy: LegacyKeychainFixture.items.count - converted))
            try expectEveryItem(untouched)
        }
        let keystore = try temp.open()
        #expect(try keystore.verifyIntegrity() == LegacyKeychainFixture.items.count)
        #expect(try formats(keystore) == (records: LegacyKeychainFixture.items.count, legacy: 0))
        try expectEveryItem(keystore)
    }

    @Test("a keychain converted by one open is not converted again: the second open's report is empty")
    func idempotent() throws {
        let temp = try legacyCopy()
        _ = try temp.open()
        let keystore = try temp.open()
        #expect(try keystore.migrateLegacyRecords() == RecordMigrationReport())
        try expectEveryItem(keystore)
    }
}
