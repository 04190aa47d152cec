/// The keychain password ("passcode"), lock and unlock (tracker issue 3; Apple Platform Security,
/// "Keychain data protection" and "Data Protection classes").
extension Keystore {
    /// Whether the keychain's protected classes can be used now.
    package enum LockState: Sendable, Equatable {
        /// No password: every class is available, like a device without a passcode.
        case noPassword
        /// A password is set and the WhenUnlocked class keys are withdrawn.
        case locked
        /// A password is set and the WhenUnlocked class keys are available.
        case unlocked
    }

    /// The current lock state, as every process of the user sees it.
    package func lockState() throws(KeychainFailure) -> LockState {
        try read(foreign: true) { (s: borrowing StoreSession) throws(KeychainFailure) -> LockState in s.lockState }
    }

    /// Whether the class key of `protection` is available now, and since when: `nil` while it is
    /// locked; otherwise a number that stays the same until the key is withdrawn (a lock, the
    /// auto-lock timeout, the end of the session) and changes when it becomes available again.
    ///
    /// Cheap enough to ask before serving every cached secret: one read transaction and, for the
    /// passcode classes, one kernel keyring lookup; no key is unwrapped. Counts as a use of the key
    /// for the auto-lock timeout, as reading an item does. Keys kept in the device slot (the Always
    /// classes, or every class while there is no password) are always available (epoch 0).
    package func classKeyEpoch(_ protection: ProtectionClass) throws(KeychainFailure) -> Int64? {
        try read(foreign: true) { (s: borrowing StoreSession) throws(KeychainFailure) -> Int64? in
            if s.keys.isForeign { return nil }
            if s.keys.deviceEntries[.classKey(protection)] != nil { return 0 }
            guard s.keys.classKey(protection) != nil else { return nil }
            return ClassKeyStore.epoch(keyringID: s.keys.keyringID, protection: protection)
        }
    }

    /// Where this keychain's unlock is kept (``ClassKeyStore``): `.userSession` when its
    /// WhenUnlocked class keys are in the kernel keyring for every process of the user,
    /// `.thisProcess` when only this process holds them, `nil` while they are locked or the keychain
    /// has no password.
    package func unlockPlacement() throws(KeychainFailure) -> ClassKeyStore.Scope? {
        try read(foreign: true) { (s: borrowing StoreSession) throws(KeychainFailure) -> ClassKeyStore.Scope? in
            guard s.keys.password != nil, !s.keys.isForeign else { return nil }
            return ClassKeyStore.placement(keyringID: s.keys.keyringID, lifetime: .whenUnlocked)
        }
    }

    /// The auto-lock timeout in seconds (0: never).
    package func autoLockTimeout() throws(KeychainFailure) -> UInt32 {
        try read(foreign: true) { (s: borrowing StoreSession) throws(KeychainFailure) -> UInt32 in
            s.keys.autoLockSeconds
        }
    }

    /// What this keychain's calls say while it is foreign (with `.interactionNotAllowed`): unlock it
    /// to adopt it.
    package var foreignKeychainAdvice: String { SessionKeys.foreignMessage(keychainPath: location.databasePath) }

    /// Whether the keychain waits to be adopted: its device key is missing or belongs to another
    /// installation, and only its password can open it (see ``unlock(password:)``).
    package func needsAdoption() throws(KeychainFailure) -> Bool {
        try read(foreign: true) { (s: borrowing StoreSession) throws(KeychainFailure) -> Bool in s.keys.isForeign }
    }

    /// The Argon2id parameters of the password, or `nil` without one.
    package func passwordParameters() throws(KeychainFailure) -> KDFParameters? {
        try read(foreign: true) { (s: borrowing StoreSession) throws(KeychainFailure) -> KDFParameters? in
            s.keys.password?.parameters
        }
    }

    /// Whether a password is set.
    package func hasPassword() throws(KeychainFailure) -> Bool {
        try read(foreign: true) { (s: borrowing StoreSession) throws(KeychainFailure) -> Bool in s.keys.password != nil
        }
    }

