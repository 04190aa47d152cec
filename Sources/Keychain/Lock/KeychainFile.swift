package import KeychainCore

/// One keychain file and its lock: create a keychain with a password, unlock it, lock it, ask its
/// lock state, set its auto-lock timeout and change its password.
///
/// A keychain may have a password, as a device may have a passcode (Apple Platform Security,
/// "Data Protection classes" and "Keychain data protection"). Without one, every item is always
/// readable, like a device without a passcode. With one, the keychain starts locked, and:
/// - ``Accessibility/whenUnlocked`` items (and their `ThisDeviceOnly` and `WhenPasscodeSet` twins)
///   are readable from ``unlock(password:)-klr7`` until ``lock()`` or the auto-lock timeout;
/// - ``Accessibility/afterFirstUnlock`` items are readable from the first unlock until ``lockAll()``
///   or a restart (their class keys survive ``lock()``; the Linux user keyring outlives the login
///   session);
/// - ``Accessibility/always`` items are always readable.
///
/// Reading or writing an item whose class is locked throws ``KeychainError/interactionNotAllowed``;
/// a locked item is never reported missing.
///
/// An unlock is kept in the Linux kernel's user keyring, so every process of the user sees it, and a
/// ``lock()`` in one process locks the keychain for all of them. Where the kernel keyring is not
/// available (some containers and sandboxes), the unlock lasts for the unlocking process only; see
/// ``unlockScope``.
///
/// ```swift
/// let file = try KeychainFile.create(at: "work", password: password)   // ~/.local/share/keychains/work.keychain-db
/// try file.setAutoLockTimeout(.seconds(300))
/// let tokens = Keychain(service: "com.example.tool").keychainFile(file)
/// try tokens.set("s3cr3t", forKey: "token")        // created unlocked
/// try file.lock()
/// try tokens.string(forKey: "token")              // throws KeychainError.interactionNotAllowed
/// try file.unlock(password: password)
/// ```
///
/// The type is `Sendable`; each instance owns one connection to the file, and any number of
/// instances and processes may use the same file at once.
///
/// - Important: Every process of the same Unix user can open the keychain file and, while the keychain
///   is unlocked, read its class keys from the user keyring. The password protects the items at rest
///   (against a copy of the files) and while locked; it is not a boundary between processes of one user.
public final class KeychainFile: Sendable {
    // MARK: - Public

    /// Whether the keychain's protected items can be read now.
    public enum LockState: Sendable, Hashable, CustomStringConvertible {
        /// The keychain has no password: every item is always readable.
        case noPassword
        /// The keychain has a password and is locked: ``Accessibility/whenUnlocked`` items (and their
        /// twins) cannot be read. ``Accessibility/afterFirstUnlock`` items can be read if the keychain
        /// has been unlocked once in this login session.
        case locked
        /// The keychain has a password and is unlocked.
        case unlocked

        /// `"no password"`, `"locked"` or `"unlocked"`.
        public var description: String {
            switch self {
            case .noPassword: "no password"
            case .locked: "locked"
            case .unlocked: "unlocked"
            }
        }
    }

    /// Which processes an unlock reaches.
    public enum UnlockScope: Sendable, Hashable {
        /// Every process of the user, until ``KeychainFile/lock()``, the auto-lock timeout or the end
        /// of the login session (the kernel user keyring).
        case userSession
        /// The unlocking process only: the kernel keyring is not available here, or refused a key
        /// (its quota for the user is full).
        case thisProcess
    }

    /// Where unlocks are kept on this machine, for every keychain file.
    public static var unlockScope: UnlockScope {
        switch ClassKeyStore.scope {
        case .userSession: .userSession
        case .thisProcess: .thisProcess
        }
    }

    /// The path of the keychain database.
    public var path: String { keystore.location.databasePath }

