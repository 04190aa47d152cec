/// The one gateway through which every front end (SecItem, `Keychain`, the `security` tool, the git
/// and docker credential helpers, and any new one) reaches the items of a keychain, and the one
/// place where the rules of what a caller may do are written (the role of Valet's single
/// `Internal/SecItem.swift`, one level lower).
///
/// A front end parses its own request into engine values (``ItemQuery``, attributes by name,
/// ``CredentialScope``), then asks the gateway, bound to a keychain and the caller's
/// ``ApplicationIdentity``. The gateway decides, once for all front ends:
/// - **Access groups** (docs/APPLE-SEMANTICS.md rules 8 and 9): which group a new item goes into
///   (``groupForNewItem(named:)``), which groups a search, update or delete covers
///   (``searchScope(named:)``), which groups an upsert looks in (``upsertGroups(named:)``), and that
///   a named group is held (``checkHeld(_:)``); every refusal is `errSecMissingEntitlement`.
/// - **Upsert** (``upsert(_:attributes:secret:group:)``): add, or update the item with the same
///   primary key in place, in one write transaction, never delete-then-add.
/// - **Conditional delete** and credential replacement (``ItemGateway+Credentials``), judged in the
///   same write transaction as the change.
/// - **The synchronizable / `ThisDeviceOnly` rule** (``checkSynchronizable(_:protection:)``).
/// - **Primary keys** (``primaryKeyFilters(_:_:)``, from ``ItemClass/primaryKey``).
///
/// No front end opens a ``StoreSession``: batches that must be atomic (an identity's two items, a
/// migration) are gateway operations too (``ItemGateway+Operations``).
package struct ItemGateway: Sendable {
    // MARK: - Package

    /// The keychain the gateway acts on.
    package let keystore: Keystore
    /// The caller: its access groups, and whether it sees every group (the user's management tools).
    package let identity: ApplicationIdentity

    /// A gateway for `identity` on `keystore`.
    package init(keystore: Keystore, identity: ApplicationIdentity) {
        self.keystore = keystore
        self.identity = identity
    }

    /// A gateway for a resolved context (the process's or a test's).
    package init(_ context: KeychainContext) {
        self.init(keystore: context.keystore, identity: context.identity)
    }

    // MARK: - Access groups

    /// The access group a new item goes into (docs/APPLE-SEMANTICS.md rule 8): the named one, when
    /// the caller holds it, else the caller's first group.
    /// - Parameter named: the group the request names (`kSecAttrAccessGroup`), or `nil`.
    /// - Returns: the group.
    /// - Throws: `.missingEntitlement` for a named group the caller does not hold, or a caller
    ///   without any group (rule 9).
    func groupForNewItem(named: String?) throws(KeychainFailure) -> String {
        if let named {
            try checkHeld(named)
            return named
        }
        guard let group = identity.defaultAccessGroup else { throw Self.noGroup }
        return group
    }

    /// Checks that a new item naming `named` (or none) can be placed, before a front end does work
    /// for it (asks for an application password, parses a request): the gateway places the item
    /// itself when it is added (``groupForNewItem(named:)``).
    /// - Parameter named: the group the request names, or `nil`.
    /// - Throws: as ``groupForNewItem(named:)``.
    package func checkPlacement(named: String?) throws(KeychainFailure) {
        _ = try groupForNewItem(named: named)
    }

    /// The access groups a search, update or delete covers (rule 8): the named group, or every
    /// group the caller holds (every group for the management identity, ``ApplicationIdentity/manager``).
    /// The only way a front end gets a ``GroupScope`` for an ``ItemQuery``, besides ``callerScope``.
    /// - Parameter named: the group the request names, or `nil`.
    /// - Returns: `.groups([named])`, or ``callerScope``.
    /// - Throws: `.missingEntitlement` for a named group not held, or a caller without groups
    ///   that does not see them all (rule 9).
    package func searchScope(named: String?) throws(KeychainFailure) -> GroupScope {
        if let named {
            try checkHeld(named)
            return .groups([named])
        }
        guard !identity.accessGroups.isEmpty || identity.seesAllGroups else { throw Self.noGroup }
        return callerScope
    }

    /// Every group the caller sees, without refusing a caller that has none (it finds nothing): the
    /// caller's groups, or every group for the management identity. Credential helpers and lookups
    /// that name no group use it.
    package var callerScope: GroupScope { identity.searchScope }

    /// The groups an upsert looks in, in order, the first being where a new item goes (rule 8):
    /// the named group, or the caller's groups in Apple's order (default group first). The items
    /// the caller can see in any of its groups are updated, so a later read never returns a stale
    /// copy from a second group.
    /// - Parameter named: the group the request names, or `nil`.
    /// - Returns: at least one group.
    /// - Throws: `.missingEntitlement` for a named group not held, or a caller without groups.
    package func upsertGroups(named: String?) throws(KeychainFailure) -> [String] {
        if let named {
            try checkHeld(named)
            return [named]
        }
        guard !identity.accessGroups.isEmpty else { throw Self.noGroup }
        return identity.accessGroups
    }

    /// Checks that the caller holds `group` (rule 9: current systems refuse a group not held).
    /// - Throws: `.missingEntitlement` when it does not.
    package func checkHeld(_ group: String) throws(KeychainFailure) {
        guard identity.holds(group) else {
            throw KeychainFailure(.missingEntitlement, "the access group is not in the process's entitlements")
        }
    }

    /// The group an attribute dictionary names (`agrp`), if any.
    package static func namedGroup(_ attributes: [String: AttributeValue]) -> String? {
        if case .string(let group)? = attributes[.accessGroup] { return group }
        return nil
    }

    // MARK: - Synchronizable and ThisDeviceOnly

    /// The rule for every write: a synchronizable item cannot have a `…ThisDeviceOnly` protection class
    /// (SecItem.h, `kSecAttrSynchronizable`: such items "may only" use a migratable accessibility; issue 26).
    ///
    /// The store applies it to every item it seals (``StoreSession/sealRow(_:attributes:secret:persistentRef:)``),
    /// so `SecItemAdd` and `SecItemUpdate` answer `errSecParam` (docs/APPLE-SEMANTICS.md rule 20); the high-level
    /// API and the tools check it before they build an item.
    /// - Throws: `.param` for a synchronizable `…ThisDeviceOnly` item.
    package static func checkSynchronizable(_ synchronizable: Bool, protection: ProtectionClass) throws(KeychainFailure)
    {
        if synchronizable && !protection.isMigratable {
            throw KeychainFailure(.param, "a synchronizable item cannot be ThisDeviceOnly")
        }
    }

    // MARK: - Primary keys

    /// The names of the class's primary-key attributes a caller gives (docs/APPLE-SEMANTICS.md rule 3;
    /// the one list is ``ItemClass/primaryKey``), without `agrp` and `sync`, which every class has and
    /// which an ``ItemQuery`` carries in its own fields. Certificates: type, issuer, serial number;
    /// generic passwords: account, service; internet passwords: account, security domain, server,
    /// protocol, authentication type, port, path.
    package static func primaryKeyNames(_ itemClass: ItemClass) -> [AttributeName] {
        itemClass.primaryKey.map { AttributeName(rawValue: $0.name) }.filter {
            $0 != .accessGroup && $0 != .synchronizable
        }
    }

    /// The primary-key attributes of an item of `itemClass` with `attributes`, defaults filled
    /// (rules 1 and 3), as exact search filters (``primaryKeyNames(_:)``).
    package static func primaryKeyFilters(_ itemClass: ItemClass, _ attributes: [String: AttributeValue])
        -> [String: AttributeValue]
    {
        let normalized = StoreSession.normalized(itemClass, attributes)
        var filters: [String: AttributeValue] = [:]
        for name in primaryKeyNames(itemClass) { filters[name] = normalized[name] }
        return filters
    }

    /// The longest secret an item may hold, in bytes (1 MiB): larger ones are `errSecDataTooLarge`.
    package static let maximumSecretBytes = StoreSession.maximumSecretBytes

    // MARK: - Private

    private static let noGroup = KeychainFailure(.missingEntitlement, "the process has no keychain access group")
}
