#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// This user's use of the kernel's key quota, as `/proc/key-users` reports it (`keyrings(7)`):
/// an ordinary user may hold 200 keys and 20,000 bytes by default (`/proc/sys/kernel/keys/maxkeys`,
/// `maxbytes`), root 1,000,000 and 25,000,000.
package struct KeyQuota: Sendable, Equatable {
    /// Keys held, and the most allowed.
    package let keys: Int
    package let maxKeys: Int
    /// Bytes held (descriptions and payloads), and the most allowed.
    package let bytes: Int
    package let maxBytes: Int

    /// The current figures for this process's user, or `nil` when `/proc/key-users` cannot be read.
    package static func current() -> KeyQuota? {
        guard let file = fopen("/proc/key-users", "r") else { return nil }
        defer { fclose(file) }
        let prefix = "\(getuid()):"
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0, let line {
            let fields = String(cString: line).split(whereSeparator: { $0 == " " || $0 == "\n" })
            // "<uid>: <usage> <nkeys>/<nikeys> <qnkeys>/<maxkeys> <qnbytes>/<maxbytes>"
            guard fields.count == 5, fields[0] == prefix else { continue }
            let quota = fields[3].split(separator: "/").compactMap { Int($0) }
            let size = fields[4].split(separator: "/").compactMap { Int($0) }
            guard quota.count == 2, size.count == 2 else { return nil }
            return KeyQuota(keys: quota[0], maxKeys: quota[1], bytes: size[0], maxBytes: size[1])
        }
        return nil
    }
}
