package import KeychainCore

/// Why a ``SecretStore`` operation failed; each maps onto one Secret Service error name.
package enum SecretStoreError: Error, Equatable {
    /// The collection or item does not exist (`org.freedesktop.Secret.Error.NoSuchObject`).
    case noSuchObject
    /// The collection is locked and the operation needs it unlocked (`org.freedesktop.Secret.Error.IsLocked`).
    case isLocked
    /// A value breaks the store's rules (`org.freedesktop.DBus.Error.InvalidArgs`); the message names it.
    case invalidArgument(String)
    /// The store cannot do this (`org.freedesktop.DBus.Error.NotSupported`).
    case notSupported(String)
    /// The store could not do it: a file that cannot be read or written, a full disk, a damaged keychain,
    /// an integrity failure (`org.freedesktop.DBus.Error.Failed`); the message names the file, the cause
    /// and what to do.
    case failed(String)
}

/// What a collection shows while locked or unlocked: its `org.freedesktop.Secret.Collection` properties.
package struct CollectionInfo: Equatable, Sendable {
    package var id: CollectionID
    /// `Label`.
    package var label: String
    /// `Locked`.
    package var locked: Bool
    /// `Created`, seconds since the Unix epoch.
    package var created: UInt64
    /// `Modified`, seconds since the Unix epoch.
    package var modified: UInt64
}

/// An item's readable-while-locked metadata: its `org.freedesktop.Secret.Item` properties but `Locked`.
package struct ItemInfo: Equatable, Sendable {
    package var id: ItemID
    /// `Label`.
    package var label: String
    /// `Attributes`: names and values are exact, case-sensitive strings.
    package var attributes: [String: String]
    /// `Created`, seconds since the Unix epoch.
    package var created: UInt64
    /// `Modified`, seconds since the Unix epoch.
    package var modified: UInt64
    /// Who may use the secret without asking (issue 27); `nil` for an item without a list yet.
    package var access: SecretItemAccess? = nil
}

/// An item's secret and its content type (the `value` and `content_type` of the spec's Secret struct):
/// the engine's type, which keychain files store as it is.
package typealias StoredSecret = SecretItemSecret

/// A change made to the store, reported so that the provider emits the spec's signals.
package enum SecretStoreChange: Equatable, Sendable {
    case collectionCreated(CollectionID)
    case collectionChanged(CollectionID)
    case collectionDeleted(CollectionID)
    case itemCreated(CollectionID, ItemID)
    case itemChanged(CollectionID, ItemID)
    case itemDeleted(CollectionID, ItemID)
}

/// Whether unlocking a collection needs the user.
package enum UnlockRequirement: Equatable, Sendable {
    /// Already unlocked: `Unlock` answers at once with prompt `/`.
    case none
    /// Needs a prompt; ``SecretStore/unlock(_:)`` completes it when the user answers.
    case prompt
}