    /// How many items removing the password deletes: the WhenPasscodeSetThisDeviceOnly items, which
    /// exist only while a password is set (Apple deletes them when the passcode is turned off), of every
    /// row kind (``StoreSession/passcodeOnlyRowCount(_:)``; Secret Service items are WhenUnlocked and
    /// stay). Reads the protection-class column only, so it answers while the keychain is locked.
    /// - Returns: the number of such items (0 for a keychain without a password).
    /// - Throws: file statuses as for every read.
    package func passcodeSetItemCount() throws(KeychainFailure) -> Int {
        try read(foreign: true) { (s: borrowing StoreSession) throws(KeychainFailure) -> Int in
            var count = 0
            for kind in RowKind.allCases { count += try s.passcodeOnlyRowCount(kind) }
            return count
        }
    }

    /// Sets, changes or removes the keychain password, re-wrapping the class keys only: O(1) in the
    /// number of items (Argon2id aside).
    ///
    /// - Setting (`current` nil on a keychain without password): the WhenUnlocked, AfterFirstUnlock
    ///   and WhenPasscodeSet class keys move to the passcode slot; the keychain stays unlocked.
    /// - Changing: `current` must be right; the class keys are re-wrapped under the new password.
    /// - Removing (`newPassword` nil): the class keys return to the device slot and every
    ///   WhenPasscodeSetThisDeviceOnly item is deleted, as Apple does when the passcode is removed.
    ///
    /// Each row kind says what the change does to its rows (``StoreSession/rekeyRows(_:passwordRemoved:)``):
    /// no row is re-sealed, since the class keys' bytes stay the same; Secret Service items, whose item
    /// keys the WhenUnlocked class key wraps, stay readable under the new password or none.
    ///
    /// It is one SQLite transaction: a crash leaves the keychain with the old or the new password.
    /// - Throws: `.authFailed` (-25293) when `current` is wrong or missing (nothing changes);
    ///   `.param` for invalid KDF parameters; `.allocate` when Argon2id cannot get its memory;
    ///   file statuses as for every write.
    package func setPassword(
        _ newPassword: SecureBytes?, current: SecureBytes?, parameters: KDFParameters = .default
    ) throws(KeychainFailure) {
        let classKeys = try rewrapPasscodeSlot(newPassword, current: current, parameters: parameters)
        if newPassword != nil {
            try makeAvailable(classKeys)
        } else {
            try withdraw(ClassKeyStore.Lifetime.allCases)
        }
    }

