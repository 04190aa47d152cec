#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// This process's environment and id, read from libc: what the engine and the command-line tools
/// used Foundation's `ProcessInfo` for (tracker issue 23: the tools do not link Foundation).
package enum ProcessEnvironment {
    /// The process environment as a dictionary, read straight from `environ(7)` at each call (a
    /// `setenv(3)` since the last call is seen).
    ///
    /// What `ProcessInfo.processInfo.environment` returns (for a variable set twice, the first
    /// setting, as `getenv(3)` answers), at half its cost: Foundation's getter took 612k of the 6.9M
    /// instructions of a whole `security find-generic-password -w` process, this 305k (callgrind, issue 15).
    /// Entries without `=` are skipped.
    /// - Returns: each variable's value by name.
    package static func current() -> [String: String] {
        var result: [String: String] = [:]
        var entry: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = environ
        while let pointer = entry.pointee {
            let length = strlen(pointer)
            pointer.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
                let buffer = UnsafeBufferPointer(start: bytes, count: length)
                guard let equals = buffer.firstIndex(of: UInt8(ascii: "=")) else { return }
                let name = String(decoding: UnsafeBufferPointer(rebasing: buffer[..<equals]), as: UTF8.self)
                if result[name] == nil {
                    result[name] = String(
                        decoding: UnsafeBufferPointer(rebasing: buffer[(equals + 1)...]), as: UTF8.self)
                }
            }
            entry += 1
        }
        return result
    }

    /// This process's id (`getpid(2)`), as `ProcessInfo.processInfo.processIdentifier` gives it.
    package static var processIdentifier: Int32 { getpid() }
}
