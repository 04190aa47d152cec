#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

extension FileSystem {
    /// The current directory (`getcwd(3)`), or `nil` when it cannot be read (removed, or too long).
    package static func currentDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `path` made absolute and normalised without touching the disk: what Foundation's
    /// `URL(fileURLWithPath: path, relativeTo: cwd).standardizedFileURL.path` gives, which
    /// ``KeychainLocation/named(_:environment:)`` used before (tracker issue 23).
    ///
    /// - A leading `~` component is the user's home folder from the password database (not `$HOME`), and
    ///   `~name` is that user's; `~name` of an unknown user stays a relative name, as Foundation leaves it.
    /// - A relative path is joined to `currentDirectory` (the process's current folder by default; `/`
    ///   when that cannot be read).
    /// - Then, lexically: empty components (`//`) and `.` are dropped, `..` drops the component before it
    ///   (nothing above `/`), and no trailing `/` is kept. Symbolic links are not resolved.
    /// - Parameters:
    ///   - path: a path, absolute or relative.
    ///   - currentDirectory: the folder a relative `path` is taken from.
    /// - Returns: an absolute path: `/`, or `/` followed by components joined with `/`.
    package static func absolutePath(_ path: String, currentDirectory: String? = nil) -> String {
        var path = path
        if path.hasPrefix("~") {
            let end = path.firstIndex(of: "/") ?? path.endIndex
            let user = path[path.index(after: path.startIndex)..<end]
            let home: String? =
                user.isEmpty
                ? homeDirectory()
                : getpwnam(String(user)).flatMap { $0.pointee.pw_dir.map { String(cString: $0) } }
            if let home { path = home + path[end...] }
        }
        if !path.hasPrefix("/") {
            path = (currentDirectory ?? self.currentDirectory() ?? "/") + "/" + path
        }
        var components: [Substring] = []
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".": continue
            case "..": _ = components.popLast()
            default: components.append(component)
            }
        }
        return "/" + components.joined(separator: "/")
    }
}
