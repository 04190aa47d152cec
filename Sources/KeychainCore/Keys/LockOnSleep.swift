/// What a session event locks (tracker issue 25, item 2): the keychains whose settings ask for it
/// (``Keystore/locksOnSleep()``, `security set-keychain-settings -l`), each as `security lock-keychain`
/// locks it: the WhenUnlocked class keys are withdrawn from the kernel keyring for every process of
/// the user, and the AfterFirstUnlock ones stay, as on iOS.
///
/// The keychains considered are every keychain that holds an unlock in the project keyring (wherever
/// its file is, from the path its AfterFirstUnlock entry records), the files in the keychain folder
/// and the search list, once each. A keychain that cannot be opened is reported, never fatal: the
/// others still lock.
package enum LockOnSleep {
    /// What one run did, by keychain path. Holds no secret.
    package struct Report: Sendable, Equatable {
        /// Keychains that ask to lock and were unlocked: now locked.
        package var locked: [String] = []
        /// Keychains that ask to lock and were already locked (or have no password).
        package var alreadyLocked: [String] = []
        /// Keychains whose settings do not ask for it: left as they are.
        package var kept: [String] = []
        /// Keychains that could not be read or locked, with the engine's reason.
        package var failed: [String] = []
    }

    /// Locks every keychain whose settings ask for it (see the type's summary).
    /// - Parameter environment: where the keychain folder, preferences and device key are (the process's).
    /// - Returns: what was locked, already locked, kept, or failed, by path.
    package static func lockKeychains(
        environment: [String: String] = ProcessEnvironment.current()
    ) -> Report {
        var report = Report()
        let deviceKey = KeychainLocation.defaultDeviceKeyPath(environment: environment)
        for path in candidates(environment: environment) {
            do throws(KeychainFailure) {
                let store = try Keystore(
                    location: KeychainLocation(databasePath: path, deviceKeyPath: deviceKey), create: false)
                guard try store.locksOnSleep() else {
                    report.kept.append(path)
                    continue
                }
                guard try store.lockState() == .unlocked else {
                    report.alreadyLocked.append(path)
                    continue
                }
                try store.lock()
                report.locked.append(path)
            } catch {
                report.failed.append("\(path): \(error)")
            }
        }
        return report
    }

    /// Every keychain path to consider, once each, in a stable order: unlocked ones first.
    static func candidates(environment: [String: String]) -> [String] {
        var paths: [String] = []
        func add(_ path: String) {
            if !paths.contains(path), FileSystem.exists(path) { paths.append(path) }
        }
        for holder in ClassKeyStore.holders() {
            if let path = holder.path { add(path) }
        }
        let directory = KeychainLocation.keychainDirectory(environment: environment)
        if let names = FileSystem.entries(directory) {
            for name in names.sorted() where name.hasSuffix(".keychain-db") { add(directory + "/" + name) }
        }
        for location in KeychainPreferences.load(environment: environment).searchLocations(environment: environment) {
            add(location.databasePath)
        }
        return paths
    }
}
