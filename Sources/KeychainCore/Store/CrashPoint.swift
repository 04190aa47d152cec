#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// Named points inside multi-step operations where the crash-safety suite kills the process.
///
/// Inert unless `KEYCHAIN_CRASH_POINT` names a point; then reaching it sends SIGKILL to this
/// process, as a power cut or `kill -9` would at that instant. Debug builds only (the crash suite
/// runs them): release builds, what `make install` installs, ignore the variable.
package enum CrashPoint {
    private static let armed: String? = getenv("KEYCHAIN_CRASH_POINT").map { String(cString: $0) }

    /// The points, in the order a password change reaches them.
    package static let passwordChange = ["password.derived", "password.rewrapped", "password.committed"]

    /// The points, in order, of the adoption of a keychain whose device key was lost
    /// (``Keystore/unlock(password:)``).
    package static let adoption = ["adopt.derived", "adopt.rewrapped"]

    /// The point of ``Keystore/create(location:password:parameters:)`` after the password is set in
    /// the staging file and before it is linked into place; the password change's points come first.
    package static let creationLinking = "create.linking"
    /// The point right after the session agent lets go of its sleep delay inhibitor
    /// (`keychain-secret-service session-agent`): killed there, it must already have locked.
    package static let sleepInhibitorReleased = "agent.sleep-inhibitor-released"

    /// The points, in order, of one `security sync now` (KeychainSync's `SyncEngine.syncNow()`): after the
    /// fetch, after the first segment's changes were applied but before the device's read position moved,
    /// after the merge, after the outbox was saved in the keychain, after the first file of the outbox was
    /// written (mid-push), after all of them, after git's commit (git remotes only), after the push.
    package static let syncRun = [
        "sync.fetched", "sync.merging", "sync.merged", "sync.committed", "sync.writing", "sync.written",
        "sync.git-committed", "sync.pushed",
    ]

    /// The point inside `CreateItem`'s write transaction, after the new Secret Service item and its owner
    /// are written and before the commit (issue 27: one transaction, so a kill leaves no ownerless item).
    package static let secretItemWritten = "secret-item.written"

    package static func reach(_ name: String) {
        #if DEBUG
            if let armed, armed == name { kill(getpid(), SIGKILL) }
        #endif
    }
}
