public import Foundation
internal import KeychainCore
internal import Synchronization

/// A mechanism for evaluating authentication policies and access controls.
///
/// Follows Apple's `LAContext` (https://developer.apple.com/documentation/localauthentication/lacontext).
/// On Linux `.deviceOwnerAuthentication` asks the user for the **keychain password** (the stand-in
/// for the device passcode) through the prompter (pinentry); biometric and watch policies behave as
/// on an Apple device with no enrolled biometry and no paired watch.
///
/// Pass a context as `kSecUseAuthenticationContext`: once it has evaluated
/// `.deviceOwnerAuthentication`, keychain items protected by `.userPresence` or `.devicePasscode`
/// are read with it without asking again, until ``invalidate()``. An application password set with
/// ``setCredential(_:type:)`` opens items protected by `.applicationPassword`.
///
/// ```swift
/// let context = LAContext()
/// let ok = try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Read your token")
/// ```
public final class LAContext: Sendable {
    private struct Settings {
        var localizedReason = ""
        var localizedFallbackTitle: String?
        var localizedCancelTitle: String?
    }

    private let settings = Mutex(Settings())
    let engine = AuthenticationContext()

    /// Creates a context.
    public init() {}

    /// The reason shown when a keychain item asks for authentication with this context.
    public var localizedReason: String {
        get { settings.withLock { $0.localizedReason } }
        set { settings.withLock { $0.localizedReason = newValue } }
    }

    /// The fallback button's title. Kept; pinentry shows no fallback button.
    public var localizedFallbackTitle: String? {
        get { settings.withLock { $0.localizedFallbackTitle } }
        set { settings.withLock { $0.localizedFallbackTitle = newValue } }
    }

    /// The cancel button's title. Kept; pinentry labels its own buttons.
    public var localizedCancelTitle: String? {
        get { settings.withLock { $0.localizedCancelTitle } }
        set { settings.withLock { $0.localizedCancelTitle = newValue } }
    }

    /// How long (0…300 s) a keychain password entered earlier in this process counts for this
    /// context, as a recent device unlock does on Apple platforms. Default 0.
    public var touchIDAuthenticationAllowableReuseDuration: TimeInterval {
        get { engine.reuseDuration }
        set { engine.reuseDuration = newValue }
    }

    /// When `true`, evaluations and keychain calls with this context fail (`LAError.notInteractive`,
    /// `errSecInteractionNotAllowed`) instead of asking.
    public var interactionNotAllowed: Bool {
        get { engine.interactionNotAllowed }
        set { engine.interactionNotAllowed = newValue }
    }

    /// The biometry available: always `.none` on Linux.
    public var biometryType: LABiometryType { .none }

    /// The enrolled biometry's state: always `nil` on Linux (no biometry is enrolled).
    public var evaluatedPolicyDomainState: Data? { nil }

    /// Whether `policy` can be evaluated.
    ///
    /// - Parameters:
    ///   - policy: the policy.
    ///   - error: receives an `NSError` in ``LAErrorDomain`` when it cannot.
    /// - Returns: `true` for `.deviceOwnerAuthentication` when the keychain has a password; otherwise
    ///   `false` with `error` set: `.passcodeNotSet` (no keychain password), `.invalidContext` (after
    ///   ``invalidate()``), `.biometryNotEnrolled` (biometric policies), `.watchNotAvailable` (watch policies).
    public func canEvaluatePolicy(_ policy: LAPolicy, error: UnsafeMutablePointer<NSError?>?) -> Bool {
        if let code = unavailability(policy) {
            error?.pointee = LAError(code) as NSError
            return false
        }
        return true
    }

