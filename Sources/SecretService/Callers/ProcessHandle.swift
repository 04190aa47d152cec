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
/// Linux 5.3 and 5.4 have pidfds without that line (it came in 5.5): there the pidfd still says the
/// process is alive, and its start time (below) that the pid still names it.
///
/// Without `pidfd_open` (`ENOSYS`: a kernel before 5.3, or valgrind 3.19; `EPERM`: a seccomp filter,
/// since the call itself never fails so), the process is held by its start time instead: field 22 of
/// `/proc/<pid>/stat`, read through the directory when it is opened and compared, in ``verify()``, with
/// the same field read through the directory and through the path `/proc/<pid>`. A changed or missing
/// start time means the pid now names another process, or none. This is weaker only in that a pid freed
/// and reused within one clock tick (`_SC_CLK_TCK`, 10 ms) would show the same start time; the
/// directory's reads failing once its process is gone still catch that case (docs/SECURITY.md).
///
/// Not `Sendable`: it owns its file descriptors, closed in `deinit`.
final class ProcessHandle {
    /// Opens a pidfd for a pid: the descriptor, or `-1` and the `errno` of the failure.
    typealias PidfdOpener = @Sendable (Int32) -> (fd: Int32, error: Int32)

    /// `pidfd_open(2)`.
    static let systemPidfdOpener: PidfdOpener = { pid in
        let fd = pidfd_open(pid, 0)
        return (fd, fd >= 0 ? 0 : errno)
    }

    /// What ties the handle to its process.
    private enum Anchor {
        /// A pidfd, owned and closed by the handle, whose fdinfo shows its pid (Linux 5.5 and later).
        case pidfd(Int32)
        /// A pidfd whose fdinfo has no `Pid:` line (Linux 5.3 and 5.4), with the process's start time:
        /// the pidfd says the process is alive, the start time that the pid still names it.
        case pidfdStartTime(Int32, UInt64)
        /// The process's start time (clock ticks after boot), when no pidfd can be opened.
        case startTime(UInt64)
    }

    let pid: Int32
    private let anchor: Anchor
    private let directory: Int32

    /// Holds process `pid`.
    /// - Parameters:
    ///   - pid: the process id (from the bus daemon).
    ///   - pidfd: a pidfd for it (the daemon's `ProcessFD`), which this handle then owns and closes; `nil`:
    ///     one is opened with `openPidfd`.
    ///   - openPidfd: opens the pidfd (`pidfd_open(2)`; tests give one that fails as an old kernel does).
    ///     When it fails with `ENOSYS` or `EPERM`, the process is held by its start time instead.
    /// - Throws: ``CallerLookupError/processGone(_:)`` when `pid` no longer names the process of the
    ///   pidfd (it exited, or the pidfd is another process's) or no process at all;
    ///   ``CallerLookupError/system(_:_:)`` when `pidfd_open` fails otherwise (`EINVAL`, `EMFILE`, …), or
    ///   opening `/proc/<pid>` or reading its `stat` fails for another reason than the process being gone.
    init(
        pid: Int32, pidfd: Int32? = nil, openPidfd: PidfdOpener = ProcessHandle.systemPidfdOpener
    ) throws(CallerLookupError) {
        self.pid = pid
        var fd = pidfd ?? -1
        if pidfd == nil {
            let opened = openPidfd(pid)
            fd = opened.fd
            if fd < 0 && opened.error == ESRCH { throw .processGone(pid) }
            // ENOSYS: no such call; EPERM: never the call's own answer, so a seccomp filter's. EINVAL
            // (bad flags, or a thread that is not a process's leader) means a wrong pid: refused.
            if fd < 0 && opened.error != ENOSYS && opened.error != EPERM {
                throw .system("pidfd_open(\(pid))", opened.error)
            }
        }
        let directory = open("/proc/\(pid)", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else {
            let code = errno
            if fd >= 0 { close(fd) }
            throw code == ENOENT ? .processGone(pid) : .system("open /proc/\(pid)", code)
        }
        self.directory = directory
        if fd >= 0, Self.pidfdTarget(fd) != .noPidLine {
            anchor = .pidfd(fd)
        } else if fd >= 0 {
            guard let started = Self.startTime(openat(directory, "stat", O_RDONLY | O_CLOEXEC)) else {
                close(directory)
                close(fd)
                throw .processGone(pid)
            }
            anchor = .pidfdStartTime(fd, started)
        } else {
            guard let started = Self.startTime(openat(directory, "stat", O_RDONLY | O_CLOEXEC)) else {
                close(directory)
                throw .processGone(pid)
            }
            anchor = .startTime(started)
        }
        try verify()
    }

    deinit {
        close(directory)
        switch anchor {
        case .pidfd(let fd), .pidfdStartTime(let fd, _): close(fd)
        case .startTime: break
        }
    }

    /// Whether the process is held by its start time because no pidfd could be opened.
    var heldByStartTime: Bool {
        if case .startTime = anchor { true } else { false }
    }

    /// Whether the process is held by a pidfd and its start time because the pidfd's fdinfo has no
    /// `Pid:` line (Linux 5.3 and 5.4).
    var heldByPidfdAndStartTime: Bool {
        if case .pidfdStartTime = anchor { true } else { false }
    }

    /// Checks that the handle's process is alive and is still process ``pid``.
    /// - Throws: ``CallerLookupError/processGone(_:)`` otherwise.
    func verify() throws(CallerLookupError) {
        switch anchor {
        case .pidfd(let fd):
            guard Self.pidfdTarget(fd) == .pid(pid), pidfd_send_signal(fd, 0, nil, 0) == 0 else {
                throw .processGone(pid)
            }
        case .pidfdStartTime(let fd, let started):
            guard pidfd_send_signal(fd, 0, nil, 0) == 0 else { throw .processGone(pid) }
            try verify(startedAt: started)
        case .startTime(let started):
            try verify(startedAt: started)
        }
    }

    /// Checks that the process the directory was opened for, and the one ``pid`` names now, both
    /// started at `started`: reads through the directory fail once its process is gone, and the path
    /// `/proc/<pid>` reaches whichever process has the pid now.
    /// - Throws: ``CallerLookupError/processGone(_:)`` when either start time differs or cannot be read.
    func verify(startedAt started: UInt64) throws(CallerLookupError) {
        let held = Self.startTime(openat(directory, "stat", O_RDONLY | O_CLOEXEC))
        let named = Self.startTime(open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC))
        guard held == started, named == started else { throw .processGone(pid) }
    }

