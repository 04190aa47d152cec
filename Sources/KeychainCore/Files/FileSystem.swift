#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// The POSIX file calls the engine needs, in one place: private folders and files,
/// exclusive creation, and the ssh-style ownership check.
package enum FileSystem {
    /// The user's home folder from the password database.
    package static func homeDirectory() -> String {
        if let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir { return String(cString: dir) }
        return "/"
    }

    /// Whether a file or folder exists at `path`.
    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Size of the file at `path` in bytes, or `nil` when it cannot be read.
    package static func size(_ path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : nil
    }

    /// What the file at `path` is: `.missing` when nothing is there (`ENOENT`, `ENOTDIR`), its device
    /// and inode numbers when it exists (a file removed and made again gets a new inode), `.unknown`
    /// when it cannot be told (permissions, I/O).
    package enum Identity: Equatable, Sendable {
        case missing
        case file(device: UInt64, inode: UInt64)
        case unknown
    }

    /// The identity of the file at `path`, following symbolic links.
    package static func identity(_ path: String) -> Identity {
        var info = stat()
        guard stat(path, &info) == 0 else { return errno == ENOENT || errno == ENOTDIR ? .missing : .unknown }
        return .file(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// One version of the file at `path`: its device and inode numbers, size, and modification and
    /// status-change times (nanoseconds). A file replaced by a rename (``replace(_:with:)``) has a new
    /// inode; a file rewritten in place changes its size or times. `.missing` when nothing is there,
    /// `.unknown` when it cannot be told (permissions, I/O).
    package enum Version: Equatable, Sendable {
        case missing
        case file(device: UInt64, inode: UInt64, size: Int64, modified: Int64, changed: Int64)
        case unknown
    }

    /// The version of the file at `path`, following symbolic links (one `stat`).
    package static func version(_ path: String) -> Version {
        var info = stat()
        guard stat(path, &info) == 0 else { return errno == ENOENT || errno == ENOTDIR ? .missing : .unknown }
        return .file(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
            changed: Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec))
    }

    /// Mode bits (`st_mode & 0o7777`) of `path`.
    package static func permissions(_ path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_mode & 0o7777) : nil
    }

    /// Creates `path` and its missing parents with mode 0700 whatever the umask; with
    /// `tighteningExisting`, also sets an existing last component to 0700 if it is ours and looser.
    ///
    /// Only the project's own folders (the keychain folder `$XDG_DATA_HOME/keychains`, the device key's,
    /// sync clones and locks) are tightened: a folder that exists and that the user named, such as the
    /// folder of `security create-keychain shared/k.keychain` or the home folder, keeps its mode, as
    /// macOS's `security create-keychain` leaves the folder holding a keychain as it is (tracker issue 23).
    /// - Parameters:
    ///   - path: the folder, absolute or relative.
    ///   - tighteningExisting: whether an existing `path` of ours that group or others may use is set to 0700.
    /// - Throws: `.io` naming the folder that cannot be created, or `path` when it is not a folder.
    package static func makePrivateDirectory(_ path: String, tighteningExisting: Bool = true) throws(KeychainFailure) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw KeychainFailure(.io, "cannot create folder \(prefix): \(String(cString: strerror(errno)))")
            }
        }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw KeychainFailure(.io, "\(path) is not a folder")
        }
        if tighteningExisting && info.st_uid == getuid() && (info.st_mode & 0o077) != 0 { chmod(path, 0o700) }
    }

    /// Refuses a file that another user owns or that group or others may write, as ssh does.
    package static func checkPrivate(_ path: String) throws(KeychainFailure) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        if info.st_uid != getuid() {
            throw KeychainFailure(
                .invalidKeychain, "\(path) is owned by another user (uid \(info.st_uid)); refusing to use it")
        }
        if (info.st_mode & 0o022) != 0 {
            let mode = String(Int(info.st_mode & 0o777), radix: 8)
            throw KeychainFailure(
                .invalidKeychain, "\(path) is writable by group or others (mode \(mode)); run chmod 600 on it")
        }
    }

    /// The folder part of `path` ("" for a bare name), as `dirname` without the "." fallback.
    package static func directory(of path: String) -> String {
        String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    }

    /// Makes the folder that will hold `path`, private (0700), unless `path` is a bare name
    /// (``makePrivateDirectory(_:tighteningExisting:)``).
    /// - Parameters:
    ///   - path: the file the folder is for.
    ///   - tighteningExisting: whether an existing folder of ours that group or others may use is set to 0700;
    ///     `false` for a folder the user named.
    package static func makePrivateDirectory(holding path: String, tighteningExisting: Bool = true)
        throws(KeychainFailure)
    {
        let folder = directory(of: path)
        if !folder.isEmpty { try makePrivateDirectory(folder, tighteningExisting: tighteningExisting) }
    }

    /// Refuses a folder that another user owns or that group or others may write (unless it has
    /// the sticky bit, like `/tmp`), as ssh's StrictModes does for the folders above a key: whoever can
    /// write there can swap the file.
    package static func checkPrivateFolder(of path: String) throws(KeychainFailure) {
        let folder = directory(of: path)
        var info = stat()
        guard !folder.isEmpty, stat(folder, &info) == 0 else { return }
        if info.st_uid != getuid() && info.st_uid != 0 {
            throw KeychainFailure(
                .invalidKeychain, "\(folder) is owned by another user (uid \(info.st_uid)); refusing to use it")
        }
        if (info.st_mode & 0o022) != 0 && (info.st_mode & S_ISVTX) == 0 {
            let mode = String(Int(info.st_mode & 0o777), radix: 8)
            throw KeychainFailure(
                .invalidKeychain, "\(folder) is writable by group or others (mode \(mode)); run chmod 700 on it")
        }
    }

    /// Writes `bytes` to a new file at `path` with mode 0600, durably and atomically:
    /// a temporary file is written, fsynced and hard-linked into place, so a concurrent
    /// creator wins cleanly and nothing half-written is ever visible.
    /// - Returns: `false` when `path` already existed (nothing was written there).
    package static func createExclusive(_ path: String, bytes: UnsafeRawBufferPointer) throws(KeychainFailure) -> Bool {
        let temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw KeychainFailure(.io, "cannot create \(temporary): \(String(cString: strerror(errno)))")
        }
        defer { unlink(temporary) }
        fchmod(fd, 0o600)
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                let reason = errno == ENOSPC ? KeychainStatus.diskFull : .io
                close(fd)
                throw KeychainFailure(reason, "cannot write \(temporary): \(String(cString: strerror(errno)))")
            }
            offset += n
        }
        guard fsync(fd) == 0 else {
            close(fd)
            throw KeychainFailure(.io, "cannot sync \(temporary)")
        }
        close(fd)
        return try linkIfAbsent(temporary, to: path)
    }

    /// Replaces the file at `path` (or creates it) with `bytes`, mode 0600, atomically: a new file is
    /// written and fsynced (``createExclusive(_:bytes:)``), then renamed over `path`, so a reader sees
    /// the old or the new contents, never half of them. Makes the 0700 folder when missing.
    /// - Throws: `.io` (`.diskFull` when the disk is full) naming the file.
    package static func replace(_ path: String, with bytes: [UInt8]) throws(KeychainFailure) {
        try makePrivateDirectory(holding: path)
        let temporary = path + ".new-\(getpid())"
        remove(temporary)
        let created = bytes.withUnsafeBytes { buffer -> Result<Bool, KeychainFailure> in
            do throws(KeychainFailure) { return .success(try createExclusive(temporary, bytes: buffer)) } catch {
                return .failure(error)
            }
        }
        guard try created.get() else { throw KeychainFailure(.io, "cannot create \(temporary)") }
        do {
            try rename(temporary, to: path)
        } catch {
            remove(temporary)
            throw error
        }
    }

    /// Reads a whole small file into protected memory.
    /// - Parameters:
    ///   - path: the file.
    ///   - expectedCount: how many bytes it holds (its size): exactly that many are read.
    /// - Returns: its `expectedCount` bytes, or `nil` when nothing is at `path` (`ENOENT`).
    /// - Throws: `.io` naming the file and `strerror` when it cannot be opened or read (`read(2)`'s
    ///   `EISDIR` for a folder: `cannot read d2: Is a directory`, as ``FileReader`` reports it);
    ///   `.decode` when it ends before `expectedCount` bytes.
    package static func readSecret(_ path: String, expectedCount: Int) throws(KeychainFailure) -> SecureBytes? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw KeychainFailure(.io, "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var failed = false
        var readError: Int32 = 0
        let secret = SecureBytes(count: expectedCount) { buffer in
            var offset = 0
            while offset < expectedCount {
                let n = read(fd, buffer.baseAddress! + offset, expectedCount - offset)
                if n < 0 && errno == EINTR { continue }
                if n < 0 { readError = errno; return }
                if n == 0 { failed = true; return }
                offset += n
            }
        }
        if readError != 0 {
            throw KeychainFailure(.io, "cannot read \(path): \(String(cString: strerror(readError)))")
        }
        if failed { throw KeychainFailure(.decode, "\(path) is shorter than \(expectedCount) bytes") }
        return secret
    }

    /// Moves `source` over `destination` atomically (`rename`).
    package static func rename(_ source: String, to destination: String) throws(KeychainFailure) {
        if Glibc.rename(source, destination) != 0 {
            throw KeychainFailure(.io, "cannot rename \(source): \(String(cString: strerror(errno)))")
        }
        syncDirectory(of: destination)
    }

    /// Removes a file; a missing file is not an error.
    package static func remove(_ path: String) {
        unlink(path)
    }

    /// Creates an empty file with mode 0600 whatever the umask.
    /// - Returns: `false` when it existed already.
    package static func createEmptyPrivateFile(_ path: String) throws(KeychainFailure) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd < 0 {
            if errno == EEXIST { return false }
            throw KeychainFailure(.io, "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        fchmod(fd, 0o600)
        close(fd)
        return true
    }

    private static func syncDirectory(of path: String) {
        let folder = directory(of: path)
        let fd = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }
}

extension FileSystem {
    /// Hard-links `source` to `destination` unless `destination` exists, and syncs the folder so
    /// that the new name survives a power cut.
    /// - Returns: `false` when `destination` already existed.
    package static func linkIfAbsent(_ source: String, to destination: String) throws(KeychainFailure) -> Bool {
        if link(source, destination) != 0 {
            if errno == EEXIST { return false }
            throw KeychainFailure(.io, "cannot create \(destination): \(String(cString: strerror(errno)))")
        }
        syncDirectory(of: destination)
        return true
    }

    /// Sleeps the calling thread.
    package static func sleep(microseconds: UInt32) {
        usleep(microseconds)
    }
}
