#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// A new private file (mode 0600) written through a buffer and published atomically.
///
/// The bytes go to a temporary file created with `O_EXCL` next to `path`; ``commit()`` syncs it
/// and links it into place (or renames it over an existing file when overwriting was asked for),
/// so nobody ever sees half a file and an existing file is never replaced by accident.
/// A writer released without `commit` removes its temporary file.
///
/// Not `Sendable`: it owns a file descriptor.
package final class FileWriter {
    /// The path the file is published at.
    package let path: String
    private let temporary: String
    private let overwrite: Bool
    private let wipesBuffer: Bool
    private var descriptor: Int32
    private var buffer: [UInt8]
    private var used = 0
    private var committed = false
    /// Bytes written so far.
    package private(set) var bytesWritten = 0

    /// Creates the temporary file.
    /// - Parameters:
    ///   - path: where ``commit()`` publishes the file.
    ///   - overwrite: replace an existing file at `path`; without it an existing file is an error.
    ///   - wipesBuffer: zero the write buffer after each flush, for plaintext secrets (CSV export).
    /// - Throws: `.duplicateItem` when `path` exists and `overwrite` is false; `.io` when the file cannot be created.
    package init(path: String, overwrite: Bool, wipesBuffer: Bool = false) throws(KeychainFailure) {
        if !overwrite && FileSystem.exists(path) {
            throw KeychainFailure(.duplicateItem, "\(path) already exists; refusing to overwrite it")
        }
        self.path = path
        self.overwrite = overwrite
        self.wipesBuffer = wipesBuffer
        temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw KeychainFailure(.io, "cannot create \(temporary): \(String(cString: strerror(errno)))")
        }
        fchmod(descriptor, 0o600)
        buffer = [UInt8](repeating: 0, count: 1 << 16)
    }

    deinit {
        if wipesBuffer { buffer.withUnsafeMutableBytes { Sodium.wipe($0) } }
        if descriptor >= 0 { close(descriptor) }
        if !committed { unlink(temporary) }
    }

    /// Appends bytes.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(KeychainFailure) {
        var offset = 0
        while offset < bytes.count {
            if used == buffer.count { try flush() }
            offset += append(bytes, from: offset)
        }
        bytesWritten += bytes.count
    }

    /// Appends plain bytes.
    package func write(_ bytes: [UInt8]) throws(KeychainFailure) {
        var offset = 0
        while offset < bytes.count {
            if used == buffer.count { try flush() }
            offset += bytes.withUnsafeBytes { append($0, from: offset) }
        }
        bytesWritten += bytes.count
    }

    /// Appends a secret without copying it into a Swift array (it passes through the buffer only).
    package func write(_ secret: SecureBytes) throws(KeychainFailure) {
        try secret.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws(KeychainFailure) in try write(raw) }
    }

    /// Copies as much of `bytes[offset...]` as fits into the buffer; returns how much.
    private func append(_ bytes: UnsafeRawBufferPointer, from offset: Int) -> Int {
        let n = min(buffer.count - used, bytes.count - offset)
        buffer.withUnsafeMutableBytes { out in
            out.baseAddress!.advanced(by: used).copyMemory(from: bytes.baseAddress!.advanced(by: offset), byteCount: n)
        }
        used += n
        return n
    }

    private func flush() throws(KeychainFailure) {
        var offset = 0
        while offset < used {
            let n = buffer.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, used - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                let status = errno == ENOSPC ? KeychainStatus.diskFull : .io
                throw KeychainFailure(status, "cannot write \(temporary): \(String(cString: strerror(errno)))")
            }
            offset += n
        }
        if wipesBuffer {
            buffer.withUnsafeMutableBytes { Sodium.wipe(UnsafeMutableRawBufferPointer(rebasing: $0[..<used])) }
        }
        used = 0
    }

    /// Flushes, syncs and publishes the file at ``path``.
    /// - Throws: `.duplicateItem` when a file appeared at `path` meanwhile and `overwrite` is false;
    ///   `.io` or `.diskFull` when writing fails.
    package func commit() throws(KeychainFailure) {
        try flush()
        guard fsync(descriptor) == 0 else { throw KeychainFailure(.io, "cannot sync \(temporary)") }
        close(descriptor)
        descriptor = -1
        if overwrite {
            try FileSystem.rename(temporary, to: path)
        } else if !(try FileSystem.linkIfAbsent(temporary, to: path)) {
            throw KeychainFailure(.duplicateItem, "\(path) already exists; refusing to overwrite it")
        } else {
            unlink(temporary)
        }
        committed = true
    }
}
