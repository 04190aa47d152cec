internal import KeychainDBus

/// The Secret Service's error replies: the spec's `org.freedesktop.Secret.Error.*` names, and a store
/// failure's reply.
extension DBusFailure {
    static func noSuchObject(_ path: String) -> Self {
        Self(name: "org.freedesktop.Secret.Error.NoSuchObject", message: "No such object: \(path)")
    }
    static func isLocked(_ path: String) -> Self {
        Self(name: "org.freedesktop.Secret.Error.IsLocked", message: "\(path) is locked")
    }
    static func noSession(_ path: String) -> Self {
        Self(name: "org.freedesktop.Secret.Error.NoSession", message: "No such session: \(path)")
    }

    init(_ error: SecretStoreError, path: String) {
        switch error {
        case .noSuchObject: self = .noSuchObject(path)
        case .isLocked: self = .isLocked(path)
        case .invalidArgument(let message): self = .invalidArgs(message)
        case .notSupported(let message): self = .notSupported(message)
        case .failed(let message): self = .failed(message)
        }
    }
}
