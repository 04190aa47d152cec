import Foundation
import KeychainFuzzing
import Testing

@testable import KeychainCore

/// Replays the committed fuzz corpus (tracker issue 8): every input, including each crash the fuzzer
/// found (kept as a regression), must run through its target without crashing.
@Suite("Fuzz corpus replay")
struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus")

    @Test("every corpus input runs through its target", arguments: FuzzTarget.allCases)
    func replay(target: FuzzTarget) throws {
        let folder = Self.corpus.appendingPathComponent(target.rawValue)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(!files.isEmpty, "the \(target.rawValue) corpus is empty")
        try #require(
            target.isReady,
            "the \(target.rawValue) target's scratch keychain could not be made: nothing would be tested")
        for file in files {
            target.run(try Data(contentsOf: folder.appendingPathComponent(file)))
        }
    }

    @Test(
        "the backup seed is a real backup: it restores all three items, ThisDeviceOnly included, with the fuzz passphrase"
    )
    func backupSeedRestores() throws {
        let directory = FileManager.default.temporaryDirectory.path + "/swkc-seed-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keystore = try FuzzTarget.scratchKeystore(in: directory)
        let seed = Self.corpus.appendingPathComponent("backup/seed-real-3-items.swkcbackup").path
        let report = try keystore.restore(
            from: seed, passphrase: SecureBytes(copying: Array(FuzzTarget.backupPassphrase.utf8)), policy: .fail)
        #expect(report.itemsInBackup == 3)
        #expect(report.restored == 3)
        #expect(report.skippedThisDeviceOnly == 0)
    }

    @Test(
        "the version 4 backup seed restores its three items, and its synchronizable one keeps its sync id"
    )
    func version4SeedRestores() throws {
        let directory = FileManager.default.temporaryDirectory.path + "/swkc-seed-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keystore = try FuzzTarget.scratchKeystore(in: directory)
        let seed = Self.corpus.appendingPathComponent("backup/seed-real-v4-3-items.swkcbackup").path
        #expect(try BackupStream.readHeader(path: seed).0.version == 4)
        let report = try keystore.restore(
            from: seed, passphrase: SecureBytes(copying: Array(FuzzTarget.backupPassphrase.utf8)), policy: .fail)
        #expect(report.itemsInBackup == 3)
        #expect(report.restored == 3)
        let journal = try keystore.journalChanges(after: 0)
        #expect(journal.count == 1)
        // The id the seed's keychain gave the item, not a fresh one: a second restore elsewhere gets the same.
        let other = try FuzzTarget.scratchKeystore(in: directory + "/other")
        _ = try other.restore(
            from: seed, passphrase: SecureBytes(copying: Array(FuzzTarget.backupPassphrase.utf8)), policy: .fail)
        #expect(try other.journalChanges(after: 0).map(\.item) == journal.map(\.item))
    }

    @Test("the record seeds are well-formed decrypted records, so the record parser's fuzzing starts past its checks")
    func recordSeedsParse() throws {
        let folder = Self.corpus.appendingPathComponent("backup")
        let records = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0.hasPrefix("record-")
        }
        #expect(records.count == 7)
        let samples = BackupRecordParser.sampleRecords()
        // The Secret Service, collection and sync identity seeds were written from docs/BACKUP-FORMAT.md by hand.
        for index in [4, 5, 6] {
            let seed = Array(try Data(contentsOf: folder.appendingPathComponent("record-\(index).bin")))
            #expect(seed == samples[index], "record-\(index).bin")
        }
        for name in records {
            let bytes = try Data(contentsOf: folder.appendingPathComponent(name))
            #expect(BackupRecordParser.parse(Array(bytes)), "\(name)")
            #expect(!BackupRecordParser.parse(Array(bytes.dropLast())), "\(name) truncated")
        }
    }

    @Test(
        "the record seeds are the well-formed sample records, written from the format document by an independent encoder"
    )
    func itemRecordSeeds() throws {
        let folder = Self.corpus.appendingPathComponent("record")
        let seeds = try (0..<3).map { Array(try Data(contentsOf: folder.appendingPathComponent("seed-\($0).bin"))) }
        #expect(seeds == ItemRecordParser.sampleRecords())
        for seed in seeds { #expect(ItemRecordParser.parse(seed)) }
        #expect(
            ItemRecordParser.parse(Array(try Data(contentsOf: folder.appendingPathComponent("legacy-plist.bplist")))))
        for malformed in ["truncated.bin", "repeated-attribute.bin", "huge-length.bin"] {
            #expect(
                !ItemRecordParser.parse(Array(try Data(contentsOf: folder.appendingPathComponent(malformed)))),
                "\(malformed)")
        }
    }
}