    /// ``setPassword(_:current:parameters:)`` without making the class keys available or withdrawing
    /// them. - Returns: the passcode-slot class keys (for ``makeAvailable(_:)``).
    func rewrapPasscodeSlot(
        _ newPassword: SecureBytes?, current: SecureBytes?, parameters: KDFParameters
    ) throws(KeychainFailure) -> [ProtectionClass: ClassKey] {
        guard parameters.isValid else { throw KeychainFailure(.param, "invalid Argon2id parameters") }
        let (existing, keychainID, throttle) = try read { (s: borrowing StoreSession) throws(KeychainFailure) in
            (s.keys.password, s.keys.keychainID, s.keys.throttle)
        }
        // The slow Argon2id runs outside any transaction.
        var oldHash: PasswordHash?
        if let existing {
            guard let current else { throw KeychainFailure(.authFailed, "the current password is required") }
            throttle.waitIfNeeded()
            oldHash = try Keybag.passwordHash(current, salt: existing.salt, parameters: existing.parameters)
        }
        let salt = Sodium.randomBytes(Sodium.passwordSaltBytes)
        let newHash = try newPassword.map { (password: SecureBytes) throws(KeychainFailure) -> PasswordHash in
            try Keybag.passwordHash(password, salt: salt, parameters: parameters)
        }

        CrashPoint.reach("password.derived")
        let classKeys = try write {
            (s: borrowing StoreSession) throws(KeychainFailure) -> [ProtectionClass: ClassKey] in
            let deviceKey = try s.keys.boundDeviceKey()
            guard s.keys.password?.salt == existing?.salt else {
                throw KeychainFailure(.authFailed, "the password was changed by another process; try again")
            }
            var classKeys: [ProtectionClass: ClassKey] = [:]
            if let oldHash {
                classKeys = KeybagEntry.classKeys(
                    try Keybag.unwrap(
                        kek: Keybag.passcodeKEK(passwordHash: oldHash, deviceKey: deviceKey),
                        in: s.database, keychainID: keychainID, failure: KeychainFailure(.authFailed)))
            } else {
                for protection in Keybag.passcodeClasses { classKeys[protection] = s.keys.classKey(protection) }
            }
            guard Keybag.passcodeClasses.allSatisfy({ classKeys[$0] != nil }) else {
                throw KeychainFailure(.invalidKeychain, "the keybag is missing a class key")
            }
            let generation = try Meta.integer(s.database, "generation")
            let newKEK = newHash.map { Keybag.passcodeKEK(passwordHash: $0, deviceKey: deviceKey) }
            let device = Keybag.deviceKEK(deviceKey: deviceKey, keychainID: keychainID)
            for protection in Keybag.passcodeClasses {
                let key = classKeys[protection]!
                if let newKEK {
                    try Keybag.store(key, for: protection, kek: newKEK, in: s.database, keychainID: keychainID)
                } else {
                    try Keybag.store(key, for: protection, kek: device, in: s.database, keychainID: keychainID)
                }
            }
            try Keybag.remove(.migration, in: s.database)
            if let newHash {
                try Self.storeMigrationSlot(
                    passwordHash: newHash, classKeys: classKeys, session: s, keychainID: keychainID)
            }
            try Meta.set(s.database, "kdf", newHash == nil ? nil : Meta.encodeKDF(parameters, salt: salt))
            try Meta.set(s.database, "generation", integer: generation + 1)
            for kind in RowKind.allCases { try s.rekeyRows(kind, passwordRemoved: newHash == nil) }
            CrashPoint.reach("password.rewrapped")
            try s.keys.reload(s.database)
            return classKeys
        }
        CrashPoint.reach("password.committed")
        throttle.reset()
        return classKeys
    }

    /// Writes the migration slot: the index key and the migratable class keys under the password
    /// alone. `classKeys` holds the passcode-slot keys; the others come from the device slot.
    private static func storeMigrationSlot(
        passwordHash: PasswordHash, classKeys: [ProtectionClass: ClassKey], session s: borrowing StoreSession,
        keychainID: [UInt8]
    ) throws(KeychainFailure) {
        let kek = Keybag.migrationKEK(passwordHash: passwordHash, keychainID: keychainID)
        for entry in Keybag.migrationEntries {
            guard let key = entry.protection.flatMap({ classKeys[$0]?.bytes }) ?? s.keys.deviceEntries[entry] else {
                continue
            }
            try Keybag.store(key, entry: entry, kek: kek, in: s.database, keychainID: keychainID)
        }
    }

