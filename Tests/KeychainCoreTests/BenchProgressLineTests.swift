import Testing

@testable import keychain_bench

/// keychain-bench's line per finished workload (issue 29, new-user trial): a write has no API floor, and
/// the line printed `api 0.0 µs (null)` with the title unpadded, so that its columns did not line up
/// with the reads'.
@Suite("keychain-bench's progress lines")
struct BenchProgressLineTests {
    static func entry(_ title: String, ours: Stat?, floor: Stat?, api: Stat?, check: Check?) -> Entry {
        Entry(
            size: 1000, id: "test", title: title, ours: ours, floor: floor, apiFloor: api, check: check,
            peakRSSKiB: nil, bytesPerItemOurs: nil, bytesPerItemFloor: nil, note: nil)
    }

    @Test("a workload without an API floor prints a dash there, and its columns line up with a read's")
    func missingAPIFloorPrintsADashInItsColumn() {
        let write = Self.entry(
            "add, durable (SecItemAdd)", ours: Stat([550_300]), floor: Stat([453_100]), api: nil,
            check: Check(target: "≤1.3x floor commit", value: 1.21, limit: 1.3, unit: "x"))
        let read = Self.entry(
            "enumerate 1 service (1000 items) + data", ours: Stat([8_409_100]), floor: Stat([685_000]),
            api: Stat([1_138_300]), check: Check(target: "≤2.0x C+API floor", value: 4.49, limit: 2, unit: "x"))
        #expect(
            progressLine(write)
                == "  add, durable (SecItemAdd)                ours      550.3 µs  floor      453.1 µs  api        -     "
                + "PASS 1.21x (≤1.3x floor commit)")
        #expect(
            progressLine(read)
                == "  enumerate 1 service (1000 items) + data  ours     8409.1 µs  floor      685.0 µs  api   1138.3 µs  "
                + "MISS 4.49x (≤2.0x C+API floor)")
        // The check starts in the same column on both lines.
        #expect(Array(progressLine(write)).firstIndex(of: "P") == Array(progressLine(read)).firstIndex(of: "M"))
    }

    @Test("a skipped workload prints dashes and no check, never (null) or 0.0")
    func skippedWorkloadPrintsDashes() {
        let skipped = Self.entry("CLI find-generic-password -w", ours: nil, floor: nil, api: nil, check: nil)
        #expect(
            progressLine(skipped)
                == "  CLI find-generic-password -w             ours          -     floor          -     api        -")
    }
}
