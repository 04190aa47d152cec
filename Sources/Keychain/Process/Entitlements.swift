public import Foundation
internal import KeychainCore

/// The keychain entitlements of a process: which access groups it holds, in Apple's order.
///
/// On Apple platforms these come from the code signature. Here they come from an entitlements
/// property list at `$KEYCHAIN_ENTITLEMENTS`, or from this API through
/// ``Keychain/setProcessEntitlements(_:)`` before the first keychain call. The keys are Apple's:
/// `keychain-access-groups`, `application-identifier` and `com.apple.security.application-groups`.
///
/// The access groups are, in order: the keychain access groups, then the application identifier,
/// then the application groups, each once. A new item without a named group goes to the first; a
/// read without a named group covers them all. Xcode's `$(AppIdentifierPrefix)` and
/// `$(TeamIdentifierPrefix)` are expanded with the team prefix of the application identifier.
///
/// ```swift
/// let entitlements = Entitlements(
///     applicationIdentifier: "ABCDE12345.com.example.app",
///     keychainAccessGroups: ["ABCDE12345.com.example.shared"])
/// Keychain.setProcessEntitlements(entitlements)
/// // entitlements.accessGroups == ["ABCDE12345.com.example.shared", "ABCDE12345.com.example.app"]
/// ```
///
/// - Important: Access groups separate cooperating apps of one user; they are not a security
///   boundary between processes of the same Unix user, which can all open the keychain file.
public struct Entitlements: Sendable, Hashable {
    // MARK: - Public

    /// The access groups, in Apple's order; the first is where new items go. Empty means every
    /// keychain call fails with ``KeychainError/Code/missingEntitlement``, as on Apple platforms.
    public var accessGroups: [String] { identity.accessGroups }

    /// The entitlements of a process without any: the one access group (`"unsigned"`) that every
    /// unsigned tool shares, so a token stored by one command-line tool is visible to the next.
    public static let unsigned = Entitlements(identity: .unsigned)

    /// Entitlements with Apple's three keys.
    ///
    /// - Parameters:
    ///   - applicationIdentifier: `application-identifier`, `TEAMID.bundle.id`, or `nil`.
    ///   - keychainAccessGroups: `keychain-access-groups`, in order.
    ///   - applicationGroups: `com.apple.security.application-groups`, in order.
    public init(
        applicationIdentifier: String? = nil, keychainAccessGroups: [String] = [], applicationGroups: [String] = []
    ) {
        // The order and expansion rules live in one place, ApplicationIdentity.
        identity = ApplicationIdentity(
            applicationIdentifier: applicationIdentifier, keychainAccessGroups: keychainAccessGroups,
            applicationGroups: applicationGroups)
    }

    /// Entitlements read from a property list (XML or binary), as in an `.entitlements` file.
    ///
    /// - Parameter propertyList: the property list's bytes.
    /// - Throws: ``KeychainError`` with operation ``KeychainError/Operation/open`` and code
    ///   ``KeychainError/Code/missingEntitlement`` when the data is not a property list or one of the
    ///   three keys has the wrong type. A valid list without any of the keys gives no access groups.
    public init(propertyList: Data) throws(KeychainError) {
        do {
            self.identity = try ApplicationIdentity(entitlementsPlist: propertyList)
        } catch {
            throw KeychainError(error, .open)
        }
    }

    /// Entitlements read from an `.entitlements` file.
    ///
    /// - Parameter path: the file's path.
    /// - Throws: ``KeychainError`` with operation ``KeychainError/Operation/open`` and code
    ///   ``KeychainError/Code/missingEntitlement`` when the file cannot be read or parsed.
    public init(contentsOfFile path: String) throws(KeychainError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw KeychainError(.missingEntitlement, operation: .open, detail: "cannot read the entitlements file")
        }
        try self.init(propertyList: data)
    }

    /// The entitlements keychain calls use now: the ones set with
    /// ``Keychain/setProcessEntitlements(_:)``, or those at `$KEYCHAIN_ENTITLEMENTS`, or ``unsigned``.
    ///
    /// - Returns: the process's entitlements.
    /// - Throws: ``KeychainError`` with operation ``KeychainError/Operation/open`` and code
    ///   ``KeychainError/Code/missingEntitlement`` when `$KEYCHAIN_ENTITLEMENTS` names a file that
    ///   cannot be read or parsed.
    public static func current() throws(KeychainError) -> Entitlements {
        do {
            return Entitlements(identity: try KeychainContext.currentIdentity())
        } catch {
            throw KeychainError(error, .open)
        }
    }

    /// Equal when the access groups are equal, in order.
    /// - Parameters:
    ///   - lhs: entitlements.
    ///   - rhs: other entitlements.
    /// - Returns: whether the access-group lists are equal.
    public static func == (lhs: Entitlements, rhs: Entitlements) -> Bool { lhs.accessGroups == rhs.accessGroups }

    /// Hashes the access groups, consistent with ``==(_:_:)``.
    /// - Parameter hasher: the hasher.
    public func hash(into hasher: inout Hasher) { hasher.combine(accessGroups) }

    // MARK: - Internal

    let identity: ApplicationIdentity

    init(identity: ApplicationIdentity) { self.identity = identity }
}
