package import KeychainCore
internal import Synchronization

/// UYLPasswordManager in Swift (seed 004): keys stored by identifier, with an optional access group,
/// a configurable accessibility, and a small cache of recently read keys.
///
/// ```swift
/// let manager = PasswordManager.shared
/// manager.accessMode = .afterFirstUnlock
/// try manager.register(key: password, for: username)
/// let stored = try manager.key(for: username)              // the key, or nil
/// let ok = try manager.isValid(key: attempt, for: username) // constant-time comparison
/// let exists = try manager.isValid(key: nil, for: username)
/// try manager.deleteKey(for: username)
/// manager.purge()                                           // wipe the cache
/// ```
///
/// Differences from UYLPasswordManager, each deliberate:
/// - Failures throw ``KeychainError`` instead of looking like a missing key: a locked keychain throws
///   ``KeychainError/interactionNotAllowed``.
/// - Every call takes its own group. A call without a group uses the process's default group for a
///   new item and all of its groups for lookups; it never reuses the group of an earlier call.
/// - ``register(key:for:in:)`` is one atomic upsert; ``accessMode`` and ``migrate`` apply to the item
///   on add *and* update.
/// - The cache never serves a key that any connection or process changed or deleted since it was
///   read: it is dropped whenever the keychain's change token moves (SQLite `data_version` plus this
///   connection's change count).
/// - The cache never serves a key after the keychain locked. Before serving a cached key it asks
///   whether the item's class key is still available, and has stayed available, since the key was
///   read (one read transaction and one kernel keyring lookup, no decryption). When the keychain was
///   locked since — by ``KeychainFile/lock()`` in any process, by its auto-lock timeout, or by the end
///   of the session — every cached key is wiped, and the lookup reads the keychain again, which throws
///   ``KeychainError/interactionNotAllowed`` while it stays locked. The wipe happens at that next
///   lookup (there is no lock notification to react to sooner); call ``purge()`` when the secrets
///   should leave memory at once.
/// - Cached keys sit in wiped memory (`sodium_malloc`); ``purge()`` releases them.
/// - ``migrate`` defaults to `true` (the seed's text contradicts itself; UYLPasswordManager's code sets
///   it to `YES`), so the default accessibility is ``Accessibility/whenUnlocked``.
///
/// The type is safe to use from many threads: its settings and cache sit behind one `Mutex`.
public final class PasswordManager: Sendable {
    // MARK: - Public

    /// When stored keys can be read (UYLPasswordManager's `UYLPMAccessMode`).
    public enum AccessMode: Sendable, Hashable, CaseIterable {
        /// Only while the keychain is unlocked (`UYLPMAccessibleWhenUnlocked`). The default.
        case whenUnlocked
        /// After the first unlock, also while locked (`UYLPMAccessibleAfterFirstUnlock`).
        case afterFirstUnlock
        /// Always (`UYLPMAccessibleAlways`).
        case always
    }

    /// The service used by ``shared`` and by ``init(service:)`` without arguments.
    public static let defaultService = "PasswordManager"

    /// The shared instance, created on first use (UYLPasswordManager's `sharedInstance`).
    public static var shared: PasswordManager {
        sharedInstance.withLock { instance in
            if let instance { return instance }
            let created = PasswordManager()
            instance = created
            return created
        }
    }

    /// Releases the shared instance and its cache (UYLPasswordManager's `dropShared`); the next
    /// ``shared`` creates a new one with default settings.
    public static func dropShared() {
        let dropped = sharedInstance.withLock { instance in
            defer { instance = nil }
            return instance
        }
        dropped?.purge()
    }

    /// The service every key of this manager is stored under.
    public let service: String

    /// A manager storing its keys under `service`.
    /// - Parameter service: the generic-password service; ``defaultService`` by default.
    public init(service: String = PasswordManager.defaultService) {
        self.service = service
        self.boundContext = nil
    }

