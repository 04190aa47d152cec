internal import Glibc
internal import KeychainCore

/// A folder that another engine (Syncthing, Nextcloud, Dropbox, a mounted share) keeps in sync: reads and
/// writes go straight to it; each file is written to a temporary name and renamed, so the engine never sees
/// half a file.
package struct FolderTransport: SyncTransport {
    package let root: String

    package init(root: String) { self.root = root }

    package var displayName: String { root }

    package func pull() throws(SyncError) {
        guard FileSystem.exists(root) else { throw SyncError(.remote, "the sync folder \(root) is missing") }
    }

    package func list(_ directory: String) throws(SyncError) -> [String] {
        entries(directory, folders: false)
    }

    package func folders(_ directory: String) throws(SyncError) -> [String] {
        entries(directory, folders: true)
    }

    package func read(_ path: String) throws(SyncError) -> [UInt8]? {
        FolderTransport.readFile(root + "/" + path)
    }

    package func write(_ files: [(path: String, bytes: [UInt8])]) throws(SyncError) {
        for (index, file) in files.enumerated() {
            if index == 1 { CrashPoint.reach("sync.writing") }
            do { try FileSystem.replace(root + "/" + file.path, with: file.bytes) } catch {
                throw SyncError(.remote, "cannot write \(file.path) in \(root): \(error.detail ?? "I/O error")")
            }
        }
    }

    package func remove(_ paths: [String]) throws(SyncError) {
        for path in paths { FileSystem.remove(root + "/" + path) }
    }

    package func publish(message: String) throws(SyncError) {}

    private func entries(_ directory: String, folders: Bool) -> [String] {
        let path = root + "/" + directory
        guard let handle = opendir(path) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name != ".", name != "..", Self.isFormatName(name) else { continue }
            var info = stat()
            guard stat(path + "/" + name, &info) == 0 else { continue }
            let isFolder = (info.st_mode & S_IFMT) == S_IFDIR
            if isFolder == folders { names.append(name) }
        }
        return names.sorted()
    }

    /// A whole file, or nil when it is missing or unreadable.
    static func readFile(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return nil }
            if n == 0 { return bytes }
            bytes += buffer[0..<n]
        }
    }
}