    /// Unlocks the keychain: checks `password` and makes the class keys available to every process
    /// of the user (kernel user keyring) or, where that is unavailable, to this process only.
    ///
    /// A wrong password leaves the file unchanged. Repeated failures wait an escalating delay first
    /// (``UnlockThrottle``).
    ///
    /// When the keychain is foreign (its device key is missing, or it was copied from another
    /// installation), a right password also **adopts** it, in one transaction: the index key and
    /// the migratable class keys are taken from the migration slot and re-wrapped under this
    /// installation's device key (created when missing); the `…ThisDeviceOnly` class keys, which
    /// only the old device key opens, are set aside in `meta` and replaced by fresh ones. Items of
    /// those classes then answer `.decode`, and every other item reads as before (tracker issue 3).
    /// The keychain's sync identity goes too, in the same transaction (``StoreSession/forgetSyncIdentity()``,
    /// issue 26): it no longer syncs, as after `security sync leave`, and joins a group again as a new device.
    ///
    /// A keychain made by an earlier build gets its migration slot at its first unlock here, and a
    /// damaged migration slot is rewritten.
    /// - Returns: where the unlock is kept (``ClassKeyStore/Scope``): `.thisProcess` where the kernel
    ///   keyring is unavailable, or when it refused a key (its quota is full). A keychain without a
    ///   password is always unlocked; the call then succeeds without checking anything.
    /// - Throws: `.authFailed` (-25293) for a wrong password; `.allocate` when Argon2id cannot get
    ///   its memory; `.io` when the device key cannot be created during an adoption.
    @discardableResult
    package func unlock(password: SecureBytes) throws(KeychainFailure) -> ClassKeyStore.Scope {
        try unlockReportingAdoption(password: password).scope
    }

    /// As ``unlock(password:)``, and says whether this call adopted the keychain (`false` when it
    /// was not foreign, or another process adopted it first).
    package func unlockReportingAdoption(password: SecureBytes) throws(KeychainFailure)
        -> (scope: ClassKeyStore.Scope, adopted: Bool)
    {
        let (existing, keychainID, throttle, isForeign) = try read(foreign: true) {
            (s: borrowing StoreSession) throws(KeychainFailure) in
            (s.keys.password, s.keys.keychainID, s.keys.throttle, s.keys.isForeign)
        }
        guard let existing else { return (ClassKeyStore.scope, false) }
        throttle.waitIfNeeded()
        let hash = try Keybag.passwordHash(password, salt: existing.salt, parameters: existing.parameters)
        let classKeys: [ProtectionClass: ClassKey]
        var adopted = false
        do {
            if isForeign {
                (classKeys, adopted) = try adopt(passwordHash: hash, salt: existing.salt, keychainID: keychainID)
            } else {
                classKeys = try read { (s: borrowing StoreSession) throws(KeychainFailure) in
                    KeybagEntry.classKeys(
                        try Keybag.unwrap(
                            kek: Keybag.passcodeKEK(passwordHash: hash, deviceKey: try s.keys.boundDeviceKey()),
                            in: s.database, keychainID: keychainID, failure: KeychainFailure(.authFailed)))
                }
                try repairMigrationSlot(passwordHash: hash, salt: existing.salt, classKeys: classKeys)
            }
        } catch {
            if error.status == .authFailed { throttle.recordFailure() }
            throw error
        }
        throttle.reset()
        return (try makeAvailable(classKeys), adopted)
    }

