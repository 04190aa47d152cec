internal import KeychainCore
internal import KeychainToolSupport

/// This device's private clone of a keychain's git remote (`$XDG_STATE_HOME/keychains/sync/<device id>/`,
/// ``GitTransport``), removed when the keychain stops syncing here or is deleted.
enum SyncClone {
    /// Removes the clone folder at `path`, if there is one; only a folder named like a clone
    /// (`…/keychains/sync/<32 hexadecimal digits>`) is ever removed. Its parent `…/keychains/sync` goes too when that
    /// leaves it empty (`rmdir(2)`: never when it holds anything).
    /// - Returns: whether the clone folder was removed.
    @discardableResult
    static func remove(_ path: String) -> Bool {
        let parts = path.split(separator: "/")
        guard parts.count >= 3, parts[parts.count - 3] == "keychains", parts[parts.count - 2] == "sync",
            let last = parts.last, last.count == 32, last.allSatisfy(\.isHexDigit),
            FileSystem.exists(path)
        else { return false }
        let removed = FileSystem.removeTree(path)
        if removed {
            Platform.removeEmptyDirectory((path.hasPrefix("/") ? "/" : "") + parts.dropLast().joined(separator: "/"))
        }
        return removed
    }
}
