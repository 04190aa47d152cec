/// Why a caller could not be identified or is refused.
package enum CallerLookupError: Error, Equatable, CustomStringConvertible {
    /// The bus daemon did not answer `GetConnectionCredentials` (the text says why).
    case credentials(String)
    /// The connection belongs to another Unix user: refused with `org.freedesktop.DBus.Error.AccessDenied`.
    case otherUser(UInt32)
    /// The process exited, or its pid now names another process, while it was being read.
    case processGone(Int32)
    /// A `/proc` read or a pidfd call failed (errno and what was being done).
    case system(String, Int32)
    /// The process runs in a sandbox whose description cannot be used (a `/.flatpak-info` without a
    /// valid app id): refused rather than taken for an unsandboxed program.
    case malformedSandbox(String)

    package var description: String {
        switch self {
        case .credentials(let message): "the bus daemon gave no credentials: \(message)"
        case .otherUser(let uid): "the caller runs as uid \(uid), not as this provider's user"
        case .processGone(let pid): "process \(pid) exited or its pid was reused while it was being identified"
        case .system(let what, let code): "\(what) failed (errno \(code))"
        case .malformedSandbox(let message): "the caller's sandbox cannot be identified: \(message)"
        }
    }
}
