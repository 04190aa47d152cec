import Foundation
import KeychainCore

// keychain-bench: our code against the floor (the same SQLite statements and libsodium calls with
// none of our layers), side by side, in one process, on the same data (tracker issue 7).

struct Options {
    var sizes = [1_000, 100_000]
    var jsonPath: String?
    var reads = 10_000
    var enumerateRepeats = 20
    var cliRuns = 30
    var cli = true
    var password = true
    var passwordRuns: Int?
    var kdf = KDFParameters.default
    var kdfName = "default"
    var seed: UInt64 = 7
    var keep = false
    /// Workload id prefixes to run (`--only read.data,enumerate`); the bulk load always runs.
    var only: [String]?
    var binaryDirectory = executableDirectory()

    /// Password changes per size: three at 10k items and more, one below (keeps smoke runs short).
    func wants(_ id: String) -> Bool { only.map { $0.contains { id.hasPrefix($0) } } ?? true }

    func passwordRepeats(_ size: Int) -> Int { passwordRuns ?? (size >= 10_000 ? 3 : 1) }

    static let usage = """
        usage: keychain-bench [options]

        Measures swift-keychain against its floor at each size N and prints a table with PASS/MISS per target.

          --sizes N[,N…]      item counts (default 1000,100000)
          --large             also run N = 1000000
          --json PATH         also write the results as JSON
          --reads K           random lookups per read workload (default 10000, at most N)
          --enumerate-runs K  enumerations of the 1000-item service (default 20)
          --no-cli            skip workload 6 (whole-process `security find-generic-password`)
          --cli-runs K        processes per CLI measurement (default 30)
          --no-password       skip workload 5 (password change)
          --password-runs K   password changes per size (default 3 at N ≥ 10000, else 1)
          --kdf default|testing
                              Argon2id cost for workload 5 (default: the engine's default)
          --bin DIR           where `security` and `keychain-floor-open` are (default: next to this program)
          --seed S            random order seed (default 7)
          --keep              keep the temporary keychains
          --only ID[,ID…]     run only workloads whose id starts with one of these (add.durable, read.data,
                              read.attributes, read.persistentRef, read.ios, read.enumerate, read.enumerate.data,
                              update, delete, password, cli); for profiling
          -h, --help          this text

        CI smoke run:  keychain-bench --sizes 200 --no-cli
        """

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var large = false
        var iterator = arguments.makeIterator()
        func value(_ flag: String) -> String {
            guard let next = iterator.next() else { fatal("\(flag) needs a value\n\(usage)") }
            return next
        }
        func number(_ flag: String) -> Int {
            guard let n = Int(value(flag)), n > 0 else { fatal("\(flag) needs a positive number") }
            return n
        }
        while let argument = iterator.next() {
            switch argument {
            case "-h", "--help":
                print(usage)
                exit(0)
            case "--sizes":
                let list = value(argument).split(separator: ",").map { Int($0.replacingOccurrences(of: "_", with: "")) }
                guard !list.isEmpty, list.allSatisfy({ ($0 ?? 0) > 0 }) else { fatal("--sizes takes N[,N…]") }
                options.sizes = list.map { $0! }
            case "--large": large = true
            case "--json": options.jsonPath = value(argument)
            case "--reads": options.reads = number(argument)
            case "--enumerate-runs": options.enumerateRepeats = number(argument)
            case "--no-cli": options.cli = false
            case "--cli-runs": options.cliRuns = number(argument)
            case "--no-password": options.password = false
            case "--password-runs": options.passwordRuns = number(argument)
            case "--kdf":
                switch value(argument) {
                case "default": (options.kdf, options.kdfName) = (.default, "default")
                case "testing": (options.kdf, options.kdfName) = (.testing, "testing")
                default: fatal("--kdf takes default or testing")
                }
            case "--bin": options.binaryDirectory = value(argument)
            case "--seed":
                guard let seed = UInt64(value(argument)) else { fatal("--seed takes a number") }
                options.seed = seed
            case "--keep": options.keep = true
            case "--only": options.only = value(argument).split(separator: ",").map(String.init)
            default: fatal("unknown option \(argument)\n\(usage)")
            }
        }
        if large && !options.sizes.contains(1_000_000) { options.sizes.append(1_000_000) }
        options.sizes.sort()
        return options
    }
}

// `keychain-bench backup-memory STEP N DIR`: peak memory of backup and restore (tracker issue 6).
if CommandLine.arguments.count > 1 && CommandLine.arguments[1] == "backup-memory" {
    exit(BackupMemoryBenchmark.run(Array(CommandLine.arguments.dropFirst(2))))
}

