import Foundation

/// A target check: `value` against `limit` (both in `unit`).
struct Check: Codable {
    var target: String
    var value: Double
    var limit: Double
    var unit: String
    var pass: Bool

    init(target: String, value: Double, limit: Double, unit: String) {
        self.target = target
        self.value = value
        self.limit = limit
        self.unit = unit
        pass = value <= limit
    }

    var cell: String {
        let shown = unit == "x" ? String(format: "%.2fx", value) : String(format: "%.1f %@", value, unit)
        return "\(pass ? "PASS" : "MISS") \(shown) (\(target))"
    }
}

/// One line of the results: one workload at one size, our code and its floor side by side.
struct Entry: Codable {
    var size: Int
    var id: String
    var title: String
    var ours: Stat?
    var floor: Stat?
    /// The API floor (``APIFloor``), for SecItem reads; the check is then against C floor + API floor.
    var apiFloor: Stat?
    var check: Check?
    var peakRSSKiB: Int?
    var bytesPerItemOurs: Double?
    var bytesPerItemFloor: Double?
    var note: String?
}

struct RunInfo: Codable {
    var date: String
    var sizes: [Int]
    var cores: Int
    var loadAverageBefore: String
    var loadAverageAfter: String
    var peakRSSResettable: Bool
    var kdf: String
    var notes: [String]
}

struct Report: Codable {
    var run: RunInfo
    var entries: [Entry]
}

// MARK: - Table

func formatMicroseconds(_ value: Double) -> String {
    if value >= 100_000 { return String(format: "%.0fms", value / 1_000) }
    if value >= 10_000 { return String(format: "%.1fms", value / 1_000) }
    if value >= 100 { return String(format: "%.0f", value) }
    return String(format: "%.1f", value)
}

func formatRate(_ value: Double) -> String {
    if value >= 1_000_000 { return String(format: "%.2fM", value / 1_000_000) }
    if value >= 10_000 { return String(format: "%.0fk", value / 1_000) }
    if value >= 1_000 { return String(format: "%.1fk", value / 1_000) }
    return String(format: "%.1f", value)
}

func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
    let count = text.count
    guard count < width else { return text }
    let spaces = String(repeating: " ", count: width - count)
    return right ? spaces + text : text + spaces
}

/// The line printed on stderr as each workload ends: the title padded to 40 characters (the longest,
/// `enumerate 1 service (1000 items) + data`, is 39), then the medians of ours, the floor and the API
/// floor, then the check. A median that was not measured (the API floor of the writes, both sides of
/// a skipped workload) is a `-` in its column, and a missing check is nothing, so that the columns of
/// every line start at the same place.
/// - Parameter entry: the workload's results.
/// - Returns: the line, without a trailing newline or trailing spaces.
func progressLine(_ entry: Entry) -> String {
    func median(_ stat: Stat?, width: Int) -> String {
        guard let stat else { return pad("-", width, right: true) + "   " }
        return pad(String(format: "%.1f", stat.medianMicroseconds), width, right: true) + " µs"
    }
    let line =
        "  \(pad(entry.title, 40)) ours \(median(entry.ours, width: 10))  floor \(median(entry.floor, width: 10))"
        + "  api \(median(entry.apiFloor, width: 8))  \(entry.check?.cell ?? "")"
    return String(line.reversed().drop { $0 == " " }.reversed())
}

func printTable(_ report: Report) {
    let header = [
        ("N", 8, true), ("workload", 34, false), ("ours med µs", 12, true), ("p99", 9, true), ("ops/s", 8, true),
        ("floor med", 10, true), ("p99", 9, true), ("ops/s", 8, true), ("API med", 8, true), ("RSS MiB", 8, true),
        ("B/item", 12, true),
        ("check", 0, false),
    ]
    func line(_ cells: [String]) -> String {
        zip(cells, header).map { cell, column in column.1 == 0 ? cell : pad(cell, column.1, right: column.2) }
            .joined(separator: " ")
    }
    print(line(header.map(\.0)))
    print(String(repeating: "-", count: 159))
    var lastSize = -1
    for entry in report.entries {
        if entry.size != lastSize && lastSize != -1 { print("") }
        lastSize = entry.size
        let bytes: String
        switch (entry.bytesPerItemOurs, entry.bytesPerItemFloor) {
        case let (ours?, floor?): bytes = String(format: "%.0f/%.0f", ours, floor)
        case let (ours?, nil): bytes = String(format: "%.0f", ours)
        default: bytes = ""
        }
        print(
            line([
                entry.size == 0 ? "all" : "\(entry.size)", entry.title,
                entry.ours.map { formatMicroseconds($0.medianMicroseconds) } ?? "",
                entry.ours.map { formatMicroseconds($0.p99Microseconds) } ?? "",
                entry.ours.map { formatRate($0.opsPerSecond) } ?? "",
                entry.floor.map { formatMicroseconds($0.medianMicroseconds) } ?? "",
                entry.floor.map { formatMicroseconds($0.p99Microseconds) } ?? "",
                entry.floor.map { formatRate($0.opsPerSecond) } ?? "",
                entry.apiFloor.map { formatMicroseconds($0.medianMicroseconds) } ?? "",
                entry.peakRSSKiB.map { String(format: "%.0f", Double($0) / 1024) } ?? "",
                bytes,
                (entry.check?.cell ?? "") + (entry.note.map { "  [\($0)]" } ?? ""),
            ]))
    }
}

func writeJSON(_ report: Report, to path: String) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    do {
        try encoder.encode(report).write(to: URL(fileURLWithPath: path))
    } catch {
        fatal("cannot write \(path): \(error)")
    }
}