    /// Adopts a foreign keychain (see ``unlock(password:)``).
    /// - Returns: the passcode-slot class keys, to make available, and whether this call adopted it
    ///   (`false` when another process did it first).
    /// - Throws: `.authFailed` when the password does not open the migration slot (nothing is
    ///   written); `.decode` when it opens only part of it (damage).
    private func adopt(passwordHash: PasswordHash, salt: [UInt8], keychainID: [UInt8]) throws(KeychainFailure)
        -> (classKeys: [ProtectionClass: ClassKey], adopted: Bool)
    {
        let migrationKEK = Keybag.migrationKEK(passwordHash: passwordHash, keychainID: keychainID)
        let unwrapMigration = { (s: borrowing StoreSession) throws(KeychainFailure) -> [KeybagEntry: SecureBytes] in
            let (carried, isWhole) = try Keybag.openMigrationSlot(
                kek: migrationKEK, in: s.database, keychainID: keychainID)
            // Nothing opens with a wrong password; a right one that opens only part was damaged.
            if carried.isEmpty { throw KeychainFailure(.authFailed) }
            guard isWhole else {
                throw KeychainFailure(
                    .decode,
                    "the password is right, but this keychain's migration keys are damaged, so it cannot be adopted without its old device key; restore that file or a backup",
                    reason: .advice)
            }
            return carried
        }
        // Check the password before anything is created or written.
        _ = try read(foreign: true, unwrapMigration)
        let deviceKey = try DeviceKey.loadOrCreate(path: location.deviceKeyPath)
        CrashPoint.reach("adopt.derived")
        return try write(foreign: true) {
            (s: borrowing StoreSession) throws(KeychainFailure) -> (
                classKeys: [ProtectionClass: ClassKey], adopted: Bool
            ) in
            guard s.keys.password?.salt == salt else {
                throw KeychainFailure(.authFailed, "the password was changed by another process; try again")
            }
            let passcodeKEK = Keybag.passcodeKEK(passwordHash: passwordHash, deviceKey: deviceKey)
            if !s.keys.isForeign {
                // Another process adopted it meanwhile, with the same device key.
                let classKeys = try Keybag.unwrap(
                    kek: passcodeKEK, in: s.database, keychainID: keychainID, failure: KeychainFailure(.authFailed))
                return (KeybagEntry.classKeys(classKeys), false)
            }
            var keys = try unwrapMigration(s)
            let previousKeyringID = s.keys.keyringID
            let deviceKEK = Keybag.deviceKEK(deviceKey: deviceKey, keychainID: keychainID)
            let generation = try Meta.integer(s.database, "generation")
            var classKeys: [ProtectionClass: ClassKey] = [:]
            for entry in Keybag.deviceBoundEntries {
                try Keybag.setAside(entry: entry, tag: generation, in: s.database)
                keys[entry] = ClassKey.random().bytes
            }
            for (entry, key) in keys {
                if let protection = entry.protection, Keybag.passcodeClasses.contains(protection) {
                    classKeys[protection] = ClassKey(key)
                    try Keybag.store(key, entry: entry, kek: passcodeKEK, in: s.database, keychainID: keychainID)
                } else {
                    try Keybag.store(key, entry: entry, kek: deviceKEK, in: s.database, keychainID: keychainID)
                }
            }
            try Meta.set(s.database, "keyring_id", Sodium.randomBytes(16))
            try Meta.set(s.database, "generation", integer: generation + 1)
            // Its sync secrets were sealed under a ThisDeviceOnly key just set aside: the copy is a new device.
            try s.forgetSyncIdentity()
            CrashPoint.reach("adopt.rewrapped")
            try s.keys.reload(s.database)
            // Keys left in the kernel keyring under the old id (the device key was lost while the
            // keychain was unlocked) would outlive the next lock: withdraw them, as a logout would,
            // before the commit, so that no crash can leave them behind. On one user session this
            // also locks the original of an adopted copy, which shared the id.
            for lifetime in ClassKeyStore.Lifetime.allCases {
                ClassKeyStore.remove(keyringID: previousKeyringID, lifetime: lifetime)
            }
            return (classKeys, true)
        }
    }

    /// Makes sure the migration slot holds every migratable key under the current password,
    /// rewriting it when it is missing (a keychain made before it existed) or any row fails to
    /// open (damage); the device slot and passcode slot just opened are the source of truth.
    private func repairMigrationSlot(
        passwordHash: PasswordHash, salt: [UInt8], classKeys: [ProtectionClass: ClassKey]
    ) throws(KeychainFailure) {
        let isSound = { (s: borrowing StoreSession) throws(KeychainFailure) -> Bool in
            try Keybag.openMigrationSlot(
                kek: Keybag.migrationKEK(passwordHash: passwordHash, keychainID: s.keys.keychainID), in: s.database,
                keychainID: s.keys.keychainID
            ).isWhole
        }
        if try read(isSound) { return }
        try write { (s: borrowing StoreSession) throws(KeychainFailure) in
            guard s.keys.password?.salt == salt, !(try isSound(s)) else { return }
            try Keybag.remove(.migration, in: s.database)
            try Self.storeMigrationSlot(
                passwordHash: passwordHash, classKeys: classKeys, session: s, keychainID: s.keys.keychainID)
        }
    }