    /// Creates a new keychain file, with a password or without one.
    ///
    /// The file is built in a temporary file and linked into place, so a crash never leaves a
    /// half-made keychain, and an existing file is never replaced. Its folder is created with mode
    /// 0700 when missing; the file gets mode 0600. The installation's device key
    /// (`$XDG_STATE_HOME/keychains/device.key`) is created when missing. A keychain with a password is
    /// left *unlocked* after creation, as `security create-keychain` leaves it.
    ///
    /// The password is stretched with Argon2id (2 passes over 256 MiB, about half a second), so this
    /// call blocks; use it off the main thread.
    ///
    /// ```swift
    /// let file = try KeychainFile.create(at: "/home/me/secrets/ci.keychain-db", password: nil)
    /// ```
    /// - Parameters:
    ///   - path: an absolute path, or a bare name such as `"work"` or `"work.keychain-db"`, which
    ///     names a file in the keychain folder (`$XDG_DATA_HOME/keychains/`).
    ///   - password: the keychain password, or `nil` for a keychain without one.
    /// - Returns: the new keychain.
    /// - Throws: ``KeychainError`` with operation ``KeychainError/Operation/create`` and code
    ///   ``KeychainError/Code/duplicateKeychain`` when a file exists at `path`;
    ///   ``KeychainError/Code/io`` or ``KeychainError/Code/diskFull`` when the folder, the file or the
    ///   device key cannot be written; ``KeychainError/Code/allocate`` when Argon2id cannot get its
    ///   memory; ``KeychainError/Code/decode`` when the existing device key is unreadable.
    public static func create(at path: String, password: KeychainPassword?) throws(KeychainError) -> KeychainFile {
        try create(location: .named(path), password: password, parameters: .default)
    }

    /// Opens an existing keychain file.
    ///
    /// - Parameter path: an absolute path, or a bare name such as `"login"` or `"work"`, which names a
    ///   file in the keychain folder (`$XDG_DATA_HOME/keychains/`).
    /// - Throws: ``KeychainError`` with operation ``KeychainError/Operation/open`` and code
    ///   ``KeychainError/Code/noSuchKeychain`` when there is no file; ``KeychainError/Code/invalidKeychain``
    ///   when the file is not a keychain, is damaged, is empty, or is readable or writable by other users;
    ///   ``KeychainError/Code/wrongSecVersion`` when a newer version of this library wrote it;
    ///   ``KeychainError/Code/decode`` when this installation's device key does not open it.
    public convenience init(path: String) throws(KeychainError) {
        try self.init(location: .named(path))
    }

    /// The keychain that ``Keychain``, ``PasswordManager``, ``DeviceIdentifier`` and ``Credentials``
    /// use when no file is given: the one set with ``Keychain/setProcessKeychain(_:)``, or the login
    /// keychain (`$XDG_DATA_HOME/keychains/login.keychain-db`), created without a password on first use.
    ///
    /// - Returns: the process's default keychain.
    /// - Throws: ``KeychainError`` with operation ``KeychainError/Operation/open`` and the codes of
    ///   ``init(path:)``, or ``KeychainError/Code/missingEntitlement`` when `$KEYCHAIN_ENTITLEMENTS`
    ///   names a file that cannot be read.
    public static func processDefault() throws(KeychainError) -> KeychainFile {
        do {
            return KeychainFile(keystore: try KeychainContext.current().keystore)
        } catch {
            throw KeychainError(error, .open)
        }
    }

    /// The current lock state, as every process of the user sees it.
    ///
    /// - Throws: ``KeychainError`` with operation ``KeychainError/Operation/lockState`` and code
    ///   ``KeychainError/Code/invalidKeychain`` or ``KeychainError/Code/io`` when the file cannot be read.
    public var lockState: LockState {
        get throws(KeychainError) {
            do {
                switch try keystore.lockState() {
                case .noPassword: return .noPassword
                case .locked: return .locked
                case .unlocked: return .unlocked
                }
            } catch {
                throw KeychainError(error, .lockState)
            }
        }
    }

    /// Unlocks the keychain for every process of the user (see ``unlockScope``).
    ///
    /// Checks `password` with Argon2id (about half a second) and makes the WhenUnlocked,
    /// AfterFirstUnlock and WhenPasscodeSet class keys available. A wrong password changes nothing in
    /// the file. After three wrong passwords in a row, each attempt first waits 1, 2, 4 … up to 60
    /// seconds. Unlocking an unlocked keychain checks the password again and restarts the auto-lock timeout.
    /// A keychain without a password is always unlocked: the call then succeeds without checking anything.
    ///
    /// When the device key is missing, or the file was copied from another installation, the
    /// keychain reads as locked (every item call throws ``KeychainError/Code/interactionNotAllowed``)
    /// until this call **adopts** it: the right password re-binds it to this installation's device
    /// key (created when missing). Its WhenUnlocked, AfterFirstUnlock and Always items then read as
    /// before; its `…ThisDeviceOnly` items throw ``KeychainError/Code/decode`` until they are
    /// deleted and added again, as Apple never moves such items to another device (SecItem.h).
    ///
    /// - Parameter password: the keychain password.
    /// - Returns: which processes the unlock reaches.
    /// - Throws: ``KeychainError`` with operation ``KeychainError/Operation/unlock`` and code
    ///   ``KeychainError/Code/authFailed`` when the password is wrong; ``KeychainError/Code/allocate``
    ///   when Argon2id cannot get its memory; ``KeychainError/Code/invalidKeychain`` or
    ///   ``KeychainError/Code/io`` when the file cannot be read, or the device key cannot be created
    ///   during an adoption.
    @discardableResult
    public func unlock(password: KeychainPassword) throws(KeychainError) -> UnlockScope {
        do {
            switch try keystore.unlock(password: password.storage) {
            case .userSession: return .userSession
            case .thisProcess: return .thisProcess
            }
        } catch {
            throw KeychainError(error, .unlock)
        }
    }

