import CSQLite
import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// Crash safety and cross-process concurrency (tracker issue 8). A writer process is killed with
/// SIGKILL at random points; after each kill the keychain must open, pass `PRAGMA integrity_check`,
/// and hold every operation acknowledged before the kill, with no half-written item.
/// `KEYCHAIN_CRASH_TRIALS` sets the number of trials (CI: 50; `scripts/crash-trials` runs more).
@Suite("Crash safety and concurrency", .serialized)
struct CrashSafetyTests {
    static let passwords = ["p0", "p1"]

    struct Model {
        var values: [String: String] = [:]
        var passwordIndex: Int? = nil
    }

    func integrityCheck(_ path: String) -> String {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { return "cannot open" }
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else {
            return "no answer"
        }
        return String(cString: text)
    }

    func read(_ keystore: Keystore, _ key: String) throws -> String? {
        let query = ItemQuery(
            itemClass: .genericPassword, filters: ["svce": .string("stress"), "acct": .string(key)], scope: .all)
        return try keystore.search(query, projection: .secret).first.map { item in
            item.secret!.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        }
    }

    @Test("SIGKILL at random points never loses an acknowledged write or leaves a torn item")
    func killedWriter() throws {
        let trials = Int(ProcessInfo.processInfo.environment["KEYCHAIN_CRASH_TRIALS"] ?? "50") ?? 50
        let temp = try TemporaryKeychain()
        _ = try temp.open()  // create it
        var model = Model()
        var kills = 0
        var acknowledged = 0
        var passwordChanges = 0
        var generator = SystemRandomNumberGenerator()
        for trial in 0..<trials {
            var environment: [String: String] = [:]
            if let index = model.passwordIndex { environment["STRESS_PASSWORD_INDEX"] = String(index) }
            let (process, pipe) = try StressProcess.start(
                ["writer", temp.location.databasePath, temp.location.deviceKeyPath, String(trial + 1), "100000"],
                environment: environment)
            usleep(UInt32.random(in: 20_000...120_000, using: &generator))
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                kills += 1
            }
            process.waitUntilExit()
            let lines = StressProcess.lines(pipe)
            #expect(!lines.contains { $0.hasPrefix("failed") }, "writer failed: \(lines.last ?? "")")

            // Replay what the writer acknowledged; remember the operation in flight.
            var inFlight: [Substring]?
            for line in lines {
                let fields = line.split(separator: " ")
                guard fields.count == 4 else { continue }
                if fields[0] == "begin" { inFlight = fields; continue }
                inFlight = nil
                acknowledged += 1
                switch fields[1] {
                case "set": model.values[String(fields[2])] = String(fields[3])
                case "delete": model.values[String(fields[2])] = nil
                case "password":
                    model.passwordIndex = Int(fields[2])
                    passwordChanges += 1
                default: break
                }
            }

            #expect(integrityCheck(temp.location.databasePath) == "ok", "trial \(trial)")
            let keystore = try temp.open()
            #expect(throws: Never.self) { try keystore.verifyIntegrity() }
            if try keystore.hasPassword() {
                var candidates = model.passwordIndex.map { [$0] } ?? []
                if let inFlight, inFlight[1] == "password", let next = Int(inFlight[3]) { candidates.append(next) }
                var opened: Int?
                for index in candidates {
                    if (try? keystore.unlock(password: SecureBytes(copying: Array(Self.passwords[index].utf8)))) != nil
                    {
                        opened = index
                        break
                    }
                }
                try #require(opened != nil, "trial \(trial): neither the old nor the new password opens the keychain")
                model.passwordIndex = opened
            } else {
                #expect(model.passwordIndex == nil || inFlight?[1] == "password", "trial \(trial): password lost")
                model.passwordIndex = nil
            }
            for index in 0..<20 {
                let key = "k\(index)"
                let actual = try read(keystore, key)
                var allowed: [String?] = [model.values[key]]
                if let inFlight, inFlight[2] == key {
                    allowed.append(inFlight[1] == "set" ? String(inFlight[3]) : nil)
                }
                #expect(
                    allowed.contains(actual),
                    "trial \(trial): \(key) is \(actual ?? "absent"), expected one of \(allowed)")
                model.values[key] = actual
            }
            try keystore.withdrawAllClassKeys()
        }
        #expect(kills > trials / 2, "most trials should end in a kill (\(kills) of \(trials))")
        // Reaching here means every check above held: no acknowledged write was lost.
        print(
            "crash trials: \(trials), kills: \(kills), acknowledged operations: \(acknowledged) (password changes: \(passwordChanges)), lost writes: 0"
        )
    }

    func uniqueCount(_ lines: [[String]]) -> Int { lines.flatMap { $0.filter { $0.hasPrefix("ok add") } }.count }

    func sharedCount(_ keystore: Keystore) throws -> Int {
        try (0..<10).filter { try read(keystore, "k\($0)") != nil }.count
    }

    @Test("4 writer processes and 2 readers on overlapping keys lose nothing and never see a torn item")
    func concurrentProcesses() throws {
        let temp = try TemporaryKeychain()
        _ = try temp.open()
        let operations = 1000
        let started = Date()
        let writers = try (0..<4).map { id in
            try StressProcess.start([
                "hammer", temp.location.databasePath, temp.location.deviceKeyPath, "w\(id)", String(operations),
            ])
        }
        let readers = try (0..<2).map { _ in
            try StressProcess.start(["reader", temp.location.databasePath, temp.location.deviceKeyPath, "3000"])
        }
        let writerLines = writers.map { StressProcess.lines($0.1) }
        for (process, _) in writers { process.waitUntilExit() }
        let elapsed = Date().timeIntervalSince(started)
        let readerLines = readers.map { StressProcess.lines($0.1) }
        for (process, _) in readers { process.waitUntilExit() }

        for (index, lines) in writerLines.enumerated() {
            #expect(writers[index].0.terminationStatus == 0, "writer \(index): \(lines.last ?? "")")
            #expect(lines.filter { $0.hasPrefix("ok set") || $0.hasPrefix("ok delete") }.count == operations)
        }
        for (index, lines) in readerLines.enumerated() {
            #expect(readers[index].0.terminationStatus == 0, "reader \(index) saw a torn item: \(lines.last ?? "")")
        }
        let keystore = try temp.open()
        #expect(try keystore.verifyIntegrity() == uniqueCount(writerLines) + sharedCount(keystore))
        // Every unique key a writer acknowledged is there.
        let uniques = writerLines.flatMap { $0.filter { $0.hasPrefix("ok add") } }.map {
            String($0.split(separator: " ")[2])
        }
        #expect(uniques.count == 4 * operations / 10)
        for key in uniques { #expect(try read(keystore, key) != nil, "acknowledged \(key) is missing") }
        // A shared key ends as some writer's last operation on it.
        for index in 0..<10 {
            let key = "k\(index)"
            var lastOps: [String] = []
            for lines in writerLines {
                if let last = lines.last(where: {
                    $0.split(separator: " ").count == 4 && $0.split(separator: " ")[2] == key
                }) {
                    lastOps.append(last)
                }
            }
            let actual = try read(keystore, key)
            if let actual {
                #expect(lastOps.contains("ok set \(key) \(actual)"), "\(key) = \(actual) is not a writer's last write")
            } else {
                #expect(lastOps.contains { $0.hasPrefix("ok delete") }, "\(key) vanished without a final delete")
            }
        }
        let writes = 4 * (operations + operations / 10)
        print(
            "concurrency: \(writes) acknowledged writes by 4 processes in \(String(format: "%.2f", elapsed)) s (\(Int(Double(writes) / elapsed)) writes/s), readers: \(readerLines.map { $0.last ?? "" })"
        )
    }
}

