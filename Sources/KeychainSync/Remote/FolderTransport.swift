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
        FileSystem.contents(root + "/" + path)
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
        var names: [String] = []
        for name in FileSystem.entries(path) ?? [] {
            guard Self.isFormatName(name) else { continue }
            var info = stat()
            guard stat(path + "/" + name, &info) == 0 else { continue }
            let isFolder = (info.st_mode & S_IFMT) == S_IFDIR
            if isFolder == folders { names.append(name) }
        }
        return names.sorted()
    }
}
