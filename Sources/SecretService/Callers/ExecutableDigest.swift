internal import COpenSSL

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// SHA-256 of a program file, for the `exe:<path>@sha256:<hex>` identity of a program the user can
/// modify (OpenSSL's EVP digest; no hand-written primitive).
///
/// Digests are kept by file (device, inode, size, modification and change times, from `fstat` of the
/// open file), so that a new connection of the same program does not read it again, while a file
/// written or replaced since is read again. Not `Sendable`: used on the provider's main context only.
final class ExecutableDigest {
    private struct FileKey: Hashable {
        let device: UInt64, inode: UInt64, size: Int64
        let modified: Int, modifiedNanoseconds: Int, changed: Int, changedNanoseconds: Int
    }

    private var known: [FileKey: String] = [:]

    init() {}

    /// Returns the lowercase hex SHA-256 of the file open at `fd` and closes it; `nil` on a read error.
    func sha256(of fd: Int32) -> String? {
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
        guard let context = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else { return nil }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            guard chunk.withUnsafeBytes({ EVP_DigestUpdate(context, $0.baseAddress, count) }) == 1 else { return nil }
        }
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &digest, &length) == 1, length == 32 else { return nil }
        let hex = Array("0123456789abcdef".utf8)
        return String(decoding: digest.flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 15)]] }, as: UTF8.self)
    }
}
