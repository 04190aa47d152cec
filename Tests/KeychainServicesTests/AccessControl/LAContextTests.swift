import Foundation
import KeychainCore
import LocalAuthentication
import Testing

/// LocalAuthentication on Linux (LAError.h and LAPublicDefines.h values;
/// https://developer.apple.com/documentation/localauthentication/lacontext).
@Suite("LAContext")
struct LAContextTests {
    @Test("LAError codes, LAPolicy and LACredentialType raw values are Apple's")
    func appleValues() {
        let codes: [(LAError.Code, Int)] = [
            (.authenticationFailed, -1), (.userCancel, -2), (.userFallback, -3), (.systemCancel, -4),
            (.passcodeNotSet, -5), (.biometryNotAvailable, -6), (.biometryNotEnrolled, -7), (.biometryLockout, -8),
            (.appCancel, -9), (.invalidContext, -10), (.watchNotAvailable, -11), (.notInteractive, -1004),
        ]
        for (code, value) in codes { #expect(code.rawValue == value) }
        #expect(LAError.touchIDNotEnrolled == .biometryNotEnrolled)
        #expect(LAErrorDomain == "com.apple.LocalAuthentication")
        #expect(LAPolicy.deviceOwnerAuthenticationWithBiometrics.rawValue == 1)
        #expect(LAPolicy.deviceOwnerAuthentication.rawValue == 2)
        #expect(LACredentialType.applicationPassword.rawValue == 0)
        let bridged = LAError(.userCancel) as NSError
        #expect(bridged.domain == LAErrorDomain && bridged.code == -2)
    }

    @Test("LAContext is Equatable and Hashable by identity, as NSObject is")
    func identity() {
        let a = LAContext()
        let b = LAContext()
        #expect(a == a && a != b)
        #expect(Set([a, a, b]).count == 2)
    }

    @Test("canEvaluatePolicy: the keychain password makes .deviceOwnerAuthentication available")
    func canEvaluateWithPassword() throws {
        let fixture = try PasswordKeychain()
        try fixture.run {
            var error: NSError?
            #expect(LAContext().canEvaluatePolicy(.deviceOwnerAuthentication, error: &error))
            #expect(error == nil)
        }
    }

    @Test("canEvaluatePolicy: no keychain password is LAError.passcodeNotSet (-5)")
    func canEvaluateWithoutPassword() throws {
        let fixture = try PasswordKeychain(withPassword: false)
        try fixture.run {
            var error: NSError?
            #expect(!LAContext().canEvaluatePolicy(.deviceOwnerAuthentication, error: &error))
            #expect(error?.code == LAError.Code.passcodeNotSet.rawValue)
        }
    }

    @Test("Biometric policies: as a device with no enrolled biometry, LAError.biometryNotEnrolled (-7)")
    func biometricPolicies() throws {
        let fixture = try PasswordKeychain()
        try fixture.run {
            let context = LAContext()
            var error: NSError?
            #expect(!context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
            #expect(error?.code == LAError.Code.biometryNotEnrolled.rawValue)
            #expect(context.biometryType == .none)
        }
    }

    @Test("evaluatePolicy(.deviceOwnerAuthentication) asks for the keychain password with the reason")
    func evaluateAsks() async throws {
        let fixture = try PasswordKeychain()
        try await fixture.run {
            let ok = try await LAContext().evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Open the vault")
            #expect(ok)
            #expect(fixture.pinentry.prompts == 1)
            #expect(fixture.pinentry.descriptions == ["Open the vault"])
        }
    }

    @Test("evaluatePolicy with the reply callback reports success")
    func evaluateReply() async throws {
        let fixture = try PasswordKeychain()
        try await fixture.run {
            let result: Bool = await withCheckedContinuation { continuation in
                LAContext().evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r") { ok, _ in
                    continuation.resume(returning: ok)
                }
            }
            #expect(result)
        }
    }

    @Test("A canceled prompt is LAError.userCancel, caught as on iOS")
    func cancel() async throws {
        let fixture = try PasswordKeychain(cancel: true)
        try await fixture.run {
            var caught = false
            do {
                _ = try await LAContext().evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r")
            } catch LAError.userCancel {
                caught = true
            }
            #expect(caught)
        }
    }

    @Test("Wrong passwords give LAError.authenticationFailed (-1)")
    func wrongPassword() async throws {
        let fixture = try PasswordKeychain(pin: "nope")
        try await fixture.run {
            await #expect(throws: LAError(.authenticationFailed)) {
                try await LAContext().evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r")
            }
        }
    }

    @Test("interactionNotAllowed gives LAError.notInteractive (-1004) without asking")
    func notInteractive() async throws {
        let fixture = try PasswordKeychain()
        try await fixture.run {
            let context = LAContext()
            context.interactionNotAllowed = true
            await #expect(throws: LAError(.notInteractive)) {
                try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r")
            }
            #expect(fixture.pinentry.prompts == 0)
        }
    }

    @Test("invalidate(): the context cannot be evaluated again (LAError.invalidContext) and forgets its credential")
    func invalidate() async throws {
        let fixture = try PasswordKeychain()
        try await fixture.run {
            let context = LAContext()
            #expect(context.setCredential(Data("x".utf8), type: .applicationPassword))
            #expect(context.isCredentialSet(.applicationPassword))
            context.invalidate()
            #expect(!context.isCredentialSet(.applicationPassword))
            await #expect(throws: LAError(.invalidContext)) {
                try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r")
            }
        }
    }

    @Test("A reuse duration lets a password entered earlier in this process count for a new context")
    func reuseDuration() async throws {
        let fixture = try PasswordKeychain()
        try await fixture.run {
            _ = try await LAContext().evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "first")
            let reusing = LAContext()
            reusing.touchIDAuthenticationAllowableReuseDuration = 1_000
            #expect(reusing.touchIDAuthenticationAllowableReuseDuration == 300, "clamped to Apple's maximum")
            #expect(reusing.authenticationContextHasPasscode)
            #expect(!LAContext().authenticationContextHasPasscode, "no reuse duration: must ask")
        }
    }
}

extension LAContext {
    /// Whether keychain calls with this context would skip the password prompt.
    var authenticationContextHasPasscode: Bool {
        (self as any AuthenticationContextProviding).authenticationContext.hasVerifiedDevicePasscode
    }
}