/// The password change across processes, and killed at each of its steps (tracker issue 3).
@Suite("Password change and unlock across processes")
struct PasswordProcessTests {
    func stress(_ temp: TemporaryKeychain, _ arguments: [String], environment: [String: String] = [:]) throws -> (
        Int32, [String]
    ) {
        let (process, pipe) = try StressProcess.start(
            [arguments[0], temp.location.databasePath, temp.location.deviceKeyPath] + arguments.dropFirst(),
            environment: environment)
        let lines = StressProcess.lines(pipe)
        process.waitUntilExit()
        return (
            process.terminationReason == .uncaughtSignal ? -process.terminationStatus : process.terminationStatus, lines
        )
    }

    func lockedKeychain(_ temp: TemporaryKeychain) throws -> Keystore {
        let keystore = try temp.open()
        try keystore.setPassword(secret("old"), current: nil, parameters: .testing)
        _ = try keystore.add(
            .genericPassword,
            attributes: [
                "svce": .string("stress"), "acct": .string("k1"), "pdmn": .string("ak"), "agrp": .string("stress"),
            ],
            secret: secret("w:1:x"))
        try keystore.withdrawAllClassKeys()
        return keystore
    }

    @Test(
        "one process unlocks, another reads; after lock the other gets -25308",
        .enabled(if: ClassKeyStore.scope == .userSession, "the kernel user keyring is unavailable here"))
    func unlockAcrossProcesses() throws {
        let temp = try TemporaryKeychain()
        let keystore = try lockedKeychain(temp)
        #expect(try stress(temp, ["read", "k1"]).1 == ["status -25308"])
        #expect(try stress(temp, ["unlock", "old"]).1 == ["ok userSession"])
        #expect(try stress(temp, ["read", "k1"]).1 == ["value w:1:x"])
        try keystore.lock()
        #expect(try stress(temp, ["read", "k1"]).1 == ["status -25308"])
    }

