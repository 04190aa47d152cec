#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

extension FileSystem {
    /// The whole file at `path` (a configuration file, an entitlements property list: small files, read
    /// into ordinary memory, so never a secret), or `nil` when it is missing, unreadable or a folder, as
    /// Foundation's `FileManager.contents(atPath:)` answered.
    /// - Parameter path: the file to read; symbolic links are followed.
    /// - Returns: its bytes (empty for an empty file), or `nil`.
    package static func contents(_ path: String) -> [UInt8]? {
        try? readContents(path).get()
    }

    /// Why a file could not be read: the `errno` of `open(2)` or `read(2)`.
    package struct ReadError: Error, Equatable, Sendable {
        /// The `errno` value (`ENOENT`, `EACCES`, `EISDIR` for a folder, …).
        package let number: Int32
        /// `strerror`'s text for it: `No such file or directory`, `Permission denied`, `Is a directory`.
        package var message: String { String(cString: strerror(number)) }
    }

    /// The whole file at `path`, as ``contents(_:)`` reads it, or why it could not be read.
    /// - Parameter path: the file to read; symbolic links are followed.
    /// - Returns: its bytes (empty for an empty file), or the ``ReadError`` of the `open(2)` or `read(2)`
    ///   that failed (`EISDIR` for a folder, which opens but cannot be read).
    package static func readContents(_ path: String) -> Result<[UInt8], ReadError> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(ReadError(number: errno)) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 14)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return .failure(ReadError(number: errno)) }
            if count == 0 { return .success(bytes) }
            bytes += buffer[0..<count]
        }
    }

    /// Whether this process may execute the file at `path` (`access(2)` with `X_OK`, as Foundation's
    /// `FileManager.isExecutableFile(atPath:)` asks; a searchable folder answers `true` too).
    package static func isExecutable(_ path: String) -> Bool {
        access(path, X_OK) == 0
    }

    /// The names in the folder at `path` (`opendir(3)`, `readdir(3)`), without `.` and `..`, in the
    /// order the file system gives them; `nil` when it cannot be opened (missing, not a folder, no permission).
    package static func entries(_ path: String) -> [String]? {
        guard let folder = opendir(path) else { return nil }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// When the file at `path` was last modified (`st_mtim` of `lstat(2)`: a symbolic link's own time, not its
    /// target's), as Foundation's `FileManager.attributesOfItem(atPath:)[.modificationDate]` gave it.
    /// - Parameter path: the file, folder or symbolic link.
    /// - Returns: its modification time to the nanosecond, or `nil` when nothing is there or it cannot be read.
    package static func modificationTime(_ path: String) -> AbsoluteTime? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return AbsoluteTime(
            secondsSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1_000_000_000)
    }

    /// Removes `path` and, when it is a folder, everything in it, as `rm -rf` does: symbolic links are
    /// removed, never followed.
    /// - Returns: whether everything was removed; `false` when `path` does not exist or something in it
    ///   could not be removed (what could be removed is gone).
    @discardableResult
    package static func removeTree(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { return false }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { return unlink(path) == 0 }
        var removedAll = true
        for name in entries(path) ?? [] where !removeTree(path + "/" + name) { removedAll = false }
        return rmdir(path) == 0 && removedAll
    }
}