    /// The accessibility applied to items on add and update. ``AccessMode/whenUnlocked`` by default.
    public var accessMode: AccessMode {
        get { state.withLock { $0.accessMode } }
        set { state.withLock { $0.accessMode = newValue } }
    }

    /// Whether items added or updated may leave this installation; `false` stores the
    /// `ThisDeviceOnly` twin of ``accessMode``. `true` by default.
    public var migrate: Bool {
        get { state.withLock { $0.migrate } }
        set { state.withLock { $0.migrate = newValue } }
    }

    /// The accessibility the current ``accessMode`` and ``migrate`` give.
    public var accessibility: Accessibility {
        state.withLock { state in
            let base: Accessibility =
                switch state.accessMode {
                case .whenUnlocked: .whenUnlocked
                case .afterFirstUnlock: .afterFirstUnlock
                case .always: .always
                }
            return state.migrate ? base : base.thisDeviceOnly
        }
    }

    /// Adds the key for `identifier`, or updates it (and its accessibility) when it exists.
    /// - Parameters:
    ///   - key: the value to store, typically a password or better a hash of it.
    ///   - identifier: the item's identifier (its account), for example a user name.
    ///   - group: an access group, or `nil` for the process's default group (and, when the identifier
    ///     already exists in another of the process's groups, that item is updated too).
    /// - Throws: ``KeychainError/Code/missingEntitlement`` for a group not held;
    ///   ``KeychainError/Code/interactionNotAllowed`` when locked; any other status.
    public func register(key: String, for identifier: String, in group: String? = nil) throws(KeychainError) {
        try keychain(group).accessibility(accessibility).set(key, forKey: identifier)
        state.withLock { $0.cache.removeAll() }
    }

    /// The key stored for `identifier`, or `nil` when there is none.
    /// - Parameters:
    ///   - identifier: the item's identifier.
    ///   - group: an access group, or `nil` to search every group the process holds.
    /// - Returns: the key.
    /// - Throws: ``KeychainError/Code/decode`` when the stored key is not UTF-8;
    ///   ``KeychainError/Code/missingEntitlement``; ``KeychainError/Code/interactionNotAllowed``; any other status.
    public func key(for identifier: String, in group: String? = nil) throws(KeychainError) -> String? {
        guard let secret = try secret(for: identifier, in: group) else { return nil }
        guard let text = secret.withUnsafeBytes({ String(validating: $0, as: UTF8.self) }) else {
            throw KeychainError(.decode, operation: .get, detail: "the stored key is not UTF-8 text")
        }
        return text
    }

    /// Whether `key` is the key stored for `identifier`, or, when `key` is `nil`, whether `identifier`
    /// has a key at all.
    ///
    /// The comparison runs in constant time (`sodium_memcmp`), so its duration does not reveal how
    /// much of `key` matched.
    /// - Parameters:
    ///   - key: the key to check, or `nil` to check existence only.
    ///   - identifier: the item's identifier.
    ///   - group: an access group, or `nil` to search every group the process holds.
    /// - Returns: `true` when the key matches (or, for `nil`, when an item exists).
    /// - Throws: everything ``key(for:in:)`` throws. A locked keychain throws, never returns `false`.
    public func isValid(key: String?, for identifier: String, in group: String? = nil) throws(KeychainError) -> Bool {
        guard let key else { return try keychain(group).contains(identifier) }
        guard let stored = try secret(for: identifier, in: group) else { return false }
        return stored.constantTimeEquals(Array(key.utf8))
    }

    /// Deletes the key for `identifier`; deleting a missing key succeeds.
    /// - Parameters:
    ///   - identifier: the item's identifier.
    ///   - group: an access group, or `nil` for every group the process holds.
    /// - Throws: ``KeychainError/Code/missingEntitlement``; ``KeychainError/Code/interactionNotAllowed``;
    ///   any other status.
    public func deleteKey(for identifier: String, in group: String? = nil) throws(KeychainError) {
        try keychain(group).remove(forKey: identifier)
        state.withLock { $0.cache.removeAll() }
    }

