internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// The `exe:` identities: of a Secret Service client's program, of this process (the SecItem side's
/// trusted-application lists), and of a program a `security add-*-password -T path` names. One rule for
/// all three, so that an item trusted for `/usr/bin/foo` by `-T` is read by `/usr/bin/foo` without asking.
extension CallerIdentity {
    // MARK: - Package

    /// The `exe:` identity of the program at `link` (the target of `/proc/<pid>/exe`, or a resolved
    /// path): `exe:<path>` when the user can modify neither the file nor its folder (a package-managed
    /// program, so that an update does not ask again), else `exe:<path>@sha256:<hex>` of the file's
    /// content (so that a replaced binary asks again); a deleted file (`… (deleted)`) always has its digest.
    /// - Parameters:
    ///   - link: the program's path, perhaps with the kernel's ` (deleted)` suffix.
    ///   - digests: the cache of program digests.
    ///   - openFile: opens the very file the process runs (`/proc/<pid>/exe`) for reading; called only
    ///     when the digest is needed. A digest that cannot be read is `unreadable`.
    ///   - script: the interpreter's script (a weak hint), or `nil`.
    ///   - unit: the systemd unit, or `nil`.
    /// - Returns: the identity.
    package static func executable(
        link: String, digests: ExecutableDigest, openFile: () -> Int32, script: String? = nil, unit: String? = nil
    ) -> CallerIdentity {
        let deletedSuffix = " (deleted)"
        let deleted = link.hasSuffix(deletedSuffix)
        let path = deleted ? String(link.dropLast(deletedSuffix.count)) : link
        // A file the user can change, or one in a folder the user can change (rename a new one over
        // it), is identified by its content as well; a replaced (deleted) file always is.
        let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let modifiable = deleted || access(path, W_OK) == 0 || access(folder.isEmpty ? "/" : folder, W_OK) == 0
        let digest = modifiable ? digests.sha256(of: openFile()) ?? "unreadable" : nil
        return CallerIdentity(kind: .executable(path: path, sha256: digest), script: script, unit: unit)
    }

    /// This process's identity, by the same rule as a Secret Service client's (`/proc/self/exe`):
    /// what a SecItem item's trusted-application list is checked against. Worked out once per process
    /// (the program a process runs does not change until it `exec`s); `unidentified` when `/proc` is hidden.
    package static var current: CallerIdentity {
        currentIdentity.withLock { cached in
            if let cached { return cached }
            let identity =
                link("/proc/self/exe").map { link in
                    executable(link: link, digests: ExecutableDigest()) {
                        open("/proc/self/exe", O_RDONLY | O_CLOEXEC | O_NOCTTY)
                    }
                } ?? CallerIdentity(kind: .unidentified)
            cached = identity
            return identity
        }
    }

    /// The identity of the program at `path`, as a process running it would have (`-T appPath` of
    /// `security add-generic-password`): the path made absolute and its symbolic links resolved, as
    /// `/proc/<pid>/exe` shows it.
    /// - Returns: the identity, or `nil` when no regular file is at `path`.
    package static func program(atPath path: String) -> CallerIdentity? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        let absolute = String(cString: resolved)
        var status = stat()
        guard stat(absolute, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return executable(link: absolute, digests: ExecutableDigest()) {
            open(absolute, O_RDONLY | O_CLOEXEC | O_NOCTTY)
        }
    }

    // MARK: - Private

    private static let currentIdentity = Mutex<CallerIdentity?>(nil)

    private static func link(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
