#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// Reads a file front to back through a fixed buffer, so memory does not grow with the file.
///
/// Not `Sendable`: it owns a file descriptor.
package final class FileReader {
    /// The file's path, for messages.
    package let path: String
    private let descriptor: Int32
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var reachedEnd = false

    /// Opens `path` for reading.
    /// - Throws: `.io` when it cannot be opened.
    package init(path: String) throws(KeychainFailure) {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw KeychainFailure(.io, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        buffer = [UInt8](repeating: 0, count: 1 << 16)
    }

    deinit { close(descriptor) }

    private func fill() throws(KeychainFailure) {
        if start == end { start = 0; end = 0 }
        guard !reachedEnd, end < buffer.count else { return }
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + end, $0.count - end) }
            if n < 0 {
                if errno == EINTR { continue }
                throw KeychainFailure(.io, "cannot read \(path): \(String(cString: strerror(errno)))")
            }
            if n == 0 { reachedEnd = true }
            end += n
            return
        }
    }

    /// Reads up to `count` bytes; fewer only at the end of the file.
    package func read(_ count: Int) throws(KeychainFailure) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(count)
        while result.count < count {
            if start == end {
                try fill()
                if start == end { break }
            }
            let n = min(end - start, count - result.count)
            result += buffer[start..<(start + n)]
            start += n
        }
        return result
    }

    /// Whether every byte has been read.
    package func isAtEnd() throws(KeychainFailure) -> Bool {
        if start < end { return false }
        try fill()
        return start == end
    }
}
