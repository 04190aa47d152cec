internal import KeychainCore

/// Aliases clients set with `SetAlias`, kept across restarts in a small file beside `keychains.conf`.
///
/// The file, `$XDG_CONFIG_HOME/swift-keychain/secret-service-aliases` (mode 0600), holds one
/// `alias<TAB>collection` line per alias (both `[A-Za-z0-9_]` names; the collection is a collection's
/// name: a keychain's, or `session`). A built-in alias (`default`, `login`, `session`) is in it only
/// when a client changed it: pointed at a collection other than its own (for `default`, one that is not
/// a keychain, such as `session`: a keychain goes to `keychains.conf` instead), or removed, written
/// `alias<TAB>/`. It names no secret. It is replaced atomically (a new 0600 file renamed over it).
extension KeychainSecretStore {
    static let builtInAliases: Set<String> = ["default", "login", "session"]

    /// Where ``saveAliases()`` keeps the aliases.
    var aliasesPath: String { FileSystem.directory(of: configuration.preferencesPath) + "/secret-service-aliases" }

    /// Reads the aliases file. A file that cannot be read or parsed is ignored as a whole, with one line
    /// on standard error naming it and the fault; nothing else is affected (the next `SetAlias` rewrites it).
    func loadAliases() {
        guard FileSystem.exists(aliasesPath) else { return }
        guard let data = FileSystem.contents(aliasesPath) else {
            Self.logAliasesProblem(aliasesPath, "it cannot be read")
            return
        }
        var loaded: [String: AliasOverride] = [:]
        for (index, line) in String(decoding: data, as: UTF8.self).split(separator: "\n").enumerated() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 2, let alias = CollectionID(String(fields[0])) else {
                Self.logAliasesProblem(aliasesPath, "line \(index + 1) is not “alias<TAB>collection”")
                return
            }
            if fields[1] == Self.removedAlias, Self.builtInAliases.contains(alias.rawValue) {
                loaded[alias.rawValue] = .removed
            } else if let target = CollectionID(String(fields[1])) {
                loaded[alias.rawValue] = .collection(target)
            } else {
                Self.logAliasesProblem(aliasesPath, "line \(index + 1) is not “alias<TAB>collection”")
                return
            }
        }
        aliasOverrides.merge(loaded) { current, _ in current }
    }

    /// What the file holds for a removed built-in alias (`SetAlias(name, "/")`): the spec's "no object".
    static let removedAlias = "/"

    /// Writes every alias a client set, built-in ones included (a new 0600 file renamed over the old
    /// one); a removed alias that is not built in is simply left out. A failure is logged on standard
    /// error and counted as unsaved data (``aliasesUnsaved``), so that the provider does not idle-exit
    /// and lose the aliases it keeps in memory.
    func saveAliases() {
        let lines = aliasOverrides.compactMap { alias, override -> String? in
            switch override {
            case .collection(let target): "\(alias)\t\(target.rawValue)\n"
            case .removed: Self.builtInAliases.contains(alias) ? "\(alias)\t\(Self.removedAlias)\n" : nil
            }
        }.sorted().joined()
        do throws(KeychainFailure) {
            try FileSystem.replace(aliasesPath, with: Array(lines.utf8))
            aliasesUnsaved = false
        } catch {
            aliasesUnsaved = true
            Self.logAliasesProblem(aliasesPath, "it cannot be written: \(error)")
        }
    }

    static func logAliasesProblem(_ path: String, _ problem: String) {
        SecretServiceDaemon.printError(
            "keychain-secret-service: ignoring the aliases file \(path): \(problem); the provider goes on without those aliases"
        )
    }

    /// Makes `path` the default keychain, as `security default-keychain -s` does: the `default=` line of
    /// `keychains.conf`, written through the tools' own ``KeychainPreferences`` (its search list kept).
    /// - Throws: `.failed` naming the file when it cannot be written.
    func setDefaultKeychain(_ path: String) throws(SecretStoreError) {
        var preferences = KeychainPreferences.load(path: configuration.preferencesPath)
        preferences.defaultKeychain = path
        do throws(KeychainFailure) {
            try preferences.save(path: configuration.preferencesPath)
        } catch {
            throw .failed("cannot write \(configuration.preferencesPath): \(error)")
        }
    }
}
