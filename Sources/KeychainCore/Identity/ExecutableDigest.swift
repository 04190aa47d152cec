#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// SHA-256 of a program file, for the `exe:<path>@sha256:<hex>` identity of a program the user can
/// modify (libsodium's `crypto_hash_sha256`, ``Sodium/sha256(reading:)``; no hand-written primitive).
///
/// Digests are kept by file (device, inode, size, modification and change times, from `fstat` of the
/// open file), so that a new connection of the same program does not read it again, while a file
/// written or replaced since is read again. Not `Sendable`: the Secret Service provider uses one on its
/// main context; ``CallerIdentity/current`` uses its own once.
package final class ExecutableDigest {
    private struct FileKey: Hashable {
        let device: UInt64, inode: UInt64, size: Int64
        let modified: Int, modifiedNanoseconds: Int, changed: Int, changedNanoseconds: Int
    }

    private var known: [FileKey: String] = [:]

    package init() {}

    /// Returns the lowercase hex SHA-256 of the file open at `fd` and closes it; `nil` on a read error.
    package func sha256(of fd: Int32) -> String? {
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return nil }
        let key = FileKey(
            device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
            modified: status.st_mtim.tv_sec, modifiedNanoseconds: status.st_mtim.tv_nsec,
            changed: status.st_ctim.tv_sec, changedNanoseconds: status.st_ctim.tv_nsec)
        if let digest = known[key] { return digest }
        guard let digest = Self.digest(fd) else { return nil }
        if known.count >= 256 { known.removeAll() }
        known[key] = digest
        return digest
    }

    private static func digest(_ fd: Int32) -> String? {
        let digest = Sodium.sha256 { buffer in
            while true {
                let count = read(fd, buffer.baseAddress, buffer.count)
                if count < 0 && errno == EINTR { continue }
                return count
            }
        }
        return digest.map(Sodium.hex)
    }
}
