internal import CPidfd

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// A process held by a pidfd, with its `/proc/<pid>` directory open and checked to belong to the same
/// process, so that everything read through it describes that process even if the pid is reused.
///
/// A `/proc/<pid>` directory descriptor stays bound to the process it was opened for: once that process
/// is gone, reads through it fail instead of reaching a newer process with the same pid. What remains is
/// to know that the directory was opened for the right process, and ``verify()`` checks it: the pidfd's
/// `Pid:` line in `/proc/self/fdinfo` must still equal the pid (the kernel shows `-1` once the process
/// has exited) and the process must still accept signal 0. Called after opening and again after reading.
///
/// Not `Sendable`: it owns two file descriptors, closed in `deinit`.
final class ProcessHandle {
    let pid: Int32
    private let pidfd: Int32
    private let directory: Int32

    /// Holds process `pid`.
    /// - Parameters:
    ///   - pid: the process id (from the bus daemon).
    ///   - pidfd: a pidfd for it (the daemon's `ProcessFD`), which this handle then owns and closes; `nil`:
    ///     one is opened with `pidfd_open(2)`.
    /// - Throws: ``CallerLookupError/processGone(_:)`` when `pid` no longer names the process of the
    ///   pidfd (it exited, or the pidfd is another process's); ``CallerLookupError/system(_:_:)`` when
    ///   `pidfd_open` or opening `/proc/<pid>` fails otherwise.
    init(pid: Int32, pidfd: Int32? = nil) throws(CallerLookupError) {
        self.pid = pid
        let fd = pidfd ?? pidfd_open(pid, 0)
        guard fd >= 0 else {
            throw errno == ESRCH ? .processGone(pid) : .system("pidfd_open(\(pid))", errno)
        }
        let directory = open("/proc/\(pid)", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else {
            let code = errno
            close(fd)
            throw code == ENOENT ? .processGone(pid) : .system("open /proc/\(pid)", code)
        }
        self.pidfd = fd
        self.directory = directory
        try verify()
    }

    deinit {
        close(directory)
        close(pidfd)
    }

    /// Checks that the pidfd's process is alive and is still process ``pid``.
    /// - Throws: ``CallerLookupError/processGone(_:)`` otherwise.
    func verify() throws(CallerLookupError) {
        guard Self.pidfdTarget(pidfd) == pid, pidfd_send_signal(pidfd, 0, nil, 0) == 0 else {
            throw .processGone(pid)
        }
    }

    /// A new pidfd for `pid` (`pidfd_open(2)`), or `-1` with `errno` set; the caller closes it.
    static func openPidfd(_ pid: Int32) -> Int32 { pidfd_open(pid, 0) }

    /// The pid a pidfd refers to, from `/proc/self/fdinfo/<fd>` (`-1` once the process has exited;
    /// `nil` if the line is missing).
    static func pidfdTarget(_ fd: Int32) -> Int32? {
        let info = open("/proc/self/fdinfo/\(fd)", O_RDONLY | O_CLOEXEC)
        guard info >= 0, let bytes = Self.readAll(info, limit: 4096) else { return nil }
        for line in bytes.split(separator: UInt8(ascii: "\n")) where line.starts(with: Array("Pid:".utf8)) {
            let value = String(decoding: line.dropFirst(4), as: UTF8.self).trimmingSpaces
            return Int32(value)
        }
        return nil
    }

    /// The bytes of `/proc/<pid>/<name>` (at most `limit`), or `nil` when it cannot be read.
    func contents(_ name: String, limit: Int = 1 << 16) -> [UInt8]? {
        let fd = openat(directory, name, O_RDONLY | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return nil }
        return Self.readAll(fd, limit: limit)
    }

    /// The target of the symbolic link `/proc/<pid>/<name>` (`exe`, `cwd`), or `nil`.
    func link(_ name: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlinkat(directory, name, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Opens `/proc/<pid>/<name>` for reading (the caller closes it): `exe` opens the very file the
    /// process runs, even if it has been replaced or deleted since.
    func openFile(_ name: String) -> Int32 { openat(directory, name, O_RDONLY | O_CLOEXEC | O_NOCTTY) }

    /// Reads `fd` to its end (at most `limit` bytes) and closes it; `nil` on a read error.
    private static func readAll(_ fd: Int32, limit: Int) -> [UInt8]? {
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < limit {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            bytes += chunk[..<count]
        }
        return Array(bytes.prefix(limit))
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and newlines (no Foundation here).
    var trimmingSpaces: String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
