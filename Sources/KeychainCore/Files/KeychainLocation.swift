/// Where a keychain and its installation's device key live.
///
/// Defaults follow the XDG Base Directory spec (design brief, "Files on disk"):
/// - keychains: `$XDG_DATA_HOME/keychains/` (default `~/.local/share/keychains/`), mode 0700;
/// - the default keychain: `login.keychain-db` there, mode 0600;
/// - the device key: `$XDG_STATE_HOME/keychains/device.key` (default `~/.local/state/…`), mode 0600.
///   It lives apart from the keychain files so that copying a keychain file does not carry the key
///   that binds its `…ThisDeviceOnly` items.
package struct KeychainLocation: Sendable, Hashable {
    /// Path of the SQLite database.
    package let databasePath: String
    /// Path of the installation's device key.
    package let deviceKeyPath: String

    package init(databasePath: String, deviceKeyPath: String) {
        self.databasePath = databasePath
        self.deviceKeyPath = deviceKeyPath
    }

    /// The keychain folder: `$XDG_DATA_HOME/keychains`.
    package static func keychainDirectory(environment: [String: String] = ProcessEnvironment.current()) -> String {
        let data =
            environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? home(environment) + "/.local/share"
        return data + "/keychains"
    }

    /// The device key's path: `$XDG_STATE_HOME/keychains/device.key`.
    package static func defaultDeviceKeyPath(environment: [String: String] = ProcessEnvironment.current())
        -> String
    {
        let state =
            environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? home(environment) + "/.local/state"
        return state + "/keychains/device.key"
    }

    /// The login keychain, `login.keychain-db` in the keychain folder.
    package static func login(environment: [String: String] = ProcessEnvironment.current()) -> KeychainLocation {
        named("login", environment: environment)
    }

    /// A keychain given by name or path, as `security` accepts it.
    ///
    /// - A bare name (`work`, `work.keychain-db`) is looked up in the keychain folder; anything with a
    ///   `/` is a path, made absolute against the current folder and normalised, so that it means the
    ///   same file from wherever it is used later.
    /// - `X.keychain` means `X.keychain-db` unless a file with the exact name exists, as macOS has done
    ///   since 10.12 (scripts write `unlock-keychain login.keychain`).
    package static func named(_ name: String, environment: [String: String] = ProcessEnvironment.current())
        -> KeychainLocation
    {
        var path: String
        if name.contains("/") {
            path = FileSystem.absolutePath(name)
        } else {
            let file = name.hasSuffix(".keychain-db") || name.hasSuffix(".keychain") ? name : name + ".keychain-db"
            path = keychainDirectory(environment: environment) + "/" + file
        }
        if path.hasSuffix(".keychain") && !FileSystem.exists(path) { path += "-db" }
        return KeychainLocation(databasePath: path, deviceKeyPath: defaultDeviceKeyPath(environment: environment))
    }

    private static func home(_ environment: [String: String]) -> String {
        environment["HOME"] ?? FileSystem.homeDirectory()
    }
}
