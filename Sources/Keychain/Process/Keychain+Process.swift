internal import KeychainCore

extension Keychain {
    // MARK: - Public: the process's identity and keychain

    /// Sets the entitlements of this process, instead of the file at `$KEYCHAIN_ENTITLEMENTS`.
    ///
    /// Call it once at startup, before the first keychain call; calls made after it use the new
    /// entitlements (including ``Keychain``, ``PasswordManager``, ``DeviceIdentifier`` and
    /// ``Credentials`` values created earlier, which resolve the process's identity on each call).
    /// Apps on Apple platforms get their entitlements from the code signature and have no such call.
    /// ```swift
    /// Keychain.setProcessEntitlements(try Entitlements(contentsOfFile: "/opt/example/app.entitlements"))
    /// ```
    /// - Parameter entitlements: the process's entitlements.
    public static func setProcessEntitlements(_ entitlements: Entitlements) {
        KeychainContext.setProcessIdentity(entitlements.identity)
    }

    /// Sets the keychain file this process uses by default, instead of the login keychain.
    ///
    /// Call it once at startup, before the first keychain call. Calls made after it, from values
    /// created before or after, use `file` (except those bound to a file with ``keychainFile(_:)``).
    /// ```swift
    /// Keychain.setProcessKeychain(try KeychainFile(path: "ci"))
    /// ```
    /// - Parameter file: the keychain file.
    public static func setProcessKeychain(_ file: KeychainFile) {
        KeychainContext.setProcessLocation(file.keystore.location)
    }
}