    /// Drops every cached key. Each is wiped (`sodium_memzero`) when its last reference goes, so a
    /// lookup running at the same moment still reads intact bytes.
    public func purge() {
        state.withLock { $0.cache.removeAll() }
    }

    /// How many keys the cache holds (for diagnostics and tests).
    public var cachedKeyCount: Int { state.withLock { $0.cache.count } }

    // MARK: - Package

    /// A manager bound to an explicit keychain and identity (tests).
    package init(service: String = PasswordManager.defaultService, context: KeychainContext) {
        self.service = service
        self.boundContext = context
    }

    // MARK: - Private

    private struct CacheKey: Hashable {
        var identifier: String
        var group: String?
    }

    /// A cached key, with the class key epoch it was read under.
    private struct CachedKey {
        var secret: SecureBytes
        var protection: ProtectionClass
        var epoch: Int64
    }

    private struct State {
        var accessMode = AccessMode.whenUnlocked
        var migrate = true
        var cache: [CacheKey: CachedKey] = [:]
        /// The keystore and change token the cache was filled under.
        var cacheStore: ObjectIdentifier?
        var cacheToken: ChangeToken?
    }

    private static let sharedInstance = Mutex<PasswordManager?>(nil)

    private let state = Mutex(State())
    private let boundContext: KeychainContext?

    private func keychain(_ group: String?) -> Keychain {
        let keychain = Keychain(service: service).accessGroup(group)
        return boundContext.map { keychain.context($0) } ?? keychain
    }

    /// The stored key, from the cache while no connection has changed the keychain since it was read
    /// and the item's class key has stayed available since then.
    private func secret(for identifier: String, in group: String?) throws(KeychainError) -> SecureBytes? {
        let keychain = try keychain(group).bound(.get)
        let context: KeychainContext
        let token: ChangeToken
        do {
            context = try keychain.resolvedContext()
            // Taken before reading: a change after this point moves the token, so the value read
            // below can only be as new as, or newer than, the token says.
            token = try context.keystore.changeToken()
        } catch {
            throw KeychainError(error, .get)
        }
        let store = ObjectIdentifier(context.keystore)
        let cacheKey = CacheKey(identifier: identifier, group: group)
        let hit = state.withLock { state -> CachedKey? in
            if state.cacheStore != store || state.cacheToken != token {
                state.cache.removeAll()
                state.cacheStore = store
                state.cacheToken = token
                return nil
            }
            return state.cache[cacheKey]
        }
        if let hit {
            // The lock check: one read transaction and one keyring lookup, no decryption.
            if try epoch(hit.protection, context) == hit.epoch { return hit.secret }
            // The class key was withdrawn since the key was cached (a lock, the auto-lock timeout, the
            // end of the session), in this process or another: wipe every cached key, then read again,
            // which throws interactionNotAllowed while the class stays locked.
            state.withLock { $0.cache.removeAll() }
        }
        guard let record = try keychain.record(forKey: identifier, .get), let secret = record.secret else { return nil }
        // Taken after reading (the class is known only now). A lock at this point gives nil: nothing
        // is cached. A lock *and* unlock in this instant would cache a value read just before the
        // lock; the change token still guarantees it is the current value.
        if let epoch = try epoch(record.protection, context) {
            let entry = CachedKey(secret: secret, protection: record.protection, epoch: epoch)
            state.withLock { state in
                if state.cacheStore == store && state.cacheToken == token { state.cache[cacheKey] = entry }
            }
        }
        return secret
    }

    /// The class key's epoch: `nil` while locked; changes when it was withdrawn and made available again.
    private func epoch(_ protection: ProtectionClass, _ context: KeychainContext) throws(KeychainError) -> Int64? {
        do { return try context.keystore.classKeyEpoch(protection) } catch { throw KeychainError(error, .get) }
    }
}
