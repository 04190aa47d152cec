internal import KeychainCore

/// Keychain files that cannot be opened (truncated, overwritten, emptied, another program's database):
/// served as locked collections that refuse every use with the reason, never hidden and never written
/// (issue 24, item 2).
///
/// Hiding one made clients lose the `default` alias and ask to create a new keychain in its place,
/// steering the user into replacing the file that holds their data; listing it keeps the alias, shows it
/// locked, and answers `Unlock` and every write with `org.freedesktop.DBus.Error.Failed` naming the file,
/// the cause and `security restore-keychain`. The provider logs that once when it finds the file and
/// again on each refused use. A file that changes (restored from a backup) is opened again at the next
/// poll and served as a keychain under the same identifier.
extension KeychainSecretStore {
    /// A keychain file that failed to open, and why.
    final class DamagedKeychain {
        let id: CollectionID
        let path: String
        /// The engine's description of the failure (it names the file and the cause).
        let reason: String
        /// The file's version when it failed, to try again only once it changed.
        let version: FileSystem.Version
        let found: UInt64

        init(id: CollectionID, path: String, reason: String, version: FileSystem.Version) {
            self.id = id
            self.path = path
            self.reason = reason
            self.version = version
            found = Keystore.secondsNow()
        }

        /// What every refused use answers and logs.
        var message: String { "\(reason). The keychain is shown locked and " + KeychainSecretStore.restoreAdvice(path) }

        var info: CollectionInfo {
            CollectionInfo(id: id, label: id.rawValue, locked: true, created: found, modified: found)
        }
    }

    /// What the provider says about a damaged keychain file, whether found at start or in use (an
    /// inner page): the same advice as `security` prints.
    static func restoreAdvice(_ path: String) -> String {
        "its file is left untouched; restore it from a backup with `security restore-keychain -i BACKUP \(path)`, "
            + "or move the file away to start a new one"
    }

    /// Notes a file that failed to open (logging why), or, when it failed before and has not changed
    /// since, keeps it as it was. - Returns: whether it is newly damaged (a collection to announce).
    func noteDamaged(_ base: String, path: String, reason: String) -> Bool {
        let version = FileSystem.version(path)
        if let old = damaged.first(where: { $0.path == path }), old.version == version { return false }
        damaged.removeAll { $0.path == path }
        var id = Self.collectionID(for: base)
        var suffix = 2
        while keychains[id] != nil || damaged.contains(where: { $0.id == id })
            || id == MemorySecretStore.sessionCollection
        {
            id = CollectionID("\(Self.collectionID(for: base).rawValue)_\(suffix)")!
            suffix += 1
        }
        let keychain = DamagedKeychain(id: id, path: path, reason: reason, version: version)
        damaged.append(keychain)
        SecretServiceDaemon.printError("keychain-secret-service: \(keychain.message)")
        return true
    }

    /// Whether a damaged file should be tried again: it changed since it failed (or is gone).
    func damagedFileChanged(_ path: String) -> Bool {
        guard let old = damaged.first(where: { $0.path == path }) else { return true }
        return FileSystem.version(path) != old.version
    }

    func damagedKeychain(_ id: CollectionID) -> DamagedKeychain? {
        damaged.first { $0.id == id }
    }

    /// Throws `.failed` with the reason (and logs it) when `id` is a damaged keychain.
    func refuseIfDamaged(_ id: CollectionID) throws(SecretStoreError) {
        guard let keychain = damagedKeychain(id) else { return }
        SecretServiceDaemon.printError("keychain-secret-service: \(keychain.message)")
        throw .failed(keychain.message)
    }
}