    /// A new pidfd for `pid` (`pidfd_open(2)`), or `-1` with `errno` set; the caller closes it.
    static func openPidfd(_ pid: Int32) -> Int32 { pidfd_open(pid, 0) }

    /// What a pidfd's fdinfo says of its process.
    enum PidfdTarget: Equatable {
        /// The `Pid:` line's pid (`-1` once the process has exited).
        case pid(Int32)
        /// No `Pid:` line: Linux 5.3 and 5.4 (the line came in 5.5). The process is then also held by its
        /// start time.
        case noPidLine
        /// The fdinfo could not be read, or its `Pid:` line holds no number.
        case unreadable
    }

    /// The pid a pidfd refers to, from `/proc/self/fdinfo/<fd>`.
    static func pidfdTarget(_ fd: Int32) -> PidfdTarget {
        let info = open("/proc/self/fdinfo/\(fd)", O_RDONLY | O_CLOEXEC)
        guard info >= 0, let bytes = Self.readAll(info, limit: 4096) else { return .unreadable }
        return pidfdTarget(fdinfo: bytes)
    }

    /// The `Pid:` line of a pidfd's fdinfo text.
    static func pidfdTarget(fdinfo: [UInt8]) -> PidfdTarget {
        for line in fdinfo.split(separator: UInt8(ascii: "\n")) where line.starts(with: Array("Pid:".utf8)) {
            let value = String(decoding: line.dropFirst(4), as: UTF8.self).trimmingSpaces
            return Int32(value).map(PidfdTarget.pid) ?? .unreadable
        }
        return .noPidLine
    }

    /// The start time (field 22, clock ticks after boot) from a `stat` file open at `fd`, which this
    /// closes; `nil` when it cannot be opened or read (the process is gone) or the field is missing.
    static func startTime(_ fd: Int32) -> UInt64? {
        guard fd >= 0, let bytes = readAll(fd, limit: 4096) else { return nil }
        return startTime(stat: bytes)
    }

    /// Field 22 of a `/proc/<pid>/stat` line. The command name (field 2) is in parentheses and may
    /// itself hold spaces and parentheses, so the fields are counted after its last `)`: field 3 first.
    static func startTime(stat: [UInt8]) -> UInt64? {
        guard let end = stat.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = stat[(end + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count > 19 else { return nil }
        return UInt64(String(decoding: fields[fields.startIndex + 19], as: UTF8.self).trimmingSpaces)
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