    /// Async variant of ``unlock(password:)-klr7``: the Argon2id work runs off the Swift concurrency thread pool.
    /// - Parameter password: the keychain password.
    /// - Returns: which processes the unlock reaches.
    /// - Throws: everything ``unlock(password:)-klr7`` throws.
    @discardableResult
    public func unlock(password: KeychainPassword) async throws(KeychainError) -> UnlockScope {
        try await Offload.run { () throws(KeychainError) in try self.unlock(password: password) }
    }

    /// Locks the keychain at once, for every process of the user.
    ///
    /// The WhenUnlocked and WhenPasscodeSet class keys are withdrawn; AfterFirstUnlock keys stay until
    /// ``lockAll()`` or a restart, as on iOS, so ``Accessibility/afterFirstUnlock`` items remain readable.
    /// Locking a locked keychain, or one without a password, does nothing.
    ///
    /// - Throws: ``KeychainError`` with operation ``KeychainError/Operation/lock`` and code
    ///   ``KeychainError/Code/invalidKeychain`` or ``KeychainError/Code/io`` when the file cannot be read.
    public func lock() throws(KeychainError) {
        do { try keystore.lock() } catch { throw KeychainError(error, .lock) }
    }

    /// Locks every keychain the user has unlocked, wherever its file is, as a logout does
    /// (`security lock-keychain -a`).
    ///
    /// Unlike ``lock()``, the AfterFirstUnlock class keys are withdrawn too, so every protected item
    /// of every keychain needs a new unlock. One call (`KEYCTL_CLEAR` of the project's kernel
    /// keyring) frees every entry the project held in the user's kernel key quota; the unlocks this
    /// process kept by itself are forgotten as well. It cannot fail.
    public static func lockAll() {
        ClassKeyStore.lockAll()
    }

    /// How long the keychain stays unlocked without being used, or `nil` when it never locks by itself.
    ///
    /// Every read or write of a WhenUnlocked item restarts the timeout, like macOS's
    /// `security set-keychain-settings -t`. The setting is stored in the keychain file.
    /// - Throws: ``KeychainError`` with operation ``KeychainError/Operation/settings`` and code
    ///   ``KeychainError/Code/invalidKeychain`` or ``KeychainError/Code/io`` when the file cannot be read.
    public var autoLockTimeout: Duration? {
        get throws(KeychainError) {
            do {
                let seconds = try keystore.autoLockTimeout()
                return seconds == 0 ? nil : .seconds(seconds)
            } catch {
                throw KeychainError(error, .settings)
            }
        }
    }

    /// Sets how long the keychain stays unlocked without being used.
    ///
    /// The timeout is kept in whole seconds, rounded up. It applies at once to an unlocked keychain
    /// (counting from now) and to every later unlock, in every process.
    /// ```swift
    /// try file.setAutoLockTimeout(.seconds(300))   // lock after 5 idle minutes
    /// try file.setAutoLockTimeout(nil)             // never lock by itself
    /// ```
    /// - Parameter timeout: a positive duration of at most 2³² − 1 seconds, or `nil` for never.
    /// - Throws: ``KeychainError`` with operation ``KeychainError/Operation/settings`` and code
    ///   ``KeychainError/Code/param`` when `timeout` is zero, negative or too long (nothing changes);
    ///   ``KeychainError/Code/io``, ``KeychainError/Code/diskFull`` or ``KeychainError/Code/notAvailable``
    ///   when the file cannot be written.
    public func setAutoLockTimeout(_ timeout: Duration?) throws(KeychainError) {
        let seconds = try Self.wholeSeconds(timeout)
        do { try keystore.setAutoLockTimeout(seconds) } catch { throw KeychainError(error, .settings) }
    }

