package import KeychainCore

/// One application's portal master secret and the token that names it.
package struct PortalMasterSecret: Sendable {
    /// The secret: ``PortalSecretVault/secretBytes`` random bytes, made once per app.
    package let secret: SecureBytes
    /// An opaque name of this secret (32 hex digits), returned in the call's results as `token`; a later
    /// call that passes it gets this secret or an error, never a new one.
    package let token: String
}

/// Where the Secret portal keeps each application's master secret.
///
/// The keychain store keeps each as an item of the app's access group in the login keychain
/// (KeychainSecretStore+Portal.swift); ``MemoryPortalVault`` keeps them in memory (`--store memory`).
/// Used on the provider's main context only.
package protocol PortalSecretVault: AnyObject {
    /// The collection whose lock guards the secrets: when ``masterSecret(for:token:)`` throws
    /// ``SecretStoreError/isLocked``, the portal unlocks this collection through the store's prompt
    /// and asks again. `nil` when nothing can be unlocked.
    var portalCollection: CollectionID? { get }

    /// The app's master secret, made (random, ``secretBytes`` long) and stored on the first call.
    /// - Parameters:
    ///   - app: the application, as the portal frontend names it.
    ///   - token: the `token` option of the call, when it has one.
    /// - Returns: the secret and its token.
    /// - Throws: ``SecretStoreError/isLocked`` when the keychain holding it is locked (for an
    ///   AfterFirstUnlock item: not unlocked since the session began);
    ///   ``SecretStoreError/invalidArgument(_:)`` when `token` names no secret held for `app` (no new
    ///   secret is made then: the app's data was encrypted with another one);
    ///   ``SecretStoreError/failed(_:)`` when the keychain cannot be read or written.
    func masterSecret(for app: PortalAppID, token: String?) throws(SecretStoreError) -> PortalMasterSecret
}

extension PortalSecretVault {
    /// The size of a master secret: 64 bytes, what libsecret's file backend reads from the portal
    /// (`PASSWORD_SIZE` in `secret-file-backend.c`) and what gnome-keyring's backend makes.
    package static var secretBytes: Int { 64 }

    /// A new token: 16 random bytes as 32 lowercase hex digits.
    static func newToken() -> String {
        Sodium.randomBytes(16).map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
        }.joined()
    }
}

/// Master secrets in memory, for `--store memory`: they last as long as the process, as that store's
/// items do.
package final class MemoryPortalVault: PortalSecretVault {
    private var secrets: [PortalAppID: PortalMasterSecret] = [:]

    package init() {}

    package var portalCollection: CollectionID? { nil }

    package func masterSecret(for app: PortalAppID, token: String?) throws(SecretStoreError) -> PortalMasterSecret {
        if let existing = secrets[app] {
            if let token, token != existing.token { throw Self.unknownToken(app) }
            return existing
        }
        if token != nil { throw Self.unknownToken(app) }
        let made = PortalMasterSecret(secret: SecureBytes.random(count: Self.secretBytes), token: Self.newToken())
        secrets[app] = made
        return made
    }

    static func unknownToken(_ app: PortalAppID) -> SecretStoreError {
        .invalidArgument("the token names no master secret held for \(app)")
    }
}
