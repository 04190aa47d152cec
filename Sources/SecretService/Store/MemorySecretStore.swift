package import KeychainCore
internal import KeychainDBus

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// A ``SecretStore`` that lives in memory and is never written anywhere: the spec's `session` collection
/// (Secret Service API, "Aliases": a collection "only stored in memory"), and, until keychain-backed
/// collections land, every collection that `CreateCollection` makes.
///
/// Collections have no password: ``unlockRequirement(_:)`` of a locked one is ``UnlockRequirement/prompt``
/// (a confirmation, so that the spec's prompt flow runs), and ``unlock(_:)`` then unlocks it. Secrets are
/// ``StoredSecret``s, so they stay in zeroising memory. Not `Sendable`: the provider's main context owns it.
package final class MemorySecretStore: SecretStore {
    private struct Collection {
        var info: CollectionInfo
        var items: [ItemID: (info: ItemInfo, secret: StoredSecret)] = [:]
        var order: [ItemID] = []
        var nextItem = 1
        /// Items by attribute pair, so that a search costs O(smallest match), not O(items).
        var index: [AttributePair: Set<ItemID>] = [:]

        mutating func indexItem(_ id: ItemID, _ attributes: [String: String]) {
            for (name, value) in attributes { index[AttributePair(name: name, value: value), default: []].insert(id) }
        }

        mutating func unindexItem(_ id: ItemID, _ attributes: [String: String]) {
            for (name, value) in attributes {
                let pair = AttributePair(name: name, value: value)
                index[pair]?.remove(id)
                if index[pair]?.isEmpty == true { index[pair] = nil }
            }
        }

        /// Items whose attributes contain every pair of `query`, in creation order.
        func matching(_ query: [String: String]) -> [ItemID] {
            guard !query.isEmpty else { return order }
            var smallest: Set<ItemID>?
            for (name, value) in query {
                guard let set = index[AttributePair(name: name, value: value)] else { return [] }
                if set.count < smallest?.count ?? Int.max { smallest = set }
            }
            let candidates = (smallest ?? []).filter { id in
                guard let attributes = items[id]?.info.attributes else { return false }
                return query.allSatisfy { attributes[$0.key] == $0.value }
            }
            return candidates.sorted { Int($0.rawValue) ?? 0 < Int($1.rawValue) ?? 0 }
        }
    }

    private struct AttributePair: Hashable {
        let name: String
        let value: String
    }

    private var store: [CollectionID: Collection] = [:]
    private var collectionOrder: [CollectionID] = []
    private var aliases: [String: CollectionID] = [:]
    private let clock: () -> UInt64
    package var changeHandler: ((SecretStoreChange) -> Void)?

    /// The identifier of the built-in in-memory collection, also aliased `session`.
    package static let sessionCollection = CollectionID("session")!

    /// Makes a store holding the empty `session` collection (alias `session`).
    /// - Parameter clock: seconds since the Unix epoch, for `Created` and `Modified`.
    package init(clock: @escaping () -> UInt64 = { UInt64(max(0, time(nil))) }) {
        self.clock = clock
        let now = clock()
        let id = Self.sessionCollection
        store[id] = Collection(
            info: CollectionInfo(id: id, label: "Session", locked: false, created: now, modified: now))
        collectionOrder = [id]
        aliases["session"] = id
    }

    package var holdsUnsavedData: Bool {
        store.count > 1 || aliases.count > 1 || store.values.contains { !$0.items.isEmpty }
    }

    // MARK: - Collections

    package func collections() -> [CollectionInfo] { collectionOrder.compactMap { store[$0]?.info } }

    package func collection(_ id: CollectionID) -> CollectionInfo? { store[id]?.info }

    /// Nothing outside this process can change it.
    package var externalChangePollSeconds: UInt32? { nil }

    package func pollExternalChanges() {}

    package func aliasNames() -> [String] { aliases.keys.sorted() }

    package func resolveAlias(_ alias: String) -> CollectionID? { aliases[alias] }

    package func setAlias(_ alias: String, to collection: CollectionID?) throws(SecretStoreError) {
        guard let collection else {
            aliases[alias] = nil
            return
        }
        guard store[collection] != nil else { throw .noSuchObject }
        aliases[alias] = collection
    }

    package func createCollection(label: String) throws(SecretStoreError) -> CollectionID {
        var base = String(
            String.UnicodeScalarView(
                label.lowercased().unicodeScalars.prefix(64).map { scalar in
                    scalar.isASCII && isPathElementByte(UInt8(scalar.value)) ? scalar : "_"
                }))
        if base.isEmpty { base = "collection" }
        var candidate = base
        var suffix = 2
        while store[CollectionID(candidate)!] != nil {
            candidate = "\(base)_\(suffix)"
            suffix += 1
        }
        let id = CollectionID(candidate)!
        let now = clock()
        store[id] = Collection(info: CollectionInfo(id: id, label: label, locked: false, created: now, modified: now))
        collectionOrder.append(id)
        changeHandler?(.collectionCreated(id))
        return id
    }

    package func deleteCollection(_ id: CollectionID) throws(SecretStoreError) {
        guard store.removeValue(forKey: id) != nil else { throw .noSuchObject }
        collectionOrder.removeAll { $0 == id }
        aliases = aliases.filter { $0.value != id }
        changeHandler?(.collectionDeleted(id))
    }

    package func setLabel(_ label: String, of collection: CollectionID) throws(SecretStoreError) {
        guard store[collection] != nil else { throw .noSuchObject }
        store[collection]!.info.label = label
        store[collection]!.info.modified = clock()
        changeHandler?(.collectionChanged(collection))
    }

    // MARK: - Locking

    package func unlockRequirement(_ id: CollectionID) throws(SecretStoreError) -> UnlockRequirement {
        guard let collection = store[id] else { throw .noSuchObject }
        return collection.info.locked ? .prompt : .none
    }

    package func unlock(_ id: CollectionID) throws(SecretStoreError) {
        try setLocked(false, id)
    }

    package func lock(_ id: CollectionID) throws(SecretStoreError) {
        try setLocked(true, id)
    }

    private func setLocked(_ locked: Bool, _ id: CollectionID) throws(SecretStoreError) {
        guard let collection = store[id] else { throw .noSuchObject }
        guard collection.info.locked != locked else { return }
        store[id]!.info.locked = locked
        changeHandler?(.collectionChanged(id))
    }

    // MARK: - Items

    package func items(in collection: CollectionID) throws(SecretStoreError) -> [ItemInfo] {
        guard let stored = store[collection] else { throw .noSuchObject }
        return stored.order.compactMap { stored.items[$0]?.info }
    }

    package func item(_ id: ItemID, in collection: CollectionID) throws(SecretStoreError) -> ItemInfo {
        guard let entry = store[collection]?.items[id] else { throw .noSuchObject }
        return entry.info
    }

    package func search(_ attributes: [String: String], in collection: CollectionID?) -> [(CollectionID, ItemInfo)] {
        let scope = collection.map { [$0] } ?? collectionOrder
        var found: [(CollectionID, ItemInfo)] = []
        for id in scope {
            guard let stored = store[id] else { continue }
            for itemID in stored.matching(attributes) {
                if let info = stored.items[itemID]?.info { found.append((id, info)) }
            }
        }
        return found
    }

    package func createItem(
        in collection: CollectionID, label: String, attributes: [String: String], secret: StoredSecret, replace: Bool,
        access: SecretItemAccess?
    ) throws(SecretStoreError) -> (id: ItemID, replaced: Bool) {
        // Mutated in place (store[collection]!.…): a local copy would copy every item on write.
        guard let info = store[collection]?.info else { throw .noSuchObject }
        guard !info.locked else { throw .isLocked }
        let now = clock()
        if replace,
            let existing = store[collection]!.matching(attributes).first(where: {
                store[collection]!.items[$0]?.info.attributes == attributes
            })
        {
            store[collection]!.items[existing]!.info.label = label
            store[collection]!.items[existing]!.info.modified = now
            store[collection]!.items[existing]!.secret = secret
            changeHandler?(.itemChanged(collection, existing))
            return (existing, true)
        }
        let id = ItemID(String(store[collection]!.nextItem))!
        store[collection]!.nextItem += 1
        store[collection]!.items[id] = (
            ItemInfo(id: id, label: label, attributes: attributes, created: now, modified: now, access: access), secret
        )
        store[collection]!.order.append(id)
        store[collection]!.indexItem(id, attributes)
        store[collection]!.info.modified = now
        changeHandler?(.itemCreated(collection, id))
        return (id, false)
    }

    package func secret(of item: ItemID, in collection: CollectionID) throws(SecretStoreError) -> StoredSecret {
        try unlockedItem(item, in: collection).secret
    }

    package func setSecret(_ secret: StoredSecret, of item: ItemID, in collection: CollectionID)
        throws(SecretStoreError)
    {
        _ = try unlockedItem(item, in: collection)
        store[collection]!.items[item]!.secret = secret
        touch(item, in: collection)
    }

    package func setLabel(_ label: String, of item: ItemID, in collection: CollectionID) throws(SecretStoreError) {
        _ = try unlockedItem(item, in: collection)
        store[collection]!.items[item]!.info.label = label
        touch(item, in: collection)
    }

    package func setAttributes(_ attributes: [String: String], of item: ItemID, in collection: CollectionID)
        throws(SecretStoreError)
    {
        let old = try unlockedItem(item, in: collection).info.attributes
        store[collection]!.unindexItem(item, old)
        store[collection]!.items[item]!.info.attributes = attributes
        store[collection]!.indexItem(item, attributes)
        touch(item, in: collection)
    }

    package func deleteItem(_ id: ItemID, in collection: CollectionID) throws(SecretStoreError) {
        let old = try unlockedItem(id, in: collection).info.attributes
        store[collection]!.unindexItem(id, old)
        store[collection]!.items[id] = nil
        store[collection]!.order.removeAll { $0 == id }
        store[collection]!.info.modified = clock()
        changeHandler?(.itemDeleted(collection, id))
    }

    /// Access lists live with the items, for the process's life; the `session` collection keeps the
    /// ``SecretAccessPolicy/open`` default, so only sandboxed callers are confined here.
    package func setAccess(_ access: SecretItemAccess?, of item: ItemID, in collection: CollectionID)
        throws(SecretStoreError)
    {
        guard store[collection]?.items[item] != nil else { throw .noSuchObject }
        store[collection]!.items[item]!.info.access = access
    }

    // MARK: - Private

    private func unlockedItem(_ id: ItemID, in collection: CollectionID) throws(SecretStoreError) -> (
        info: ItemInfo, secret: StoredSecret
    ) {
        guard let stored = store[collection], let entry = stored.items[id] else { throw .noSuchObject }
        guard !stored.info.locked else { throw .isLocked }
        return entry
    }

    private func touch(_ item: ItemID, in collection: CollectionID) {
        store[collection]!.items[item]!.info.modified = clock()
        changeHandler?(.itemChanged(collection, item))
    }
}
