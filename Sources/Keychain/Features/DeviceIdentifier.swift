public import Foundation
package import KeychainCore

/// A UUID created once per installation and returned unchanged to every process of the app (seed 002).
///
/// The seed generated a `CFUUID` when its `load` found nothing and saved it with delete-then-add, so
/// two processes starting together could each create and keep a different identifier. Here the
/// identifier is created with an *add*: when another process added one first, the add fails with
/// a duplicate and the winner's identifier is read and returned. Every process therefore gets the
/// same UUID, and a stored one is never replaced.
///
/// It is stored as a generic password with ``Accessibility/afterFirstUnlockThisDeviceOnly``: readable
/// in the background after the first unlock, bound to this installation's device key, never in a
/// backup. Like any keychain item it survives deleting and reinstalling the app.
///
/// ```swift
/// let id = try DeviceIdentifier().value()   // the same UUID on every launch
/// // Shared between the apps of one team:
/// let shared = try DeviceIdentifier(accessGroup: "ABCDE12345.com.example.shared").value()
/// ```
public struct DeviceIdentifier: Sendable {
    // MARK: - Public

    /// The service used when none is given.
    public static let defaultService = "DeviceIdentifier"
    /// The key (account) the identifier is stored under.
    public static let key = "uuid"

    let keychain: Keychain

    /// The identifier stored under `service`, optionally in a shared access group.
    /// - Parameters:
    ///   - service: the service; ``defaultService`` by default.
    ///   - accessGroup: an access group shared by several apps, or `nil` for the process's default group.
    public init(service: String = DeviceIdentifier.defaultService, accessGroup: String? = nil) {
        keychain = Keychain(service: service).accessGroup(accessGroup).accessibility(.afterFirstUnlockThisDeviceOnly)
    }

    /// The identifier, created and stored on first use.
    ///
    /// Race-free across threads and processes: the first add wins, and every caller returns the winner's.
    /// - Returns: the installation's UUID.
    /// - Throws: ``KeychainError/Code/decode`` when the stored item is not a UUID;
    ///   ``KeychainError/Code/interactionNotAllowed`` before the first unlock;
    ///   ``KeychainError/Code/missingEntitlement`` for an access group not held; any other status.
    public func value() throws(KeychainError) -> UUID {
        if let stored = try stored() { return stored }
        let candidate = UUID()
        do {
            try keychain.add(SecureBytes(copying: Array(candidate.uuidString.utf8)), forKey: Self.key)
            return candidate
        } catch KeychainError.duplicateItem {
            // Another thread or process added its identifier first: use the winner's.
            guard let winner = try stored() else {
                throw KeychainError(
                    .itemNotFound, operation: .get, detail: "the identifier vanished after a duplicate add")
            }
            return winner
        }
    }

    /// Async variant of ``value()-4rf4u``.
    /// - Returns: the installation's UUID.
    /// - Throws: everything ``value()-4rf4u`` throws.
    public func value() async throws(KeychainError) -> UUID {
        let bound = DeviceIdentifier(keychain: try keychain.bound(.get))
        return try await Offload.run { () throws(KeychainError) in try bound.value() }
    }

    /// Deletes the identifier, so that the next ``value()-4rf4u`` creates a new one. Succeeds when none is stored.
    /// - Throws: everything ``Keychain/remove(forKey:)-9589x`` throws.
    public func reset() throws(KeychainError) { try keychain.remove(forKey: Self.key) }

    // MARK: - Package

    /// A copy bound to an explicit keychain and identity (tests).
    package func context(_ context: KeychainContext) -> DeviceIdentifier {
        DeviceIdentifier(keychain: keychain.context(context))
    }

    // MARK: - Private

    private init(keychain: Keychain) { self.keychain = keychain }

    private func stored() throws(KeychainError) -> UUID? {
        guard let text = try keychain.string(forKey: Self.key) else { return nil }
        guard let uuid = UUID(uuidString: text) else {
            throw KeychainError(.decode, operation: .get, detail: "the stored device identifier is not a UUID")
        }
        return uuid
    }
}
