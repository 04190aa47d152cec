package import KeychainCore

/// A login name and password stored together as one item under one service (seeds 000 and 001).
///
/// The seeds' `UserDataManager` archived a dictionary `{userName, password}` into one generic
/// password whose service and account were both the service string, with
/// `kSecAttrAccessibleAfterFirstUnlock`, and saved it with delete-then-add. This type keeps the
/// layout (one item, account = service, after-first-unlock) but stores JSON, saves with an atomic
/// upsert, and reports failures instead of returning `nil` for them.
///
/// ```swift
/// let credentials = Credentials(service: "com.companyName.app.allinfo")
/// try credentials.save(userName: "alice", password: "hunter2")
/// let name = try credentials.userName()      // "alice"
/// let password = try credentials.password()  // "hunter2"
/// try credentials.delete()
/// ```
public struct Credentials: Sendable {
    // MARK: - Public

    /// A stored login. Its `description` does not show the password.
    public struct Login: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The login name.
        public var userName: String
        /// The password.
        public var password: String

        /// Creates a login.
        /// - Parameters:
        ///   - userName: the login name.
        ///   - password: the password.
        public init(userName: String, password: String) {
            self.userName = userName
            self.password = password
        }

        /// `"Login(userName: <redacted>, password: <redacted>)"`: neither part is printed.
        public var description: String { "Login(userName: <redacted>, password: <redacted>)" }
    }

    /// The service (and account) the login is stored under.
    public let service: String
    let keychain: Keychain

    /// Credentials stored under `service`.
    /// - Parameters:
    ///   - service: the service, also used as the item's key, as in the seeds.
    ///   - accessGroup: an access group to share the login in, or `nil` for the process's default.
    ///   - accessibility: when the login can be read; ``Accessibility/afterFirstUnlock`` as in the seeds.
    public init(service: String, accessGroup: String? = nil, accessibility: Accessibility = .afterFirstUnlock) {
        self.service = service
        self.keychain = Keychain(service: service).accessGroup(accessGroup).accessibility(accessibility)
    }

    /// Stores the login name and password together, replacing any stored login atomically.
    /// - Parameters:
    ///   - userName: the login name.
    ///   - password: the password.
    /// - Throws: everything ``Keychain/set(_:forKey:)-25sr5`` throws.
    public func save(userName: String, password: String) throws(KeychainError) {
        try keychain.set(Login(userName: userName, password: password), forKey: service)
    }

    /// The stored login, or `nil` when none is stored.
    /// - Returns: the login.
    /// - Throws: ``KeychainError/Code/decode`` when the stored item is not a login, and everything
    ///   ``Keychain/data(forKey:)-7gokz`` throws (``KeychainError/Code/interactionNotAllowed`` when locked).
    public func load() throws(KeychainError) -> Login? {
        try keychain.value(Login.self, forKey: service)
    }

    /// The stored login name, or `nil` when no login is stored.
    /// - Returns: the login name.
    /// - Throws: everything ``load()`` throws.
    public func userName() throws(KeychainError) -> String? { try load()?.userName }

    /// The stored password, or `nil` when no login is stored.
    /// - Returns: the password.
    /// - Throws: everything ``load()`` throws.
    public func password() throws(KeychainError) -> String? { try load()?.password }

    /// Deletes the stored login; deleting when none is stored succeeds.
    /// - Throws: everything ``Keychain/remove(forKey:)-9589x`` throws.
    public func delete() throws(KeychainError) { try keychain.remove(forKey: service) }

    // MARK: - Package

    /// A copy bound to an explicit keychain and identity (tests).
    package func context(_ context: KeychainContext) -> Credentials {
        Credentials(service: service, keychain: keychain.context(context))
    }

    // MARK: - Private

    private init(service: String, keychain: Keychain) {
        self.service = service
        self.keychain = keychain
    }
}
