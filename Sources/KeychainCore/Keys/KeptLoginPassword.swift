/// The login password `keychain-pam-helper` keeps for a short while when it no longer opens the login
/// keychain (a login unlock that failed, or chauthtok without the old token), so that the next unlock
/// with the keychain's old password can offer to re-key it to the login password (gnome-keyring's
/// repair; tracker issue 25, docs/PAM.md).
///
/// It is one `user` entry, ``description``, in the project keyring (``keyringName(environment:)``),
/// with the class-key entries' permissions (this user's processes only) and a kernel timeout: never a
/// file, argv or the environment. `security lock-keychain -a` clears it with everything else.
package enum KeptLoginPassword {
    /// The entry's description in the project keyring.
    package static let description = "swkc:login-password"

    /// How long the entry lasts by default: long enough for the first prompt after a login, short
    /// enough not to linger.
    package static let defaultTimeout: UInt32 = 600

    /// The project keyring's name for a process with `environment`: its `KEYCHAIN_KEYRING`, else this
    /// process's (``ClassKeyStore/keyringName``).
    package static func keyringName(environment: [String: String]) -> String {
        environment["KEYCHAIN_KEYRING"].flatMap { $0.isEmpty ? nil : $0 } ?? ClassKeyStore.keyringName
    }

    /// Keeps `password` for `timeout` seconds (at least 1), replacing an entry kept before.
    /// - Returns: `false` when the kernel keyring is unavailable or refused the entry (a full quota).
    @discardableResult
    package static func keep(_ password: SecureBytes, timeout: UInt32 = defaultTimeout, keyring name: String) -> Bool {
        guard KernelKeyring.isAvailable, let keyring = projectKeyring(name, create: true) else { return false }
        let stored = password.withUnsafeBytes { KernelKeyring.store($0, description: description, in: keyring) }
        guard case .success(let key) = stored else { return false }
        guard KernelKeyring.setTimeout(key, seconds: max(1, timeout)) else {
            KernelKeyring.withdraw(key, from: keyring)
            return false
        }
        return true
    }

    /// The kept password, or `nil` when there is none (never kept, taken away, or expired).
    package static func read(keyring name: String) -> SecureBytes? {
        guard let key = entry(name)?.key else { return nil }
        var length: Int?
        let first = SecureBytes(count: 4096) { length = KernelKeyring.read(key, into: $0) }
        guard let length, length > 0, length <= 4096 else { return nil }
        return first.withUnsafeBytes { SecureBytes(copying: $0[0..<length]) }
    }

    /// The kept entry's serial, for tests that check its permissions; `nil` when there is none.
    package static func serial(keyring name: String) -> KernelKeyring.Serial? { entry(name)?.key }

    /// Withdraws the kept password, if any.
    package static func withdraw(keyring name: String) {
        guard let (key, keyring) = entry(name) else { return }
        KernelKeyring.withdraw(key, from: keyring)
    }

    /// The login password to re-key to, when the repair applies to the keychain at `path` just opened
    /// with `typed`: its ``LoginPasswordMarker`` is set, a login password is kept in `keyring`, and it
    /// differs from `typed` (compared in constant time). `nil` otherwise. The one check behind
    /// `security unlock-keychain`'s question and the provider's (tracker issue 25, docs/PAM.md).
    package static func pendingRepair(forKeychainAt path: String, keyring: String, typed: SecureBytes)
        -> SecureBytes?
    {
        guard LoginPasswordMarker.applies(toKeychainAt: path), let login = read(keyring: keyring),
            !login.constantTimeEquals(typed)
        else { return nil }
        return login
    }

    /// The unlock prompt's text for the keychain at `path` while its ``LoginPasswordMarker`` is set:
    /// ``LoginPasswordMarker/unlockPrompt(rekeyOffered:)``, offering the re-key when a login password is
    /// kept in `keyring`. `nil` when the marker does not apply (another keychain, or no marker), so that the
    /// caller shows its usual text. Used by `security unlock-keychain` and the provider's prompt.
    package static func unlockPrompt(forKeychainAt path: String, keyring: String) -> String? {
        guard LoginPasswordMarker.applies(toKeychainAt: path) else { return nil }
        return LoginPasswordMarker.unlockPrompt(rekeyOffered: entry(keyring) != nil)
    }

    /// Ends a repair once the keychain at `path` has been re-keyed: withdraws the kept password from
    /// `keyring` and removes the keychain's ``LoginPasswordMarker``.
    package static func finishRepair(forKeychainAt path: String, keyring: String) {
        withdraw(keyring: keyring)
        LoginPasswordMarker.remove(forKeychainAt: path)
    }

    // MARK: - Private

    private static func entry(_ name: String) -> (key: KernelKeyring.Serial, keyring: KernelKeyring.Serial)? {
        guard KernelKeyring.isAvailable, let keyring = projectKeyring(name, create: false),
            let key = KernelKeyring.search(description: description, in: keyring)
        else { return nil }
        return (key, keyring)
    }

    /// The project keyring under `@u`; made only when it is absent (making it again would replace it and
    /// drop the class keys it holds).
    private static func projectKeyring(_ name: String, create: Bool) -> KernelKeyring.Serial? {
        if let found = KernelKeyring.findKeyring(named: name) { return found }
        guard create, case .success(let made) = KernelKeyring.createKeyring(named: name)
        else { return nil }
        return made
    }
}
