package import KeychainCore

/// A keychain scoped to one generic-password service, or to one internet-password server,
/// protocol and authentication type: a small, `Sendable` value that stores secrets by key.
///
/// The key of every value is the item's account (`kSecAttrAccount`). Configure a keychain with
/// modifiers, which return a new value and never change the original:
///
/// ```swift
/// let keychain = Keychain(service: "com.example.app")
///     .accessibility(.afterFirstUnlock)
///     .label("Example")
///
/// try keychain.set("s3cr3t", forKey: "api-token")
/// let token = try keychain.string(forKey: "api-token")   // "s3cr3t"
/// try keychain.remove(forKey: "api-token")
/// ```
///
/// Behaviour common to every operation:
/// - A missing key reads as `nil`; removing a missing key succeeds. Every other failure throws a
///   ``KeychainError``. A locked item throws ``KeychainError/interactionNotAllowed``, never `nil`.
/// - Storing is an atomic upsert: one write transaction that updates the item in place or adds it.
///   Another thread or process never sees the key missing in between.
/// - Without ``accessGroup(_:)`` a new item goes to the process's default access group (the first of
///   its entitlements), and reads, updates and removals cover every group the process holds, as
///   with Apple's SecItem calls. With a group, every operation is confined to it, and a group the
///   process does not hold throws ``KeychainError/missingEntitlement``.
/// - Reads and writes see only items whose synchronizable state equals ``isSynchronizable``
///   (Apple's implicit `kSecAttrSynchronizable = false`); ``removeAll()-34qmc`` covers both states.
///
/// The type is a value without shared mutable state, so one instance may be used from any number of
/// threads and tasks at once. Cross-process safety comes from the engine's SQLite transactions.
public struct Keychain: Sendable {
    // MARK: - Public

    /// Which items a keychain covers.
    public enum Scope: Sendable, Hashable {
        /// Generic passwords (`kSecClassGenericPassword`) of one service.
        case genericPassword(service: String)
        /// Internet passwords (`kSecClassInternetPassword`) of one server, protocol and authentication type.
        case internetPassword(server: String, protocol: InternetProtocol, authenticationType: AuthenticationType)
    }

    /// The items this keychain covers.
    public let scope: Scope
    /// The access group named with ``accessGroup(_:)``, or `nil` for the process's default.
    public private(set) var accessGroupName: String?
    /// The accessibility new and updated items get. ``Accessibility/whenUnlocked`` by default.
    public private(set) var itemAccessibility: Accessibility = .whenUnlocked
    /// Whether this keychain reads and writes synchronizable items. `false` by default.
    public private(set) var isSynchronizable = false
    /// The label (`kSecAttrLabel`) new and updated items get, if any.
    public private(set) var itemLabel: String?
    /// The comment (`kSecAttrComment`) new and updated items get, if any.
    public private(set) var itemComment: String?

    /// The keychain file set with ``keychainFile(_:)``, or `nil` for the process's default keychain
    /// (see ``KeychainFile/processDefault()``).
    public private(set) var file: KeychainFile?

    /// The keychain and identity to use; `nil` for the process's current context.
    let context: KeychainContext?

    /// A keychain of generic passwords for `service`.
    ///
    /// - Parameter service: the service (`kSecAttrService`), for example a reverse-DNS name.
    public init(service: String) {
        self.scope = .genericPassword(service: service)
        self.context = nil
    }

    /// A keychain of internet passwords for one server.
    ///
    /// Items of this keychain may differ in port, path and security domain; new items take the
    /// defaults (0 and empty), as with SecItemAdd.
    /// - Parameters:
    ///   - server: the host name (`kSecAttrServer`).
    ///   - protocol: the protocol (`kSecAttrProtocol`); HTTPS by default.
    ///   - authenticationType: the authentication type (`kSecAttrAuthenticationType`); default by default.
    public init(
        server: String, protocol: InternetProtocol = .https, authenticationType: AuthenticationType = .default
    ) {
        self.scope = .internetPassword(server: server, protocol: `protocol`, authenticationType: authenticationType)
        self.context = nil
    }

    /// A copy confined to `group`, or using the process's default group when `group` is `nil`.
    ///
    /// - Parameter group: an access group from the process's entitlements (`keychain-access-groups`,
    ///   the application identifier, or an application group).
    /// - Returns: the new keychain. Naming a group the process does not hold is not checked here;
    ///   every operation then throws ``KeychainError/missingEntitlement``.
    public func accessGroup(_ group: String?) -> Keychain {
        var copy = self
        copy.accessGroupName = group
        return copy
    }

    /// A copy whose new and updated items get `accessibility`.
    /// - Parameter accessibility: when the secret can be read.
    /// - Returns: the new keychain.
    public func accessibility(_ accessibility: Accessibility) -> Keychain {
        var copy = self
        copy.itemAccessibility = accessibility
        return copy
    }

    /// A copy that reads and writes synchronizable (or, with `false`, non-synchronizable) items.
    ///
    /// Synchronizable items cannot have a `ThisDeviceOnly` accessibility; writing one throws
    /// ``KeychainError/param``. Linux has no iCloud: the flag is stored and filtered on, as on Apple
    /// platforms, but nothing is synchronized.
    /// - Parameter synchronizable: the synchronizable state; `true` by default.
    /// - Returns: the new keychain.
    public func synchronizable(_ synchronizable: Bool = true) -> Keychain {
        var copy = self
        copy.isSynchronizable = synchronizable
        return copy
    }

    /// A copy whose new and updated items get `label` (`kSecAttrLabel`).
    /// - Parameter label: a user-visible label, or `nil` to leave labels alone.
    /// - Returns: the new keychain.
    public func label(_ label: String?) -> Keychain {
        var copy = self
        copy.itemLabel = label
        return copy
    }

    /// A copy whose new and updated items get `comment` (`kSecAttrComment`).
    /// - Parameter comment: a comment, or `nil` to leave comments alone.
    /// - Returns: the new keychain.
    public func comment(_ comment: String?) -> Keychain {
        var copy = self
        copy.itemComment = comment
        return copy
    }

    /// A copy that stores its items in `file` instead of the process's default keychain, or, with
    /// `nil`, in the default keychain again.
    ///
    /// The process's entitlements still decide the access groups. This is how a tool works with a
    /// keychain other than the login keychain (macOS's `kSecUseKeychain`):
    /// ```swift
    /// let file = try KeychainFile(path: "work")
    /// let tokens = Keychain(service: "com.example.tool").keychainFile(file)
    /// ```
    /// - Parameter file: an open keychain file, or `nil`.
    /// - Returns: the new keychain.
    public func keychainFile(_ file: KeychainFile?) -> Keychain {
        var copy = self
        copy.file = file
        return copy
    }

    // MARK: - Package

    /// A copy bound to an explicit keychain and identity instead of the process's current context.
    /// - Parameter context: the keystore and identity to use.
    /// - Returns: the new keychain.
    package func context(_ context: KeychainContext) -> Keychain {
        Keychain(copying: self, context: context)
    }

    // MARK: - Private

    private init(copying other: Keychain, context: KeychainContext?) {
        self.scope = other.scope
        self.accessGroupName = other.accessGroupName
        self.itemAccessibility = other.itemAccessibility
        self.isSynchronizable = other.isSynchronizable
        self.itemLabel = other.itemLabel
        self.itemComment = other.itemComment
        self.file = other.file
        self.context = context
    }
}
