import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// MARK: - Clock

/// Monotonic nanoseconds (`CLOCK_MONOTONIC`); cheap enough to wrap single operations.
@inline(__always)
func nanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Times `body` and appends the elapsed nanoseconds to `samples`.
@discardableResult
@inline(__always)
func timed<R>(_ samples: inout [UInt64], _ body: () throws -> R) rethrows -> R {
    let start = nanoseconds()
    let result = try body()
    samples.append(nanoseconds() - start)
    return result
}

// MARK: - Statistics

/// Per-operation statistics of one implementation on one workload.
struct Stat: Codable {
    var ops: Int
    var medianMicroseconds: Double
    var p99Microseconds: Double
    var opsPerSecond: Double

    /// From per-operation samples; `wallNanoseconds` (when given) is the whole run, used for ops/s
    /// so that a bulk transaction's commit is counted.
    init(_ samples: [UInt64], wallNanoseconds: UInt64? = nil) {
        let sorted = samples.sorted()
        ops = sorted.count
        func rank(_ q: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            let index = min(sorted.count - 1, max(0, Int((q * Double(sorted.count)).rounded(.up)) - 1))
            return Double(sorted[index]) / 1_000
        }
        medianMicroseconds = rank(0.5)
        p99Microseconds = rank(0.99)
        let total = wallNanoseconds ?? sorted.reduce(0, +)
        opsPerSecond = total == 0 ? 0 : Double(sorted.count) * 1e9 / Double(total)
    }
}

// MARK: - Memory

/// Peak resident set size of this process (`VmHWM`), in KiB.
func peakRSSKiB() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }
    return nil
}

/// Resets `VmHWM` to the current RSS (`echo 5 > /proc/self/clear_refs`, Linux ≥ 4.0).
/// - Returns: whether the kernel accepted it; if not, peaks are cumulative over the run.
@discardableResult
func resetPeakRSS() -> Bool {
    let fd = open("/proc/self/clear_refs", O_WRONLY)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    return write(fd, "5", 1) == 1
}

// MARK: - Files

func fileSize(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : 0
}

/// A fresh private temporary directory (`mkdtemp`), under `$TMPDIR` or `/tmp`.
func makeTemporaryDirectory(_ prefix: String) -> String {
    let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    var template = Array("\(base)/\(prefix)-XXXXXX".utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
        fatal("cannot create a temporary directory under \(base)")
    }
    return String(cString: made)
}

func removeTree(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
}

func fatal(_ message: String) -> Never {
    FileHandle.standardError.write(Data("keychain-bench: \(message)\n".utf8))
    exit(1)
}

func log(_ message: String) {
    FileHandle.standardError.write(Data("\(message)\n".utf8))
}

/// The directory this executable is in (sibling products such as `security` are looked up there).
func executableDirectory() -> String {
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return "." }
    let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
}

func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))
        .map { $0.split(separator: " ").prefix(3).joined(separator: " ") } ?? "?"
}

// MARK: - Data set

/// The items every workload uses, identical for our code and the floor.
///
/// Item `i` is a generic password with service `com.example.app<i>` (the first `enumerateCount`
/// items share the service `com.example.enumerate` instead), account `user<i>@example.com`, and a
/// 24-byte secret.
struct DataSet {
    static let enumerateService = "com.example.enumerate"
    let enumerateCount: Int

    init(size: Int) { enumerateCount = min(1_000, size) }

    func service(_ i: Int) -> String { i < enumerateCount ? Self.enumerateService : "com.example.app\(i)" }
    func account(_ i: Int) -> String { "user\(i)@example.com" }

    /// 24 bytes; `version` changes it for updates.
    func secret(_ i: Int, version: Int = 0) -> [UInt8] {
        var bytes = Array("tok\(version)-".utf8)
        var x = UInt64(truncatingIfNeeded: i) &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(version)
        while bytes.count < 24 {
            bytes.append(UInt8(ascii: "a") + UInt8(x % 26))
            x /= 26
            if x == 0 { x = UInt64(truncatingIfNeeded: i &+ bytes.count) &* 0x94D0_49BB_1331_11EB }
        }
        return bytes
    }
}