    /// Locks the keychain: withdraws the WhenUnlocked (and WhenPasscodeSet) class keys at once, for
    /// every process of the user. AfterFirstUnlock keys stay until the session ends, as on iOS.
    package func lock() throws(KeychainFailure) {
        try withdraw([.whenUnlocked])
    }

    /// Sets the auto-lock timeout: the WhenUnlocked keys are withdrawn after `seconds` without use
    /// (0: never), as `security set-keychain-settings -t` does on macOS.
    package func setAutoLockTimeout(_ seconds: UInt32) throws(KeychainFailure) {
        let keyringID = try write { (s: borrowing StoreSession) throws(KeychainFailure) -> [UInt8] in
            let generation = try Meta.integer(s.database, "generation")
            try Meta.set(s.database, "autolock", integer: Int64(seconds))
            try Meta.set(s.database, "generation", integer: generation + 1)
            try s.keys.reload(s.database)
            return s.keys.keyringID
        }
        // Re-arm the timer on keys that are available now.
        _ = ClassKeyStore.load(keyringID: keyringID, lifetime: .whenUnlocked, rearm: seconds)
    }

    /// What the unlock throttle (``UnlockThrottle``) imposes on the next ``unlock(password:)``, without
    /// trying a password.
    /// - Returns: the consecutive wrong passwords so far and the delay they impose, in seconds (0: none),
    ///   counted from the last failure.
    /// - Throws: file statuses as for every read.
    package func unlockWait() throws(KeychainFailure) -> (failures: Int, seconds: UInt32) {
        try read(foreign: true) {
            (s: borrowing StoreSession) throws(KeychainFailure) -> (failures: Int, seconds: UInt32) in
            s.keys.throttle.pending()
        }
    }

    /// Whether the keychain locks when the machine sleeps, the screen locks or the session ends
    /// (`security set-keychain-settings -l`, macOS's "lock when sleeping"), as the session agent
    /// (`keychain-secret-service session-agent`, ``LockOnSleep``) honours it. Readable while locked.
    /// - Returns: `false` until ``setLocksOnSleep(_:)`` turns it on (the default for every keychain).
    /// - Throws: file statuses as for every read.
    package func locksOnSleep() throws(KeychainFailure) -> Bool {
        try read(foreign: true) { (s: borrowing StoreSession) throws(KeychainFailure) -> Bool in
            try Meta.integer(s.database, "lockonsleep") != 0
        }
    }

    /// Turns lock-on-sleep on or off (see ``locksOnSleep()``), in one transaction; no key is touched.
    /// - Throws: file statuses as for every write.
    package func setLocksOnSleep(_ on: Bool) throws(KeychainFailure) {
        try write { (s: borrowing StoreSession) throws(KeychainFailure) in
            try Meta.set(s.database, "lockonsleep", integer: on ? 1 : 0)
        }
    }