/// The collections and items that the Secret Service provider serves.
///
/// The provider maps D-Bus calls onto this protocol and nothing else, so that each implementation
/// (``MemorySecretStore`` for the spec's `session` collection; a keychain-backed store where each
/// collection is a keychain file) serves the same API. Implementations are used from one thread,
/// the provider's GLib main context.
///
/// Rules every implementation keeps (Secret Service API, "Collections and Items", "Locking and Unlocking"):
/// - ``collections()``, ``items(in:)``, ``item(_:in:)`` and ``search(_:in:)`` work while a collection is
///   locked: labels, attributes and dates stay readable.
/// - ``secret(of:in:)``, ``setSecret(_:of:in:)``, ``createItem(in:label:attributes:secret:replace:)``
///   and ``deleteItem(_:in:)`` throw ``SecretStoreError/isLocked`` while locked.
/// - A search matches items whose attributes contain every pair of the query exactly; `[:]` matches all.
/// - `replace = true` replaces an item whose attribute set equals the new one exactly.
/// - Every successful change is reported once through ``changeHandler``.
package protocol SecretStore: AnyObject {
    /// Called after each change, including changes made by other processes once the store sees them.
    var changeHandler: ((SecretStoreChange) -> Void)? { get set }

    /// Whether the store holds data that lives only in this process (in-memory items, collections or
    /// aliases), which would be lost if the provider exited; the provider does not exit when idle then.
    var holdsUnsavedData: Bool { get }

    /// Every collection, in a stable order.
    func collections() -> [CollectionInfo]
    /// One collection; `nil` when there is none with that identifier.
    func collection(_ id: CollectionID) -> CollectionInfo?
    /// How often, in seconds, the provider should call ``pollExternalChanges()``; `nil` when other
    /// processes cannot change this store (the in-memory store).
    var externalChangePollSeconds: UInt32? { get }
    /// Looks for changes made by other processes (the `security` tool, SecItem callers, another provider)
    /// and reports each through ``changeHandler``, so that the provider emits the spec's signals.
    func pollExternalChanges()

    /// Every alias that names a collection, sorted.
    func aliasNames() -> [String]
    /// The collection an alias (`default`, `login`, `session`, …) names, if any.
    func resolveAlias(_ alias: String) -> CollectionID?
    /// Points `alias` at a collection, or removes it with `nil`.
    /// - Throws: ``SecretStoreError/noSuchObject`` for an unknown collection.
    func setAlias(_ alias: String, to collection: CollectionID?) throws(SecretStoreError)

    /// Creates a collection labelled `label`, unlocked.
    /// - Returns: its identifier, derived from the label and unique.
    func createCollection(label: String) throws(SecretStoreError) -> CollectionID
    /// Deletes a collection and all its items.
    func deleteCollection(_ id: CollectionID) throws(SecretStoreError)
    /// Sets a collection's `Label`.
    func setLabel(_ label: String, of collection: CollectionID) throws(SecretStoreError)

    /// Whether ``unlock(_:)`` of this collection needs a prompt.
    func unlockRequirement(_ id: CollectionID) throws(SecretStoreError) -> UnlockRequirement
    /// Unlocks a collection (after the prompt, when one was needed).
    func unlock(_ id: CollectionID) throws(SecretStoreError)
    /// Locks a collection; never needs a prompt.
    func lock(_ id: CollectionID) throws(SecretStoreError)

    /// The items of a collection (readable while locked).
    func items(in collection: CollectionID) throws(SecretStoreError) -> [ItemInfo]
    /// One item's metadata (readable while locked).
    func item(_ id: ItemID, in collection: CollectionID) throws(SecretStoreError) -> ItemInfo
    /// Items whose attributes include every pair of `attributes`, in one collection or all of them.
    func search(_ attributes: [String: String], in collection: CollectionID?) -> [(CollectionID, ItemInfo)]

    /// Creates an item, or with `replace` overwrites one whose attribute set equals `attributes`. A new
    /// item gets `access` in the same write (its creator as owner, issue 27); a replaced one keeps its list.
    /// - Returns: the item's identifier and whether it replaced an existing item.
    func createItem(
        in collection: CollectionID, label: String, attributes: [String: String], secret: StoredSecret, replace: Bool,
        access: SecretItemAccess?
    ) throws(SecretStoreError) -> (id: ItemID, replaced: Bool)
    /// An item's secret. - Throws: ``SecretStoreError/isLocked`` while locked.
    func secret(of item: ItemID, in collection: CollectionID) throws(SecretStoreError) -> StoredSecret
    /// Replaces an item's secret. - Throws: ``SecretStoreError/isLocked`` while locked.
    func setSecret(_ secret: StoredSecret, of item: ItemID, in collection: CollectionID) throws(SecretStoreError)
    /// Sets an item's `Label`. - Throws: ``SecretStoreError/isLocked`` while locked.
    func setLabel(_ label: String, of item: ItemID, in collection: CollectionID) throws(SecretStoreError)
    /// Sets an item's `Attributes`. - Throws: ``SecretStoreError/isLocked`` while locked.
    func setAttributes(_ attributes: [String: String], of item: ItemID, in collection: CollectionID)
        throws(SecretStoreError)
    /// Deletes an item. - Throws: ``SecretStoreError/isLocked`` while locked.
    func deleteItem(_ id: ItemID, in collection: CollectionID) throws(SecretStoreError)

    // Prompt-driven operations (added for keychain-backed collections; each has a default in
    // SecretStore+Prompts.swift, so stores that predate them need no change).

    /// Whether `CreateCollection` answers with a prompt (which asks the new collection's password).
    var createCollectionNeedsPrompt: Bool { get }
    /// Whether `Collection.Delete` answers with a prompt (a confirmation).
    func deleteCollectionNeedsPrompt(_ id: CollectionID) -> Bool
    /// Unlocks a collection when its prompt runs (asking the user when needed).
    /// - Returns: `false` when the user dismissed the prompt.
    func unlockFromPrompt(_ id: CollectionID) throws(SecretStoreError) -> Bool
    /// Creates a collection when its prompt runs (asking the user for a password when needed).
    /// - Returns: `nil` when the user dismissed the prompt.
    func createCollectionFromPrompt(label: String) throws(SecretStoreError) -> CollectionID?
    /// Deletes a collection when its prompt runs. - Returns: `false` when the user dismissed it.
    func deleteCollectionFromPrompt(_ id: CollectionID) throws(SecretStoreError) -> Bool
    /// Whether an item exists (object path resolution, on every call on an item); cheaper than
    /// ``item(_:in:)`` where a store can answer without reading the item.
    func hasItem(_ id: ItemID, in collection: CollectionID) -> Bool
    /// The identifiers of a collection's items, in the order of ``items(in:)``, without their metadata
    /// (a collection's `Items` property, `Introspect`, lock-change signals).
    func itemIDs(in collection: CollectionID) throws(SecretStoreError) -> [ItemID]
    /// Work that asks for a collection's password and unlocks it, safe to run on another thread, so that
    /// the provider keeps serving (and notices an unlock by other means) while the user types; `nil` when
    /// ``unlockFromPrompt(_:)`` must run on the provider's thread. The work returns `true` once unlocked,
    /// `false` when the user cancelled, `nil` when it could not ask.
    func backgroundUnlock(_ id: CollectionID) -> (@Sendable () -> Bool?)?
    /// `CreateCollection`'s prompt split for a worker thread (its question there, the creation on the
    /// provider's thread; `apply` returns the new collection); `nil` when
    /// ``createCollectionFromPrompt(label:)`` must run on the provider's thread.
    func backgroundCreateCollection(label: String) -> BackgroundPromptWork<CollectionID>?
    /// `Collection.Delete`'s prompt split for a worker thread (its confirmation there, the deletion on
    /// the provider's thread); `nil` when ``deleteCollectionFromPrompt(_:)`` must run on the provider's thread.
    func backgroundDeleteCollection(_ id: CollectionID) -> BackgroundPromptWork<Void>?
    /// Whether a collection asks before an application not on an item's access list uses it
    /// (``SecretStore+Access``).
    func accessPolicy(of collection: CollectionID) -> SecretAccessPolicy
    /// Replaces an item's access list (sealed with its metadata in a keychain).
    func setAccess(_ access: SecretItemAccess?, of item: ItemID, in collection: CollectionID) throws(SecretStoreError)

    // Combined reads (SecretStore+CombinedReads.swift has defaults made of the calls above): what one D-Bus
    // call needs, read at once, so that a keychain answers it in one read transaction (issue 29).

    /// Whether a collection exists (object path resolution), without reading its lock state.
    func hasCollection(_ id: CollectionID) -> Bool
    /// A collection as last seen: ``collection(_:)`` without reading the lock state again (`locked` is
    /// the last state seen), for the properties that do not depend on it; `nil` when there is none.
    func lastSeenCollection(_ id: CollectionID) -> CollectionInfo?
    /// One item's metadata and, when `allowed` accepts it, its secret (`GetSecret` when the caller may
    /// use the item without a question). `allowed` must not call the store.
    /// - Returns: the metadata, and the secret when `allowed` returned `true`.
    /// - Throws: as ``item(_:in:)``; once `allowed` returned `true`, as ``secret(of:in:)``.
    func item(_ id: ItemID, in collection: CollectionID, secretIf allowed: (ItemInfo) -> Bool)
        throws(SecretStoreError) -> (info: ItemInfo, secret: StoredSecret?)
    /// An item's `Locked` property: whether its collection is locked now; `nil` when ``item(_:in:)``
    /// would fail.
    func itemLocked(_ id: ItemID, in collection: CollectionID) -> Bool?
    /// ``search(_:in:)`` of every collection, each match with whether its collection is locked now (the
    /// service's `SearchItems`).
    func searchAll(_ attributes: [String: String]) -> [(collection: CollectionID, item: ItemInfo, locked: Bool)]
}