    @Test(
        "a password change killed at any step leaves the old or the new password working",
        arguments: CrashPoint.passwordChange)
    func killedPasswordChange(point: String) throws {
        let temp = try TemporaryKeychain()
        _ = try lockedKeychain(temp)
        let (status, _) = try stress(temp, ["passwd", "old", "new"], environment: ["KEYCHAIN_CRASH_POINT": point])
        #expect(status == -SIGKILL, "the process should have been killed at \(point)")
        let keystore = try temp.open()
        try keystore.withdrawAllClassKeys()
        #expect(try keystore.verifyIntegrity() == 1)
        let expected = point == "password.committed" ? "new" : "old"
        let other = expected == "new" ? "old" : "new"
        #expect(throws: KeychainFailure.self) { try keystore.unlock(password: secret(other)) }
        try keystore.unlock(password: secret(expected))
        let item = try keystore.search(
            ItemQuery(itemClass: .genericPassword, filters: ["acct": .string("k1")], scope: .all), projection: .secret)
        #expect(item.first?.secret?.constantTimeEquals(Array("w:1:x".utf8)) == true)
    }

    @Test(
        "an adoption after the device key was lost, killed at any step, can be done again",
        arguments: CrashPoint.adoption)
    func killedAdoption(point: String) throws {
        let temp = try TemporaryKeychain()
        _ = try lockedKeychain(temp)
        try FileManager.default.removeItem(atPath: temp.location.deviceKeyPath)
        let (status, _) = try stress(temp, ["unlock", "old"], environment: ["KEYCHAIN_CRASH_POINT": point])
        #expect(status == -SIGKILL, "the process should have been killed at \(point)")
        #expect(try stress(temp, ["read", "k1"]).1 == ["status -25308"], "still foreign: locked, not absent")
        #expect(try stress(temp, ["unlock", "old"]).1.first?.hasPrefix("ok") == true)
        let keystore = try temp.open()
        try keystore.unlock(password: secret("old"))
        #expect(try keystore.verifyIntegrity() == 1)
        let item = try keystore.search(
            ItemQuery(itemClass: .genericPassword, filters: ["acct": .string("k1")], scope: .all), projection: .secret)
        #expect(item.first?.secret?.constantTimeEquals(Array("w:1:x".utf8)) == true)
    }
}