    /// Sets, changes or removes the keychain password.
    ///
    /// Only the class keys are re-wrapped, in one transaction: the cost does not grow with the number
    /// of items, and a crash leaves the keychain with the old or the new password, never neither.
    /// - Setting a password (`current` is `nil`, the keychain has none): the keychain stays unlocked.
    /// - Changing it: `current` must be the password; the keychain stays unlocked.
    /// - Removing it (`new` is `nil`): every item becomes always readable, and every
    ///   ``Accessibility/whenPasscodeSetThisDeviceOnly`` item is **deleted**, as iOS does when the
    ///   passcode is removed.
    ///
    /// ```swift
    /// try file.changePassword(from: old, to: new)
    /// ```
    /// - Parameters:
    ///   - current: the current password, or `nil` when the keychain has none.
    ///   - new: the new password, or `nil` to remove it.
    /// - Throws: ``KeychainError`` with operation ``KeychainError/Operation/changePassword`` and code
    ///   ``KeychainError/Code/authFailed`` when `current` is wrong, or is `nil` while the keychain has a
    ///   password, or another process changed the password meanwhile (nothing changes);
    ///   ``KeychainError/Code/allocate`` when Argon2id cannot get its memory; ``KeychainError/Code/io``,
    ///   ``KeychainError/Code/diskFull`` or ``KeychainError/Code/notAvailable`` when the file cannot be written.
    public func changePassword(from current: KeychainPassword?, to new: KeychainPassword?) throws(KeychainError) {
        try changePassword(from: current, to: new, parameters: .default)
    }

    /// Async variant of ``changePassword(from:to:)-3dzrb``: the Argon2id work runs off the Swift concurrency
    /// thread pool.
    /// - Parameters:
    ///   - current: the current password, or `nil` when the keychain has none.
    ///   - new: the new password, or `nil` to remove it.
    /// - Throws: everything ``changePassword(from:to:)-3dzrb`` throws.
    public func changePassword(from current: KeychainPassword?, to new: KeychainPassword?) async throws(KeychainError) {
        try await Offload.run { () throws(KeychainError) in try self.changePassword(from: current, to: new) }
    }

    // MARK: - Package

    /// The engine's handle on the file.
    package let keystore: Keystore

    /// Wraps an open keystore (tests, and the process default).
    package init(keystore: Keystore) { self.keystore = keystore }

    /// ``init(path:)`` at an explicit location (tests keep the device key in a temporary folder).
    package convenience init(location: KeychainLocation) throws(KeychainError) {
        do {
            self.init(keystore: try Keystore(location: location, create: false))
        } catch {
            throw KeychainError(error, .open)
        }
    }

    /// ``create(at:password:)`` at an explicit location with explicit Argon2id parameters (tests use
    /// `KDFParameters.testing`).
    package static func create(
        location: KeychainLocation, password: KeychainPassword?, parameters: KDFParameters
    ) throws(KeychainError) -> KeychainFile {
        do {
            return KeychainFile(
                keystore: try Keystore.create(location: location, password: password?.storage, parameters: parameters))
        } catch {
            throw KeychainError(error, .create)
        }
    }

    /// ``changePassword(from:to:)-3dzrb`` with explicit Argon2id parameters for the new password.
    package func changePassword(
        from current: KeychainPassword?, to new: KeychainPassword?, parameters: KDFParameters
    ) throws(KeychainError) {
        do {
            try keystore.setPassword(new?.storage, current: current?.storage, parameters: parameters)
        } catch {
            throw KeychainError(error, .changePassword)
        }
    }

    // MARK: - Private

    /// Whole seconds for the engine, rounded up; 0 for never.
    private static func wholeSeconds(_ timeout: Duration?) throws(KeychainError) -> UInt32 {
        guard let timeout else { return 0 }
        let (seconds, attoseconds) = timeout.components
        let rounded = seconds + (attoseconds > 0 ? 1 : 0)
        guard timeout > .zero, rounded <= Int64(UInt32.max) else {
            throw KeychainError(
                .param, operation: .settings, detail: "the auto-lock timeout must be between 1 s and 4294967295 s")
        }
        return UInt32(rounded)
    }
}