    /// Stores the unlocked class keys in the class key store: two entries at most (one per
    /// lifetime, ``ClassKeyStore``), the AfterFirstUnlock one first so that a WhenUnlocked entry never
    /// stands alone. First withdraws the entries of keychains that no longer exist.
    /// - Returns: `.thisProcess` when any of them could be kept by this process only.
    @discardableResult
    func makeAvailable(_ classKeys: [ProtectionClass: ClassKey]) throws(KeychainFailure) -> ClassKeyStore.Scope {
        let (timeout, keyringID) = try read { (s: borrowing StoreSession) throws(KeychainFailure) in
            (s.keys.autoLockSeconds, s.keys.keyringID)
        }
        ClassKeyStore.sweep(unlocking: keyringID, at: location.databasePath)
        // All or nothing: when the kernel refuses one entry (a full quota), both stay in this process,
        // so that no other process sees half an unlock (AfterFirstUnlock items open, WhenUnlocked not).
        let entries = [ClassKeyStore.Lifetime.afterFirstUnlock, .whenUnlocked].compactMap { lifetime in
            let keys = classKeys.filter { ClassKeyStore.Lifetime($0.key) == lifetime }
            return keys.isEmpty
                ? nil : (lifetime: lifetime, keys: keys, timeout: lifetime == .whenUnlocked ? timeout : 0)
        }
        let placed = entries.map { entry in
            ClassKeyStore.store(
                entry.keys, keyringID: keyringID, lifetime: entry.lifetime, timeout: entry.timeout,
                keychainPath: location.databasePath)
        }
        if placed.allSatisfy({ $0 == .userSession }) { return .userSession }
        for entry in entries {
            ClassKeyStore.store(
                entry.keys, keyringID: keyringID, lifetime: entry.lifetime, timeout: entry.timeout,
                keychainPath: location.databasePath, kernel: false)
        }
        return .thisProcess
    }
}

extension Keystore {
    /// Withdraws every class key this keychain has in the class key store (WhenUnlocked and
    /// AfterFirstUnlock alike), as a logout or restart would. Used by ``releaseBeforeDeletion()`` and tests.
    package func withdrawAllClassKeys() throws(KeychainFailure) {
        try withdraw(ClassKeyStore.Lifetime.allCases)
    }

    /// Withdraws what the rows of each kind (``RowKind``) keep outside the keychain file, before the file
    /// is removed (``KeychainPreferences/deleteKeychain(_:preferencesPath:)``: `security delete-keychain`
    /// and the Secret Service's `Collection.Delete`). Every row of every kind lives in the file and goes
    /// with it; what outlives it is the class keys an unlock put in the kernel keyring, which every kind's
    /// rows are sealed under, and which would otherwise stay until the session ends.
    /// - Throws: file statuses as for every read.
    package func releaseBeforeDeletion() throws(KeychainFailure) {
        var sealedUnderClassKeys = false
        for kind in RowKind.allCases {
            switch kind {
            case .secItem, .secretService:
                // Item keys wrapped by class keys (Secret Service items: SecretItemSchema.protection's).
                sealedUnderClassKeys = true
            case .sync:
                // Conflict copies and sync secrets are sealed under class keys. Deleting a keychain is not a
                // sync event (docs/SYNC.md, "Secret Service items (kind 5)"): other devices keep their copies.
                sealedUnderClassKeys = true
            }
        }
        if sealedUnderClassKeys { try withdrawAllClassKeys() }
    }

    /// Removes this keychain's entries of `lifetimes` from the class key store (also while it is
    /// foreign: keys left there when its device key was lost), WhenUnlocked first.
    private func withdraw(_ lifetimes: [ClassKeyStore.Lifetime]) throws(KeychainFailure) {
        let keyringID = try read(foreign: true) { (s: borrowing StoreSession) throws(KeychainFailure) in
            s.keys.keyringID
        }
        for lifetime in lifetimes.sorted(by: { $0 == .whenUnlocked && $1 != .whenUnlocked }) {
            ClassKeyStore.remove(keyringID: keyringID, lifetime: lifetime)
        }
    }
}

extension StoreSession {
    /// ``Keystore/lockState()`` inside a transaction that is already open.
    var lockState: Keystore.LockState {
        guard keys.password != nil else { return .noPassword }
        if keys.isForeign { return .locked }
        return keys.classKey(.whenUnlocked) == nil ? .locked : .unlocked
    }

    /// ``lockState`` from the WhenUnlocked entry's presence (``SessionKeys/classKeyAvailable(_:)``), its
    /// keys not read: the Secret Service's `Locked` and search answers, which read no secret.
    var lockStateFromEntry: Keystore.LockState {
        guard keys.password != nil else { return .noPassword }
        if keys.isForeign { return .locked }
        return keys.classKeyAvailable(.whenUnlocked) ? .unlocked : .locked
    }
}