    /// Evaluates `policy`, asking the user, and calls `reply` on another thread.
    ///
    /// - Parameters:
    ///   - policy: the policy; only `.deviceOwnerAuthentication` can succeed on Linux.
    ///   - localizedReason: why, shown in the prompt.
    ///   - reply: `(true, nil)` on success, or `(false, LAError)`: the codes of
    ///     ``canEvaluatePolicy(_:error:)``, `.notInteractive` (interaction not allowed, or no prompt can
    ///     be shown), `.userCancel`, `.authenticationFailed` (three wrong passwords).
    public func evaluatePolicy(
        _ policy: LAPolicy, localizedReason: String, reply: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        // The keychain and prompter are the caller's (task-bound in tests): resolve them here.
        let prepared = prepare(policy)
        DispatchQueue.global().async { [self] in
            do {
                try evaluate(prepared, reason: localizedReason)
                reply(true, nil)
            } catch {
                reply(false, error)
            }
        }
    }

    /// Evaluates `policy`, asking the user.
    /// - Returns: `true` on success.
    /// - Throws: an ``LAError`` as ``evaluatePolicy(_:localizedReason:reply:)`` reports it.
    public func evaluatePolicy(_ policy: LAPolicy, localizedReason: String) async throws -> Bool {
        let prepared = prepare(policy)
        try evaluate(prepared, reason: localizedReason)
        return true
    }

    /// Sets or clears a credential.
    /// - Parameters:
    ///   - credential: the application password's bytes, or `nil` to clear it.
    ///   - type: `.applicationPassword`; other types are refused.
    /// - Returns: `true` when set or cleared; `false` for another type or an invalidated context.
    @discardableResult
    public func setCredential(_ credential: Data?, type: LACredentialType) -> Bool {
        guard type == .applicationPassword, !engine.isInvalidated else { return false }
        engine.applicationPassword = credential.map { SecureBytes(copying: $0) }
        return true
    }

    /// Whether a credential of `type` is set.
    public func isCredentialSet(_ type: LACredentialType) -> Bool {
        type == .applicationPassword && engine.applicationPassword != nil
    }

    /// Invalidates the context: it forgets what it proved and its credential, and cannot be evaluated again.
    public func invalidate() {
        engine.invalidate()
    }

    // MARK: - Private

    private enum Prepared {
        case ready(Keystore, any Prompter)
        case failed(LAError)
    }

    private func unavailability(_ policy: LAPolicy) -> LAError.Code? {
        if engine.isInvalidated { return .invalidContext }
        switch policy {
        case .deviceOwnerAuthenticationWithBiometrics, .deviceOwnerAuthenticationWithBiometricsOrWatch:
            return .biometryNotEnrolled
        case .deviceOwnerAuthenticationWithWatch, .deviceOwnerAuthenticationWithWristDetection:
            return .watchNotAvailable
        case .deviceOwnerAuthentication:
            guard let keystore = try? KeychainContext.current().keystore, (try? keystore.hasPassword()) == true else {
                return .passcodeNotSet
            }
            return nil
        }
    }

    private func prepare(_ policy: LAPolicy) -> Prepared {
        if let code = unavailability(policy) { return .failed(LAError(code)) }
        if engine.interactionNotAllowed { return .failed(LAError(.notInteractive)) }
        do {
            return .ready(try KeychainContext.current().keystore, try Prompters.current())
        } catch {
            return .failed(LAError(error.status == .interactionNotAllowed ? .notInteractive : .passcodeNotSet))
        }
    }

    private func evaluate(_ prepared: Prepared, reason: String) throws(LAError) {
        switch prepared {
        case .failed(let error):
            throw error
        case .ready(let keystore, let prompter):
            do {
                try DeviceOwnerAuthentication.authenticate(
                    keystore: keystore, prompt: PasswordPrompt(description: reason), prompter: prompter)
            } catch {
                switch error.status {
                case .userCanceled: throw LAError(.userCancel)
                case .interactionNotAllowed: throw LAError(.notInteractive)
                default: throw LAError(.authenticationFailed)
                }
            }
            if engine.isInvalidated { throw LAError(.invalidContext) }
            engine.recordDevicePasscode()
        }
    }
}

/// As Apple's `LAContext` (an `NSObject`), contexts are equal only to themselves.
extension LAContext: Hashable {
    public static func == (lhs: LAContext, rhs: LAContext) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension LAContext: AuthenticationContextProviding {
    var authenticationContext: AuthenticationContext { engine }
}
