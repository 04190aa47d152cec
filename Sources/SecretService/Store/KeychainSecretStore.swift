package import KeychainCore
internal import Synchronization

/// A ``SecretStore`` whose collections are keychain files (issue 17, "Collections are keychains").
///
/// - Every `*.keychain-db` in the keychain folder (`$XDG_DATA_HOME/keychains`) is a collection, named
///   by its file name without the suffix (bytes outside `[A-Za-z0-9_]` become `_`): the login keychain
///   is `/org/freedesktop/secrets/collection/login`. The login keychain is created, without a
///   password, when it does not exist (as SecItem's first use does).
/// - Aliases: `login` is the login keychain; `default` the default keychain (`default=` in
///   `keychains.conf`, as `security default-keychain` sets it; the login keychain without one) unless
///   a client sets it; `session` the in-memory collection of ``MemorySecretStore``, never written.
/// - Items are the engine's Secret Service items (``SecretItem``), numbered for life: item paths are
///   `…/collection/<keychain>/<number>` in every process and across restarts.
/// - A collection is locked when its keychain is (the kernel keyring, so `security unlock-keychain`
///   in a terminal is seen). Unlocking asks the password through the project's prompter (pinentry;
///   `$KEYCHAIN_PINENTRY` names a scripted one in tests).
/// - Other processes' changes are found by ``pollExternalChanges()``: `PRAGMA data_version` per
///   keychain, then the rows written since the last serial seen, and the folder's file list.
///
/// Not `Sendable`: the provider's main context owns it.
package final class KeychainSecretStore: SecretStore {
    /// Where the store finds keychains and how it asks the user.
    package struct Configuration: Sendable {
        /// The keychain folder.
        package var directory: String
        /// The installation's device key.
        package var deviceKeyPath: String
        /// The tool preferences file (`keychains.conf`), for the default keychain.
        package var preferencesPath: String
        /// KDF parameters for keychains that `CreateCollection` makes.
        package var kdf: KDFParameters

        package init(directory: String, deviceKeyPath: String, preferencesPath: String, kdf: KDFParameters = .default) {
            self.directory = directory
            self.deviceKeyPath = deviceKeyPath
            self.preferencesPath = preferencesPath
            self.kdf = kdf
        }

        /// The user's folders, from `environment` (`XDG_DATA_HOME`, `XDG_STATE_HOME`, `XDG_CONFIG_HOME`,
        /// `HOME`); the password parameters from ``KDFParameters/forNewPassword(environment:)``, as the
        /// `security` tool takes them (release builds refuse `KEYCHAIN_KDF=testing`, with a warning on stderr).
        package static func fromEnvironment(_ environment: [String: String] = ProcessEnvironment.current())
            -> Configuration
        {
            let (kdf, refused) = KDFParameters.forNewPassword(environment: environment)
            if refused {
                SecretServiceDaemon.printError("keychain-secret-service: " + KDFParameters.refusedTestingWarning)
            }
            return Configuration(
                directory: KeychainLocation.keychainDirectory(environment: environment),
                deviceKeyPath: KeychainLocation.defaultDeviceKeyPath(environment: environment),
                preferencesPath: KeychainPreferences.path(environment: environment),
                kdf: kdf)
        }
    }

    /// One keychain served as a collection, and what was last seen of it.
    final class Keychain {
        let id: CollectionID
        let keystore: Keystore
        var label: String
        var locked: Bool
        let created: UInt64
        var modified: UInt64
        /// `PRAGMA data_version` when last looked at.
        var dataVersion: Int64
        /// The latest Secret Service serial processed.
        var serial: Int64
        /// Each known item's serial at its last write seen.
        var known: [Int64: Int64]
        /// Items this process deleted since ``serial`` (each advanced the serial by one, with no row to
        /// show for it): not mistaken for another writer's deletion.
        var ownDeletes: Int64 = 0
        /// How many times every item number was listed to find deletions (O(items); for tests).
        var numberListings = 0

        init(id: CollectionID, keystore: Keystore, label: String, created: UInt64) {
            self.id = id
            self.keystore = keystore
            self.label = label
            self.created = created
            modified = created
            locked = true
            dataVersion = 0
            serial = 0
            known = [:]
        }

        var path: String { keystore.location.databasePath }
    }

    package var changeHandler: ((SecretStoreChange) -> Void)? {
        didSet { memory.changeHandler = changeHandler }
    }

    let configuration: Configuration
    let memory: MemorySecretStore
    var keychains: [CollectionID: Keychain] = [:] {
        didSet { lastKeychain = nil }
    }
    /// The keychain ``keychain(_:)`` found last, while ``keychains`` is unchanged.
    var lastKeychain: (id: CollectionID, keychain: Keychain)?
    var order: [CollectionID] = []
    /// Aliases clients set (SetAlias), over the built-in ones; saved in ``aliasesPath``.
    var aliasOverrides: [String: AliasOverride] = [:]
    /// Whether the last ``saveAliases()`` failed: the aliases in memory are then unsaved data.
    var aliasesUnsaved = false
    /// Files that failed to open, served as locked collections that refuse every use
    /// (KeychainSecretStore+Damaged.swift), in the folder's order; tried again when they change.
    var damaged: [DamagedKeychain] = []
    /// Keychains whose `open` access policy has been logged (``accessPolicy(of:)``).
    var notedOpenPolicy: Set<CollectionID> = []
    /// Each keychain's access policy and whether the file stores one, with the `PRAGMA data_version`
    /// it was read at (re-read when another connection has committed since).
    var accessPolicies: [CollectionID: (version: Int64, policy: SecretAccessPolicy, stored: Bool)] = [:]
    /// `keychains.conf`, read again only when it changed (the `default` alias follows it).
    let preferences: KeychainPreferencesCache
    /// The login keychain's database path, made once: the `login` alias, and `default` without a
    /// `default=` line, resolve it on every call to an alias path.
    let loginPath: String

    /// Opens every keychain in the folder (creating the login keychain when absent, unless told not to).
    /// - Parameters:
    ///   - configuration: where the keychains are.
    ///   - memory: the in-memory store serving the `session` collection.
    ///   - createsLogin: whether a missing login keychain (and device key) is made now; `false` for a
    ///     caller that must write nothing (`migrate --dry-run`).
    package init(
        configuration: Configuration = .fromEnvironment(), memory: MemorySecretStore = MemorySecretStore(),
        createsLogin: Bool = true
    ) {
        self.configuration = configuration
        self.memory = memory
        preferences = KeychainPreferencesCache(path: configuration.preferencesPath)
        loginPath = Self.location("login", in: configuration).databasePath
        let login = location("login")
        if createsLogin, !FileSystem.exists(login.databasePath) { _ = try? Keystore(location: login, create: true) }
        rescan(announce: false)
        loadAliases()
    }

    /// Unsaved: the `session` collection's items, and aliases when ``aliasesPath`` could not be written.
    package var holdsUnsavedData: Bool {
        memory.holdsUnsavedData || aliasesUnsaved
    }

    // MARK: - Collections

    package func collections() -> [CollectionInfo] {
        order.compactMap { keychains[$0].map(info) } + damaged.map(\.info) + memory.collections()
    }

    /// The collection's state now: a keychain's lock state is read again on every call (one read
    /// transaction and a kernel keyring lookup), not taken from the last poll, so that a lock or unlock
    /// by another process (`security lock-keychain`) is answered at once; a change found here is reported
    /// as the poll would report it.
    package func collection(_ id: CollectionID) -> CollectionInfo? {
        if let keychain = keychains[id] {
            refreshLock(keychain)
            return info(keychain)
        }
        if let keychain = damagedKeychain(id) { return keychain.info }
        return memory.collection(id)
    }

    /// Without a transaction: the keychains found by the last scan of the folder, the damaged ones, and
    /// the memory store's.
    package func hasCollection(_ id: CollectionID) -> Bool {
        keychains[id] != nil || damagedKeychain(id) != nil || memory.collection(id) != nil
    }

    /// A keychain's label and dates from memory, and the lock state of the last call or poll that read it.
    package func lastSeenCollection(_ id: CollectionID) -> CollectionInfo? {
        if let keychain = keychains[id] { return info(keychain) }
        return collection(id)
    }

    package var externalChangePollSeconds: UInt32? { 1 }

    package func pollExternalChanges() {
        rescan(announce: true)
        for id in order {
            guard let keychain = keychains[id] else { continue }
            refreshLock(keychain)
            if let version = try? keychain.keystore.externalDataVersion(), version != keychain.dataVersion {
                keychain.dataVersion = version
                syncItems(keychain, own: nil)
            }
        }
    }

    package func aliasNames() -> [String] {
        var names = Set(["login", "default", "session"].filter { resolveAlias($0) != nil })
        for (name, override) in aliasOverrides {
            switch override {
            case .collection: names.insert(name)
            case .removed: names.remove(name)
            }
        }
        return names.sorted()
    }

    package func resolveAlias(_ alias: String) -> CollectionID? {
        switch aliasOverrides[alias] {
        case .collection(let id)?: return hasCollection(id) ? id : nil
        case .removed?: return nil
        case nil: break
        }
        switch alias {
        case "login": return keychainID(path: loginPath)
        case "default":
            return keychainID(path: defaultKeychainPath()) ?? keychainID(path: loginPath)
        case "session": return memory.resolveAlias("session")
        default: return nil
        }
    }

    package func setAlias(_ alias: String, to collection: CollectionID?) throws(SecretStoreError) {
        if let collection, self.collection(collection) == nil { throw .noSuchObject }
        if alias == "default", let collection, let keychain = keychains[collection] {
            // The same default as `security default-keychain`: the `default=` line of keychains.conf.
            try setDefaultKeychain(keychain.path)
            if aliasOverrides.removeValue(forKey: "default") != nil { saveAliases() }
            return
        }
        aliasOverrides[alias] = collection.map(AliasOverride.collection) ?? .removed
        saveAliases()
    }

    /// Creates a keychain without a password (the prompt-driven ``createCollectionFromPrompt(label:)``
    /// asks for one).
    package func createCollection(label: String) throws(SecretStoreError) -> CollectionID {
        try makeKeychain(label: label, password: nil)
    }

    package var createCollectionNeedsPrompt: Bool { true }

    package func createCollectionFromPrompt(label: String) throws(SecretStoreError) -> CollectionID? {
        let password: SecureBytes?
        do {
            password = try Self.askNewPassword(label: label)
        } catch {
            throw .notSupported("cannot ask for a password: \(error)")
        }
        guard let password else { return nil }
        return try makeKeychain(label: label, password: password)
    }

    /// Asks a new keychain's password through the prompter, then asks it again to confirm it (as
    /// `security create-keychain` does in a terminal); a confirmation that differs starts over, up to 3
    /// times. - Returns: the password, or `nil` when the user cancelled or never confirmed it.
    /// - Throws: the prompter's failure (`.interactionNotAllowed` when no prompt can be shown).
    static func askNewPassword(label: String) throws(KeychainFailure) -> SecureBytes? {
        let name = label.isEmpty ? "collection" : label
        let description = "An application wants to create a new keychain called “\(name)”. Choose its password."
        var retry: String?
        do {
            for _ in 0..<3 {
                let first = try Prompters.current().requestPassword(
                    PasswordPrompt(title: "New keychain", description: description, label: "Password:", error: retry))
                let second = try Prompters.current().requestPassword(
                    PasswordPrompt(title: "New keychain", description: description, label: "Confirm:"))
                if first.constantTimeEquals(second) { return first }
                retry = "The passwords did not match; try again."
            }
        } catch  where error.status == .userCanceled {
            return nil
        }
        return nil
    }

    /// Asks the new keychain's password on the worker thread; creates the keychain on the provider's thread.
    package func backgroundCreateCollection(label: String) -> BackgroundPromptWork<CollectionID>? {
        let slot = PasswordSlot()
        return BackgroundPromptWork(
            ask: {
                do throws(KeychainFailure) {
                    guard let password = try Self.askNewPassword(label: label) else { return false }
                    slot.value.withLock { $0 = password }
                    return true
                } catch {
                    return nil
                }
            },
            apply: { [self] () throws(SecretStoreError) in
                guard
                    let password = slot.value.withLock({ value in
                        defer { value = nil }; return value
                    })
                else { throw .notSupported("no password was given") }
                return try makeKeychain(label: label, password: password)
            })
    }

    /// Asks a keychain's password (when it has one) on the worker thread; deletes it on the provider's thread.
    package func backgroundDeleteCollection(_ id: CollectionID) -> BackgroundPromptWork<Void>? {
        guard let keychain = keychains[id] else { return nil }
        let keystore = keychain.keystore
        let label = keychain.label
        let needsPassword = (try? keystore.hasPassword()) == true
        return BackgroundPromptWork(
            ask: { needsPassword ? Self.askDeletePassword(keystore, label: label) : true },
            apply: { [self] () throws(SecretStoreError) in try deleteCollection(id) })
    }

    package func deleteCollection(_ id: CollectionID) throws(SecretStoreError) {
        try refuseIfDamaged(id)
        guard let keychain = keychains[id] else {
            try memory.deleteCollection(id)
            return
        }
        // As `security delete-keychain` does, preferences included (a default naming it is forgotten).
        try? KeychainPreferences.deleteKeychain(
            KeychainLocation(databasePath: keychain.path, deviceKeyPath: configuration.deviceKeyPath),
            preferencesPath: configuration.preferencesPath)
        keychains[id] = nil
        order.removeAll { $0 == id }
        let before = aliasOverrides.count
        aliasOverrides = aliasOverrides.filter { $0.value != .collection(id) }
        if aliasOverrides.count != before { saveAliases() }
        changeHandler?(.collectionDeleted(id))
    }

    package func deleteCollectionNeedsPrompt(_ id: CollectionID) -> Bool { keychains[id] != nil }

    package func deleteCollectionFromPrompt(_ id: CollectionID) throws(SecretStoreError) -> Bool {
        try refuseIfDamaged(id)
        guard let keychain = keychains[id] else { return try memory.deleteCollectionFromPrompt(id) }
        // A keychain with a password is deleted only by someone who knows it.
        if (try? keychain.keystore.hasPassword()) == true {
            guard try askPassword(keychain, for: .delete) else { return false }
        }
        try deleteCollection(id)
        return true
    }

    package func setLabel(_ label: String, of collection: CollectionID) throws(SecretStoreError) {
        try refuseIfDamaged(collection)
        guard let keychain = keychains[collection] else {
            try memory.setLabel(label, of: collection)
            return
        }
        do { try keychain.keystore.setSecretCollectionLabel(label) } catch { throw Self.mapped(error) }
        keychain.label = label
        keychain.modified = Keystore.secondsNow()
        changeHandler?(.collectionChanged(collection))
    }

    // MARK: - Locking (asking for passwords: KeychainSecretStore+Keychains.swift)

    package func unlockRequirement(_ id: CollectionID) throws(SecretStoreError) -> UnlockRequirement {
        try refuseIfDamaged(id)
        guard let keychain = keychains[id] else { return try memory.unlockRequirement(id) }
        refreshLock(keychain)
        return keychain.locked ? .prompt : .none
    }

    /// Unlocks when already unlocked by other means; otherwise asks through the prompter.
    package func unlock(_ id: CollectionID) throws(SecretStoreError) {
        _ = try unlockFromPrompt(id)
    }

    package func unlockFromPrompt(_ id: CollectionID) throws(SecretStoreError) -> Bool {
        try refuseIfDamaged(id)
        guard let keychain = keychains[id] else { return try memory.unlockFromPrompt(id) }
        return try askPassword(keychain, for: .unlock)
    }

    /// Asks through the prompter on the calling thread (the provider runs it on a worker thread) and
    /// unlocks the keychain; stops as soon as another process has unlocked it.
    package func backgroundUnlock(_ id: CollectionID) -> (@Sendable () -> Bool?)? {
        guard let keychain = keychains[id] else { return nil }
        let keystore = keychain.keystore
        let label = keychain.label
        return { Self.askUnlockPassword(keystore, label: label) }
    }

    /// Up to 3 pinentry attempts. - Returns: `true` once unlocked (by this or any process), `false` when
    /// the user cancelled or gave 3 wrong passwords, `nil` when no prompt could be shown.
    static func askUnlockPassword(_ keystore: Keystore, label: String) -> Bool? {
        try? askPassword(keystore, for: .unlock, label: label)
    }

    /// Up to 3 pinentry attempts to confirm deleting a keychain with its password (checked by unlocking
    /// it). - Returns: `true` once the password was right, `false` when the user cancelled or gave 3
    /// wrong passwords, `nil` when no prompt could be shown.
    static func askDeletePassword(_ keystore: Keystore, label: String) -> Bool? {
        try? askPassword(keystore, for: .delete, label: label)
    }

    /// What a keychain password is asked for.
    enum PasswordPurpose {
        /// Unlocking: an unlock by another process (`security unlock-keychain`) before or between the
        /// attempts, or when the user cancels, counts as success.
        case unlock
        /// Confirming a deletion: only the right password counts.
        case delete

        /// - Parameter loginPrompt: the login password no longer opens this login keychain: the unlock
        ///   prompt's text from ``KeptLoginPassword/unlockPrompt(forKeychainAt:keyring:)`` (the mismatch,
        ///   and either the re-key to come or how to repair it), shown instead of the usual one.
        func prompt(label: String, retry: String?, loginPrompt: String? = nil) -> PasswordPrompt {
            switch self {
            case .unlock:
                PasswordPrompt(
                    title: "Unlock keychain",
                    description: loginPrompt
                        ?? "An application wants access to the keychain “\(label)”, but it is locked.",
                    label: "Password:", error: retry)
            case .delete:
                PasswordPrompt(
                    title: "Delete keychain",
                    description: "An application wants to delete the keychain “\(label)” and every item in it.",
                    label: "Password:", error: retry)
            }
        }
    }

    /// Asks through the prompter up to 3 times, checking each answer by unlocking `keystore`.
    /// - Returns: `true` once the password was right (or, for `.unlock`, the keychain is unlocked),
    ///   `false` when the user cancelled or gave 3 wrong passwords.
    /// - Throws: the prompter's `.interactionNotAllowed` when no prompt can be shown, or the engine's failure.
    static func askPassword(_ keystore: Keystore, for purpose: PasswordPurpose, label: String) throws(KeychainFailure)
        -> Bool
    {
        let unlockedElsewhereCounts = purpose == .unlock
        var retryMessage: String?
        for _ in 0..<3 {
            if unlockedElsewhereCounts, !isLocked(keystore) { return true }
            let password: SecureBytes
            let wait = try keystore.unlockWait()
            // After a wrong password its line already says what the throttle does to this try.
            let errorLine =
                retryMessage
                ?? UnlockThrottle.notice(failures: wait.failures, seconds: wait.seconds).map { $0 + "." }
            let loginPrompt = KeptLoginPassword.unlockPrompt(
                forKeychainAt: keystore.location.databasePath,
                keyring: KeptLoginPassword.keyringName(environment: ProcessEnvironment.current()))
            do {
                password = try Prompters.current().requestPassword(
                    purpose.prompt(
                        label: label, retry: errorLine, loginPrompt: loginPrompt))
            } catch  where error.status == .userCanceled {
                return unlockedElsewhereCounts && !isLocked(keystore)
            }
            do {
                guard try keystore.unlock(password: password) == .userSession || !isLocked(keystore) else {
                    // The kernel keyring refused the unlock, and this process keeps none of its own
                    // (``ClassKeyStore/keepsRefusedUnlocksInProcess``): the prompt fails, and the log says why.
                    SecretServiceDaemon.printError(
                        "keychain-secret-service: \(label): the password is right, but "
                            + ClassKeyStore.refusalDiagnosis())
                    return false
                }
                if purpose == .unlock { offerLoginRepair(keystore, oldPassword: password) }
                return true
            } catch  where error.status == .authFailed {
                // The unlock throttle's count (shared with `security unlock-keychain`), not this dialog's
                // own 3 tries: earlier dialogs and other processes' failures count too.
                let failures = (try? keystore.unlockWait().failures) ?? wait.failures + 1
                retryMessage = UnlockThrottle.wrongPasswordPromptLine(failures: failures)
            }
        }
        return unlockedElsewhereCounts && !isLocked(keystore)
    }

    /// The repair question's buttons (pinentry's OK and Cancel).
    static let repairChangeLabel = "Change"
    static let repairNotNowLabel = "Not now"

    /// After `oldPassword` unlocked the login keychain while `keychain-pam-helper` keeps a different login
    /// password (``KeptLoginPassword``, beside ``LoginPasswordMarker``): asks once through pinentry
    /// (``LoginPasswordMarker/repairQuestion``, "Change" / "Not now") and on Change re-keys the keychain to
    /// the login password in one transaction (``Keystore/setPassword(_:current:parameters:)``), then
    /// withdraws the kept password and the marker. "Not now", a dismissed dialog, no pinentry or a failed
    /// re-key change nothing and leave both until the entry expires (gnome-keyring's repair; tracker
    /// issue 25, docs/PAM.md; `security unlock-keychain` asks the same on a terminal).
    static func offerLoginRepair(_ keystore: Keystore, oldPassword: SecureBytes) {
        let path = keystore.location.databasePath
        let environment = ProcessEnvironment.current()
        let keyring = KeptLoginPassword.keyringName(environment: environment)
        guard let login = KeptLoginPassword.pendingRepair(forKeychainAt: path, keyring: keyring, typed: oldPassword)
        else { return }
        guard let pinentry = try? Pinentry.fromEnvironment(terminal: nil),
            (try? pinentry.confirm(
                title: "Unlock keychain", description: LoginPasswordMarker.repairQuestion, ok: repairChangeLabel,
                cancel: repairNotNowLabel)) == true
        else { return }
        do {
            try keystore.setPassword(
                login, current: oldPassword,
                parameters: KDFParameters.forNewPassword(environment: environment).parameters)
        } catch {
            SecretServiceDaemon.printError(
                "keychain-secret-service: the login keychain's password could not be changed: \(error)")
            return
        }
        KeptLoginPassword.finishRepair(forKeychainAt: path, keyring: keyring)
    }

    package func lock(_ id: CollectionID) throws(SecretStoreError) {
        // A damaged keychain is locked already: nothing to do, nothing to write.
        if damagedKeychain(id) != nil { return }
        guard let keychain = keychains[id] else {
            try memory.lock(id)
            return
        }
        do { try keychain.keystore.lock() } catch { throw Self.mapped(error) }
        refreshLock(keychain)
        // A keychain without a password is always unlocked, like a device without a passcode.
        guard keychain.locked else { throw .notSupported("\(keychain.label) has no password and cannot be locked") }
    }
}

/// The password a background ``KeychainSecretStore/backgroundCreateCollection(label:)`` question got,
/// handed from the worker thread to the provider's thread.
private final class PasswordSlot: Sendable {
    let value = Mutex<SecureBytes?>(nil)
}
