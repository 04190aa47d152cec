import Foundation
import KeychainServices
import KeychainTestProcess
import KeychainTesting
import Testing

/// Several processes on one keychain at once (design brief, "Concurrency": SQLite transactions, WAL,
/// BEGIN IMMEDIATE and a busy timeout). Each helper runs `stress`: a deterministic mix of add, update,
/// delete and get on its own keys and on keys shared by all workers, logging every status.
@Suite("Several processes at once")
struct MultiProcessTests {
    struct Operation {
        var kind: String
        var service: String
        var account: String
        var value: String
        var status: OSStatus
    }

    /// Runs `workers` helpers at once on a keychain that none of them has created yet.
    static func runWorkers(_ workers: Int, ops: Int, sharedKeys: Int, in keychain: TemporaryKeychain) throws
        -> [[Operation]]
    {
        let running = try (0..<workers).map { worker in
            try HelperProcess.Running(
                ["stress", "\(worker)", "\(ops)", "\(sharedKeys)"], environment: keychain.environment,
                outputPath: keychain.root + "/worker-\(worker).out")
        }
        return try running.map { process in
            let (lines, exitStatus) = try process.finish()
            #expect(exitStatus == 0)
            return lines.compactMap { line in
                let fields = line.split(separator: " ").map(String.init)
                guard fields.count == 5, let status = OSStatus(fields[4]) else {
                    Issue.record("malformed helper line: \(line)")
                    return nil
                }
                return Operation(
                    kind: fields[0], service: fields[1], account: fields[2], value: fields[3], status: status)
            }
        }
    }

    /// The documented statuses of each call: add → success or duplicate; the others → success or not found.
    static func allowed(_ kind: String) -> Set<OSStatus> {
        kind == "add" ? [errSecSuccess, errSecDuplicateItem] : [errSecSuccess, errSecItemNotFound]
    }

    @Test(
        "4 processes × 200 operations on private and shared keys: documented statuses only, and the exact final state")
    func concurrentWorkers() throws {
        let keychain = try TemporaryKeychain()
        let workers = 4, ops = 200, sharedKeys = 4
        let logs = try Self.runWorkers(workers, ops: ops, sharedKeys: sharedKeys, in: keychain)
        #expect(logs.map(\.count) == Array(repeating: ops, count: workers))

        // 1. Only documented statuses.
        for operation in logs.joined() where !Self.allowed(operation.kind).contains(operation.status) {
            Issue.record("\(operation.kind) \(operation.service)/\(operation.account) returned \(operation.status)")
        }

        // 2. Private keys: replaying each worker's log alone predicts every status and value exactly.
        var expected: [String: [String: String]] = [:]  // service → account → secret
        for (worker, log) in logs.enumerated() {
            var state: [String: String] = [:]
            for operation in log where operation.service == "stress-w\(worker)" {
                let present = state[operation.account]
                let predicted: OSStatus
                switch operation.kind {
                case "add":
                    predicted = present == nil ? errSecSuccess : errSecDuplicateItem
                    if present == nil { state[operation.account] = operation.value }
                case "update":
                    predicted = present == nil ? errSecItemNotFound : errSecSuccess
                    if present != nil { state[operation.account] = operation.value }
                case "delete":
                    predicted = present == nil ? errSecItemNotFound : errSecSuccess
                    state[operation.account] = nil
                default:
                    predicted = present == nil ? errSecItemNotFound : errSecSuccess
                    #expect(operation.value == (present ?? "-"), "worker \(worker) read a wrong value")
                }
                #expect(operation.status == predicted, "worker \(worker): \(operation.kind) \(operation.account)")
            }
            expected["stress-w\(worker)"] = state
        }

        // 3. Shared keys: successful adds and deletes alternate, so adds − deletes is the final presence;
        //    every value read or left behind was written by a successful add or update.
        var sharedAdds: [String: Int] = [:], sharedDeletes: [String: Int] = [:]
        var written: [String: Set<String>] = [:]
        let shared = logs.joined().filter { $0.service == "stress-shared" }
        for operation in shared where operation.status == errSecSuccess {
            switch operation.kind {
            case "add": sharedAdds[operation.account, default: 0] += 1
            case "delete": sharedDeletes[operation.account, default: 0] += 1
            default: break
            }
            if operation.kind == "add" || operation.kind == "update" {
                written[operation.account, default: []].insert(operation.value)
            }
        }
        for operation in shared where operation.kind == "get" && operation.status == errSecSuccess {
            #expect(written[operation.account, default: []].contains(operation.value), "read a value nobody wrote")
        }

        // 4. The final state, read back in this process.
        try keychain.run {
            for worker in 0..<workers {
                let service = "stress-w\(worker)"
                let result = copy(
                    genericPassword(
                        service: service, account: nil,
                        [
                            kSecMatchLimit as String: kSecMatchLimitAll,
                            kSecReturnAttributes as String: kCFBooleanTrue!,
                            kSecReturnData as String: kCFBooleanTrue!,
                        ]))
                var actual: [String: String] = [:]
                for item in (result.result as? [[String: Any]]) ?? [] {
                    actual[item[kSecAttrAccount as String] as? String ?? "?"] =
                        (item[kSecValueData as String] as? Data)?.utf8Text
                }
                #expect(actual == expected[service], "final state of \(service)")
            }
            var sharedPresent = 0
            for index in 0..<sharedKeys {
                let account = "k\(index)"
                let balance = sharedAdds[account, default: 0] - sharedDeletes[account, default: 0]
                let value = secret(genericPassword(service: "stress-shared", account: account))
                #expect(balance == (value == nil ? 0 : 1), "shared \(account): adds − deletes = \(balance)")
                if let value {
                    sharedPresent += 1
                    #expect(written[account, default: []].contains(value))
                }
            }
            let total = expected.values.map(\.count).reduce(0, +) + sharedPresent
            #expect(count(genericPassword(service: nil, account: nil)) == total)
        }
    }

    @Test("8 processes racing to create the same keychain all end up using one keychain")
    func racingCreation() throws {
        let keychain = try TemporaryKeychain()
        let running = try (0..<8).map { worker in
            try HelperProcess.Running(
                ["add", "race", "worker-\(worker)", "secret-\(worker)"], environment: keychain.environment,
                outputPath: keychain.root + "/race-\(worker).out")
        }
        for process in running { #expect(try process.finish().lines == ["0"]) }
        try keychain.run {
            #expect(count(genericPassword(service: "race", account: nil)) == 8)
            for worker in 0..<8 {
                #expect(secret(genericPassword(service: "race", account: "worker-\(worker)")) == "secret-\(worker)")
            }
        }
    }
}
