import Foundation
import KeychainCore

/// Peak memory (VmHWM) of backup and restore, to check that they stream (tracker issue 6).
///
/// Each step runs in its own process so that one step's peak does not hide another's:
/// ```
/// swift build -c release --product keychain-bench
/// B=.build/release/keychain-bench; D=$(mktemp -d)
/// $B backup-memory populate 100000 $D && $B backup-memory backup 100000 $D && $B backup-memory restore 100000 $D
/// ```
/// Argon2id runs with the cheapest parameters (8 KiB) so that only the streaming is measured;
/// real backups add their `memlimit` (256 MiB by default) once, whatever the item count.
enum BackupMemoryBenchmark {
    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.count == 3, let count = Int(arguments[1]) else {
            print("usage: keychain-bench backup-memory populate|backup|restore|baseline <items> <folder>")
            return 64
        }
        let folder = arguments[2]
        let source = KeychainLocation(
            databasePath: folder + "/source.keychain-db", deviceKeyPath: folder + "/device.key")
        let target = KeychainLocation(
            databasePath: folder + "/restored.keychain-db", deviceKeyPath: folder + "/device.key")
        let backupPath = folder + "/keychain.swkcbackup"
        let passphrase = SecureBytes(copying: Array("benchmark passphrase".utf8))
        let start = Date()
        do {
            switch arguments[0] {
            case "baseline":
                _ = try Keystore(location: source)
            case "populate":
                try populate(source, count: count)
            case "backup":
                let report = try Keystore(location: source).backup(
                    to: backupPath, passphrase: passphrase, parameters: .testing, overwrite: true)
                print(report, "-", report.bytes, "bytes")
            case "restore":
                FileSystem.remove(target.databasePath)
                let report = try Keystore(location: target).restore(
                    from: backupPath, passphrase: passphrase, policy: .fail)
                print(report)
            default:
                print("unknown step \(arguments[0])")
                return 64
            }
        } catch {
            print("failed: \(error)")
            return 1
        }
        print(
            String(
                format: "%@ %d items: %.1f s, VmHWM %@", arguments[0], count, Date().timeIntervalSince(start),
                peakMemory()))
        return 0
    }

    /// Fills a new keychain with `count` internet passwords in four protection classes (half of them
    /// ThisDeviceOnly), through CSV import: one transaction per class.
    static func populate(_ location: KeychainLocation, count: Int) throws {
        FileSystem.remove(location.databasePath)
        let keystore = try Keystore(location: location)
        let classes: [ProtectionClass] = [
            .whenUnlocked, .afterFirstUnlock, .whenUnlockedThisDeviceOnly, .alwaysThisDeviceOnly,
        ]
        for (index, protection) in classes.enumerated() {
            var csv = "name,url,username,password,note\n"
            for item in stride(from: index, to: count, by: classes.count) {
                csv += "Site \(item),https://site\(item).example.com/login,user\(item)@example.com,"
                csv += "pw-\(item)-\(UInt64.random(in: 0...UInt64.max)),note for item \(item)\n"
            }
            let summary = try keystore.importPasswords(
                csv: SecureBytes(copying: Array(csv.utf8)), accessGroup: "bench", protection: protection)
            print(summary)
        }
    }

    /// `VmHWM` (peak resident set) from /proc/self/status.
    static func peakMemory() -> String {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return "unknown" }
        return line.dropFirst("VmHWM:".count).trimmingCharacters(in: .whitespaces)
    }
}
