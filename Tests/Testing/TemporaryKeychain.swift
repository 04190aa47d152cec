package import Foundation
package import KeychainCore

/// A keychain of its own for one test, in a fresh temporary folder laid out as a user's XDG folders
/// (`data/keychains/login.keychain-db`, `state/keychains/device.key`), so that in-process calls and
/// helper processes started with ``environment`` open the same login keychain.
///
/// The one temporary-keychain helper of every test suite (issue 13). Released, it withdraws the
/// keychain's class keys from the class key store (so that they do not accumulate in the test run's
/// kernel keyring) and removes the folder: tests leave nothing behind. Each suite adds what only it
/// needs in an extension (contexts for SecItem calls, the `Keychain` API's lock file).
///
/// Several ``Keystore`` instances can be opened on the same file (``open()``): each is a separate
/// SQLite connection, which is what two processes racing on the keychain amount to.
package final class TemporaryKeychain: Sendable {
    /// The temporary folder.
    package let directory: String
    /// The login keychain under ``environment``.
    package let location: KeychainLocation
    /// The connection opened with the folder (``init(opening:)`` with `true`), else `nil`.
    package let firstConnection: Keystore?

    /// Makes the folder; with `opening`, also creates the keychain and opens ``firstConnection``.
    /// Without it nothing is created, so that a test can put its own files in place first.
    /// - Throws: when the folder cannot be made, or the keychain cannot be created.
    package init(opening: Bool = false) throws {
        directory = FileManager.default.temporaryDirectory.path + "/swkc-tests-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        location = .login(environment: ["XDG_DATA_HOME": directory + "/data", "XDG_STATE_HOME": directory + "/state"])
        firstConnection = opening ? try Keystore(location: location) : nil
    }

    deinit {
        if let keystore = firstConnection ?? (try? Keystore(location: location, create: false)) {
            try? keystore.withdrawAllClassKeys()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// `$XDG_DATA_HOME` of the keychain.
    package var dataHome: String { directory + "/data" }
    /// `$XDG_STATE_HOME` of the keychain.
    package var stateHome: String { directory + "/state" }
    /// The keychain folder, `$XDG_DATA_HOME/keychains`.
    package var keychainDirectory: String { dataHome + "/keychains" }
    /// The device key's folder, `$XDG_STATE_HOME/keychains`.
    package var deviceKeyDirectory: String { stateHome + "/keychains" }
    /// `XDG_DATA_HOME` and `XDG_STATE_HOME` for a helper process that should use this keychain.
    package var environment: [String: String] { ["XDG_DATA_HOME": dataHome, "XDG_STATE_HOME": stateHome] }

    /// A new connection to the keychain, creating it on first use.
    package func open() throws -> Keystore { try Keystore(location: location) }

    /// Writes an entitlements property list into the folder.
    /// - Returns: its path.
    package func entitlements(_ name: String, _ plist: [String: Any]) throws -> String {
        let path = directory + "/\(name).entitlements"
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Every file under the folder, by path relative to it, with its bytes.
    package func files() -> [String: Data] {
        var result: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: directory)
        while let relative = enumerator?.nextObject() as? String {
            let path = directory + "/" + relative
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                result[relative] = FileManager.default.contents(atPath: path)
            }
        }
        return result
    }
}
