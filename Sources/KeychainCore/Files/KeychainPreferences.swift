/// The user's keychain preferences: the default keychain and the keychain search list
/// (macOS keeps them in `com.apple.security.plist`; `security default-keychain` and
/// `security list-keychains` read and write them).
///
/// Stored in `$XDG_CONFIG_HOME/swift-keychain/keychains.conf` (default `~/.config/…`), mode 0600 in
/// a 0700 folder, one `key=value` a line:
///
///     # swift-keychain preferences (security default-keychain, list-keychains)
///     default=/home/me/.local/share/keychains/work.keychain-db
///     search=/home/me/.local/share/keychains/login.keychain-db
///     search=/home/me/.local/share/keychains/work.keychain-db
///
/// Without `default=` the default keychain is the login keychain. Without any `search=` line (and
/// without `search-list-set=1`) the search list is the default keychain alone. Only the `user`
/// domain is stored; Linux has no system-wide keychains, so the `system`, `common` and `dynamic`
/// domains are empty. The file is replaced atomically (write a temporary file, then rename).
package struct KeychainPreferences: Equatable {
    /// The default keychain's database path, or `nil` for the login keychain.
    package var defaultKeychain: String?
    /// The search list's database paths, or `nil` when it was never set (the default keychain alone).
    package var searchList: [String]?

    /// Preferences with `defaultKeychain` (`nil`: the login keychain) and `searchList` (`nil`: never set).
    package init(defaultKeychain: String? = nil, searchList: [String]? = nil) {
        self.defaultKeychain = defaultKeychain
        self.searchList = searchList
    }

    /// The preferences file of `environment`.
    package static func path(environment: [String: String]) -> String {
        let config =
            environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? FileSystem.homeDirectory()) + "/.config"
        return config + "/swift-keychain/keychains.conf"
    }

    /// Reads the preferences of `environment`; a missing or unreadable file gives the defaults.
    package static func load(environment: [String: String]) -> KeychainPreferences {
        load(path: path(environment: environment))
    }

    /// Reads the preferences file at `path`; a missing or unreadable file gives the defaults.
    package static func load(path: String) -> KeychainPreferences {
        var preferences = KeychainPreferences()
        guard let data = FileSystem.contents(path) else { return preferences }
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            guard !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals]
            let value = String(line[line.index(after: equals)...])
            switch key {
            case "default" where !value.isEmpty: preferences.defaultKeychain = value
            case "search" where !value.isEmpty: preferences.searchList = (preferences.searchList ?? []) + [value]
            case "search-list-set" where value == "1": preferences.searchList = preferences.searchList ?? []
            default: continue
            }
        }
        return preferences
    }

    /// Writes the preferences of `environment` atomically.
    /// - Throws: `.io` when the folder or file cannot be written.
    package func save(environment: [String: String]) throws(KeychainFailure) {
        try save(path: Self.path(environment: environment))
    }

    /// Writes the preferences file at `path` atomically (``FileSystem/replace(_:with:)``).
    /// - Throws: `.io` when the folder or file cannot be written.
    package func save(path: String) throws(KeychainFailure) {
        var text = "# swift-keychain preferences (security default-keychain, list-keychains)\n"
        if let defaultKeychain { text += "default=\(defaultKeychain)\n" }
        if let searchList {
            text += "search-list-set=1\n"
            for keychain in searchList { text += "search=\(keychain)\n" }
        }
        try FileSystem.replace(path, with: Array(text.utf8))
    }

    /// The default keychain: the configured one, or the login keychain.
    package func defaultLocation(environment: [String: String]) -> KeychainLocation {
        guard let defaultKeychain else { return .login(environment: environment) }
        return .named(defaultKeychain, environment: environment)
    }

    /// Opens `location`, or the default keychain of `environment` when it is `nil`. Only the login
    /// keychain is created on first use; a configured default that is gone fails with `.noSuchKeychain`.
    package static func openDefault(
        _ location: KeychainLocation?, environment: [String: String]
    ) throws(KeychainFailure) -> Keystore {
        if let location { return try Keystore(location: location) }
        let chosen = load(environment: environment).defaultLocation(environment: environment)
        return try Keystore(location: chosen, create: chosen == .login(environment: environment))
    }

    /// The keychains searched when a command names none.
    package func searchLocations(environment: [String: String]) -> [KeychainLocation] {
        guard let searchList else { return [defaultLocation(environment: environment)] }
        return searchList.map { KeychainLocation.named($0, environment: environment) }
    }

    /// Forgets `path`: removes it from the search list, and resets the default when it was the default.
    package mutating func forget(_ path: String) {
        if defaultKeychain == path { defaultKeychain = nil }
        searchList?.removeAll { $0 == path }
    }

    /// Deletes the keychain at `location`, as `security delete-keychain` does: withdraws its class keys
    /// from the kernel keyring (a keychain that cannot be opened, for example a corrupt one, has none
    /// to withdraw), removes the database and its `-wal`/`-shm`, sweeps keyring entries of keychains
    /// whose file is gone, and forgets it in the preferences file at `preferencesPath` (default and
    /// search list), so that commands naming no keychain do not point at the deleted file.
    /// - Throws: `.io` when the preferences file cannot be rewritten (the keychain is deleted by then).
    package static func deleteKeychain(_ location: KeychainLocation, preferencesPath: String) throws(KeychainFailure) {
        let path = location.databasePath
        if let store = try? Keystore(location: location, create: false) {
            try? store.releaseBeforeDeletion()
        }
        for file in [path, path + "-wal", path + "-shm"] { FileSystem.remove(file) }
        ClassKeyStore.sweep()
        ClassKeyStore.unlinkProjectKeyringIfEmpty()
        var preferences = load(path: preferencesPath)
        let before = preferences
        preferences.forget(path)
        if preferences != before { try preferences.save(path: preferencesPath) }
    }
}
