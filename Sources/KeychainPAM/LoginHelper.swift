internal import KeychainCore

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// What `keychain-pam-helper` does for one ``HelperMessage``, as the user (docs/PAM.md).
///
/// Each outcome is one line for the module to log (never a password) and an exit status: 0 done,
/// 1 the login password does not open the login keychain, 2 a malformed message, 3 any other failure.
/// Every change is one SQLite transaction per keychain (``Keystore/setPassword(_:current:parameters:)``),
/// so the module may kill the helper at any moment: each keychain keeps its old password or has the new one.
package struct LoginHelper {
    /// One line and an exit status.
    package struct Outcome: Equatable {
        package let status: Int32
        package let line: String

        static func done(_ line: String) -> Outcome { Outcome(status: 0, line: "ok: " + line) }
        static func failed(_ status: Int32, _ line: String) -> Outcome { Outcome(status: status, line: line) }
    }

    /// The marker that the login password changed without the keychains following (no secret in it).
    package static let changeMarkerName = LoginPasswordMarker.name

    /// What the next unlock prompt of the login keychain says while the marker is there (tracker issue 25).
    package static let mismatchMessage = LoginPasswordMarker.mismatchMessage

    let environment: [String: String]

    package init(environment: [String: String]) {
        self.environment = environment
    }

    /// Carries out `message`.
    package func run(_ message: HelperMessage) -> Outcome {
        do {
            switch message.operation {
            case .unlock: return try unlock(message.tokens[0])
            case .change: return try change(old: message.tokens[0], new: message.tokens[1])
            case .changedWithoutOld: return try recordChange(message.tokens[0])
            case .lockIfLastSession: return lockIfLastSession()
            }
        } catch {
            return .failed(3, "\(message.operation): \(error)")
        }
    }

    // MARK: - Operations

    private var kdfParameters: KDFParameters { KDFParameters.forNewPassword(environment: environment).parameters }

    /// How long the login password is kept for the repair: `KEYCHAIN_KEPT_PASSWORD_TIMEOUT` seconds in
    /// tests, else ``KeptLoginPassword/defaultTimeout``.
    private var keptTimeout: UInt32 {
        environment["KEYCHAIN_KEPT_PASSWORD_TIMEOUT"].flatMap { UInt32($0) } ?? KeptLoginPassword.defaultTimeout
    }

    private var keptKeyring: String { KeptLoginPassword.keyringName(environment: environment) }

    private var markerPath: String {
        KeychainLocation.keychainDirectory(environment: environment) + "/" + Self.changeMarkerName
    }

    private func unlock(_ password: SecureBytes) throws(KeychainFailure) -> Outcome {
        let location = KeychainLocation.login(environment: environment)
        if !FileSystem.exists(location.databasePath) {
            let store = try Keystore.create(location: location, password: password, parameters: kdfParameters)
            // A marker or kept password from before the keychain existed has nothing left to repair.
            if FileSystem.exists(markerPath) { FileSystem.remove(markerPath) }
            KeptLoginPassword.withdraw(keyring: keptKeyring)
            if try store.unlockPlacement() == .thisProcess { return .failed(3, ClassKeyStore.refusalDiagnosis()) }
            return .done("created the login keychain \(location.databasePath) with the login password")
        }
        let store = try Keystore(location: location, create: false)
        guard try store.hasPassword() else { return .done("the login keychain has no password; it is always unlocked") }
        do {
            if try store.unlock(password: password) == .thisProcess {
                return .failed(3, "unlocked for this helper only: " + ClassKeyStore.refusalDiagnosis())
            }
        } catch  where error.status == .authFailed {
            try writeMarker("the login password did not open the login keychain")
            let kept = KeptLoginPassword.keep(password, timeout: keptTimeout, keyring: keptKeyring)
            return .failed(
                1,
                "the login password does not open the login keychain \(location.databasePath) (was it changed "
                    + "elsewhere?); it stays locked, and its next unlock prompt offers to bring the two in line"
                    + (kept ? "" : " (the kernel keyring refused to keep the login password meanwhile)"))
        }
        if FileSystem.exists(markerPath) { FileSystem.remove(markerPath) }
        KeptLoginPassword.withdraw(keyring: keptKeyring)
        return .done("unlocked the login keychain \(location.databasePath) for every process of the user")
    }

    private func change(old: SecureBytes, new: SecureBytes) throws(KeychainFailure) -> Outcome {
        var rekeyed: [String] = []
        var skipped = 0
        for location in keychains() {
            let store: Keystore
            do {
                store = try Keystore(location: location, create: false)
                guard try store.hasPassword() else {
                    skipped += 1
                    continue
                }
                try store.setPassword(new, current: old, parameters: kdfParameters)
                rekeyed.append(location.databasePath)
            } catch  where error.status == .authFailed {
                skipped += 1
            }
        }
        if !rekeyed.isEmpty, FileSystem.exists(markerPath) {
            FileSystem.remove(markerPath)
            KeptLoginPassword.withdraw(keyring: keptKeyring)
        }
        let others =
            skipped == 0 ? "" : "; \(skipped) other keychain(s) do not open with the old password and keep theirs"
        return .done("re-keyed \(rekeyed.count) keychain(s) to the new login password\(others)")
    }

    private func recordChange(_ new: SecureBytes) throws(KeychainFailure) -> Outcome {
        // No login keychain yet (the password set before the first login, as `chpasswd` does for a new
        // account), or one without a password: nothing is out of step, so nothing is recorded or kept.
        let location = KeychainLocation.login(environment: environment)
        guard FileSystem.exists(location.databasePath),
            try Keystore(location: location, create: false).hasPassword()
        else {
            return .done(
                "the login password changed without the old one; there is no login keychain with a password to "
                    + "bring in line, so nothing was recorded")
        }
        try writeMarker("the login password was changed without the old one")
        let kept = KeptLoginPassword.keep(new, timeout: keptTimeout, keyring: keptKeyring)
        return .done(
            "recorded that the login password changed without the old one; the next unlock of the login keychain "
                + "with its old password offers to bring it in line"
                + (kept ? "" : " (the kernel keyring refused to keep the new login password meanwhile)"))
    }

    private func lockIfLastSession() -> Outcome {
        let others = otherSessions()
        if let others, !others.isEmpty {
            return .done("\(others.count) other session(s) remain (\(others.joined(separator: ", "))); nothing locked")
        }
        ClassKeyStore.lockAll()
        return .done(
            others == nil
                ? "locked every keychain (logind keeps no session list here, so this session counts as the last)"
                : "locked every keychain: this was the last session")
    }

    // MARK: - Private

    /// Every keychain of the user: the files in the keychain folder and the search list, once each.
    private func keychains() -> [KeychainLocation] {
        let directory = KeychainLocation.keychainDirectory(environment: environment)
        var paths: [String] = []
        if let names = FileSystem.entries(directory) {
            paths = names.filter { $0.hasSuffix(".keychain-db") }.sorted().map { directory + "/" + $0 }
        }
        for location in KeychainPreferences.load(environment: environment).searchLocations(environment: environment)
        where !paths.contains(location.databasePath) && FileSystem.exists(location.databasePath) {
            paths.append(location.databasePath)
        }
        let deviceKey = KeychainLocation.defaultDeviceKeyPath(environment: environment)
        return paths.map { KeychainLocation(databasePath: $0, deviceKeyPath: deviceKey) }
    }

    /// The user's other sessions from logind's `/run/systemd/users/<uid>` (`SESSIONS=` line) without
    /// `XDG_SESSION_ID`; `nil` when logind keeps no such file.
    private func otherSessions() -> [String]? {
        let directory = environment["KEYCHAIN_LOGIND_USERS"] ?? "/run/systemd/users"
        guard let bytes = FileSystem.contents("\(directory)/\(getuid())"),
            let text = String(validating: bytes, as: UTF8.self)
        else { return nil }
        let line = text.split(separator: "\n").first { $0.hasPrefix("SESSIONS=") } ?? ""
        let sessions = line.dropFirst("SESSIONS=".count).split(separator: " ").map(String.init)
        return sessions.filter { $0 != environment["XDG_SESSION_ID"] }
    }

    private func writeMarker(_ reason: String) throws(KeychainFailure) {
        try FileSystem.makePrivateDirectory(holding: markerPath)
        try FileSystem.replace(markerPath, with: Array((reason + "\n").utf8))
    }
}
