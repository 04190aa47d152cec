import Foundation
import KeychainCore
import KeychainSync

/// The sync figures of tracker issue 26 (scripts/bench-sync runs it): each step in its own process, so the peak
/// memory printed (VmHWM) is that step's alone.
///
/// ```
/// keychain-sync-bench populate N FOLDER   # device A: N synchronizable items, sync init over FOLDER/remote, first push
/// keychain-sync-bench one-change FOLDER   # device A changes one item; sync now; time and bytes pushed
/// keychain-sync-bench first-sync FOLDER   # device B joins with the recovery passphrase: first sync of everything
/// keychain-sync-bench receive FOLDER      # device B: sync now after A's one change
/// ```
/// The remote is a plain folder (no git), so the figures are the protocol's and the store's. Argon2id runs with
/// the cheapest parameters for the recovery key and the keychains have no password.
@main
struct SyncBenchmark {
    static let passphrase = SecureBytes(copying: Array("benchmark recovery passphrase".utf8))

    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let step = arguments.first, let folder = arguments.last, arguments.count >= 2 else {
            print(
                "usage: keychain-sync-bench populate N FOLDER | one-change FOLDER | first-sync FOLDER | receive FOLDER")
            exit(64)
        }
        do {
            try run(step, arguments, folder: folder)
        } catch {
            print("keychain-sync-bench \(step): \(error)")
            exit(1)
        }
        print("peak memory (VmHWM): \(peakKilobytes()) kB")
    }

    static func device(_ name: String, _ folder: String) throws -> (Keystore, SyncEngine) {
        let location = KeychainLocation(
            databasePath: folder + "/\(name).keychain-db", deviceKeyPath: folder + "/\(name).device.key")
        let store = try Keystore(location: location)
        let engine = SyncEngine(replica: store, environment: ["XDG_STATE_HOME": folder + "/\(name)-state"])
        return (store, engine)
    }

    static func run(_ step: String, _ arguments: [String], folder: String) throws {
        let remote = folder + "/remote"
        switch step {
        case "populate":
            guard arguments.count == 3, let count = Int(arguments[1]) else {
                throw SyncError(.state, "populate N FOLDER")
            }
            try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
            let (store, engine) = try device("a", folder)
            let gateway = ItemGateway(keystore: store, identity: .manager)
            var started = Date()
            // In transactions of 2,000: one transaction of 20,000 items or more fails to allocate (see the report).
            for start in stride(from: 0, to: count, by: 2000) {
                _ = try gateway.addAll(min(2000, count - start)) { offset in
                    let index = start + offset
                    return NewItem(
                        .genericPassword,
                        attributes: [
                            "svce": .string("service-\(index)"), "acct": .string("account-\(index)@example.com"),
                            "labl": .string("label \(index)"), "sync": .bool(true),
                        ], secret: SecureBytes(copying: Array("secret-\(index)-0123456789abcdef".utf8)))
                }
            }
            print("populate: \(count) items in \(seconds(since: started)) s")
            started = Date()
            let report = try engine.initialize(url: remote, passphrase: passphrase, parameters: .testing)
            print(
                "first push: \(report.changesPushed) changes, \(report.segmentsPushed) segments, \(report.bytesPushed)"
                    + " bytes in \(seconds(since: started)) s")
        case "one-change":
            let (store, engine) = try device("a", folder)
            let gateway = ItemGateway(keystore: store, identity: .manager)
            _ = try gateway.update(
                ItemQuery(
                    itemClass: .genericPassword, filters: ["svce": .string("service-0")], scope: gateway.callerScope,
                    synchronizable: .yes),
                changes: [:], secret: SecureBytes(copying: Array("changed-\(Date().timeIntervalSince1970)".utf8)))
            let started = Date()
            let report = try engine.syncNow()
            print(
                "sync now after one change: \(millis(since: started)) ms; pushed \(report.changesPushed) changes,"
                    + " \(report.bytesPushed) bytes (segment + 129-byte head)")
        case "first-sync":
            let (_, engine) = try device("b", folder)
            let started = Date()
            let report = try engine.joinWithRecovery(url: remote, passphrase: passphrase)
            print(
                "first sync on a new device: applied \(report.applied.applied) in \(seconds(since: started)) s"
                    + " (from \(report.devicesRead) devices)")
        case "receive":
            let (_, engine) = try device("b", folder)
            let started = Date()
            let report = try engine.syncNow()
            print("receive one change: applied \(report.applied.applied) in \(millis(since: started)) ms")
        default:
            throw SyncError(.state, "unknown step \(step)")
        }
    }

    static func seconds(since start: Date) -> String { String(format: "%.2f", Date().timeIntervalSince(start)) }
    static func millis(since start: Date) -> String { String(format: "%.1f", Date().timeIntervalSince(start) * 1000) }

    /// VmHWM from /proc/self/status, in kB.
    static func peakKilobytes() -> String {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return line.split(separator: " ").dropFirst().first.map(String.init) ?? "?"
    }
}
