internal import Synchronization

/// The engine's side of an `LAContext`: what a context has proven, and how it may be used.
///
/// On Apple platforms a context that has evaluated a policy carries that authentication into
/// keychain calls made with it (`kSecUseAuthenticationContext`), so they do not ask again until the
/// context is invalidated. The same holds here for the keychain password.
package final class AuthenticationContext: Sendable {
    private struct State {
        var passcodeVerified = false
        var applicationPassword: SecureBytes?
        var interactionNotAllowed = false
        var reuseDuration: Double = 0
        var invalidated = false
    }

    private let state = Mutex(State())

    package init() {}

    /// Apple's `LATouchIDAuthenticationMaximumAllowableReuseDuration`: 300 seconds.
    package static let maximumReuseDuration: Double = 300

    /// `LAContext.interactionNotAllowed`: calls with this context fail instead of prompting.
    package var interactionNotAllowed: Bool {
        get { state.withLock { $0.interactionNotAllowed } }
        set { state.withLock { $0.interactionNotAllowed = newValue } }
    }

    /// `touchIDAuthenticationAllowableReuseDuration`, clamped to 0…300 s: a keychain password
    /// entered (in any context of this process) that recently counts for this context too.
    package var reuseDuration: Double {
        get { state.withLock { $0.reuseDuration } }
        set { state.withLock { $0.reuseDuration = min(max(newValue, 0), Self.maximumReuseDuration) } }
    }

    /// The application password set with `setCredential(_:type: .applicationPassword)`.
    package var applicationPassword: SecureBytes? {
        get { state.withLock { $0.invalidated ? nil : $0.applicationPassword } }
        set { state.withLock { $0.applicationPassword = newValue } }
    }

    /// `invalidate()`: the context proves nothing any more and cannot be evaluated again.
    package func invalidate() {
        state.withLock {
            $0.invalidated = true
            $0.passcodeVerified = false
            $0.applicationPassword = nil
        }
    }

    package var isInvalidated: Bool { state.withLock { $0.invalidated } }

    /// Whether the keychain password counts as entered for this context: it was verified through it,
    /// or (with a reuse duration) anywhere in this process within that many seconds.
    package var hasVerifiedDevicePasscode: Bool {
        let (verified, reuse, invalidated) = state.withLock { ($0.passcodeVerified, $0.reuseDuration, $0.invalidated) }
        if invalidated { return false }
        if verified { return true }
        guard reuse > 0, let last = DeviceOwnerAuthentication.lastSuccess else { return false }
        return Double(Monotonic.seconds() &- last) <= reuse
    }

    /// Records that the keychain password was verified through this context.
    package func recordDevicePasscode() {
        state.withLock { if !$0.invalidated { $0.passcodeVerified = true } }
    }
}

/// What `kSecUseAuthenticationContext` accepts: an `LAContext`, which carries an engine context.
package protocol AuthenticationContextProviding: AnyObject, Sendable {
    var authenticationContext: AuthenticationContext { get }
}