// `keychain-bench secret-service-populate N`: scripts/bench-secret-service's items in bulk (issue 29).
if CommandLine.arguments.count > 1 && CommandLine.arguments[1] == "secret-service-populate" {
    exit(SecretServicePopulate.run(Array(CommandLine.arguments.dropFirst(2))))
}

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
let loadBefore = loadAverage()
let resettable = resetPeakRSS()
var entries: [Entry] = []
for size in options.sizes {
    var run = SizeRun(size: size, options: options)
    run.run()
    entries += run.entries
}

// Growth (issue 15): our median per operation at the largest size over the smallest, ≤ 2x from 1k to 1M.
// Flatness (issue 29): each workload's ratio to its floor at the largest size over the same ratio at the
// smallest, ≤ 1.2x. The floor's own time grows with the B-tree and the page cache; what must not grow is
// what ours adds to it.
if let smallest = options.sizes.first, let largest = options.sizes.last, largest > smallest {
    let growthIDs: Set = [
        "add.durable", "add.bulk", "read.data", "read.attributes", "read.persistentRef", "update.durable",
        "delete.durable",
    ]
    let ids = [
        "add.durable", "add.bulk", "read.data", "read.attributes", "read.persistentRef", "read.ios",
        "read.enumerate", "read.enumerate.data", "update.durable", "delete.durable",
    ]
    var summaries: [Entry] = []
    for id in ids {
        guard let small = entries.first(where: { $0.id == id && $0.size == smallest }),
            let big = entries.first(where: { $0.id == id && $0.size == largest })
        else { continue }
        if growthIDs.contains(id), let smallStat = small.ours, let bigStat = big.ours {
            entries.append(
                Entry(
                    size: largest, id: "growth." + id, title: "growth: " + big.title, ours: bigStat, floor: nil,
                    check: Check(
                        target: "≤2x from \(smallest)",
                        value: bigStat.medianMicroseconds / max(smallStat.medianMicroseconds, 0.001), limit: 2,
                        unit: "x"),
                    note: String(
                        format: "median %.1f → %.1f µs", smallStat.medianMicroseconds, bigStat.medianMicroseconds)))
        }
        if let smallCheck = small.check, let bigCheck = big.check, smallCheck.unit == "x", bigCheck.unit == "x" {
            summaries.append(
                Entry(
                    size: largest, id: "flatness." + id, title: "flatness: " + big.title, ours: nil, floor: nil,
                    check: Check(
                        target: "ratio ≤1.2x its \(smallest)", value: bigCheck.value / max(smallCheck.value, 0.001),
                        limit: 1.2, unit: "x"),
                    note: String(format: "ratio to the floor %.2fx → %.2fx", smallCheck.value, bigCheck.value)))
        }
    }
    entries += summaries
}

var notes = [
    "floor: same SQL schema and indexes, keyed BLAKE2b digests, XChaCha20-Poly1305 seals of attributes and secret per add, one open per read of what it returns (the secret; the attributes for attribute reads and enumeration), no layers",
    "API floor (reads): the same query read from the bridged dictionary and the same result objects made, with no store; reads are checked against C floor + API floor",
    "our calls and floor calls are interleaved operation by operation; the machine has \(ProcessInfo.processInfo.activeProcessorCount) cores and may run other builds, so expect noise",
    resettable
        ? "peak RSS is VmHWM reset (clear_refs) at the start of each workload; it covers ours and the floor together"
        : "peak RSS is cumulative (clear_refs unavailable)",
    "durable adds at N ≥ \(SizeRun.durableSampleThreshold) are a sample of \(SizeRun.durableSample) adds on top of the bulk-loaded store; updates/deletes there are capped at \(SizeRun.durableSample)",
]
if !options.cli { notes.append("workload 6 (CLI) skipped by --no-cli") }
let report = Report(
    run: RunInfo(
        date: ISO8601DateFormatter().string(from: Date()), sizes: options.sizes,
        cores: ProcessInfo.processInfo.activeProcessorCount, loadAverageBefore: loadBefore,
        loadAverageAfter: loadAverage(), peakRSSResettable: resettable,
        kdf: "\(options.kdfName) (ops \(options.kdf.opsLimit), \(options.kdf.memLimit >> 20) MiB)", notes: notes),
    entries: entries)
printTable(report)
print("")
for note in notes { print("note: " + note) }
print("load average before/after: \(loadBefore) / \(report.run.loadAverageAfter)")
let misses = entries.compactMap(\.check).filter { !$0.pass }.count
let checks = entries.compactMap(\.check).count
print("targets: \(checks - misses) PASS, \(misses) MISS")
if let path = options.jsonPath { writeJSON(report, to: path) }
