/// Combined reads (``SecretStore/item(_:in:secretIf:)`` and the others), with defaults made of the
/// single reads: right for a store whose reads cost nothing, such as ``MemorySecretStore``.
/// ``KeychainSecretStore`` answers each in one read transaction.
extension SecretStore {
    /// Default: ``collection(_:)`` is not `nil`.
    package func hasCollection(_ id: CollectionID) -> Bool { collection(id) != nil }

    /// Default: ``collection(_:)``.
    package func lastSeenCollection(_ id: CollectionID) -> CollectionInfo? { collection(id) }

    /// Default: ``item(_:in:)``, then ``secret(of:in:)`` when `allowed` accepts the item.
    package func item(_ id: ItemID, in collection: CollectionID, secretIf allowed: (ItemInfo) -> Bool)
        throws(SecretStoreError) -> (info: ItemInfo, secret: StoredSecret?)
    {
        let info = try item(id, in: collection)
        return (info, allowed(info) ? try secret(of: id, in: collection) : nil)
    }

    /// Default: ``item(_:in:)``, then the collection's ``CollectionInfo/locked`` (locked when it is gone).
    package func itemLocked(_ id: ItemID, in collection: CollectionID) -> Bool? {
        guard (try? item(id, in: collection)) != nil else { return nil }
        return self.collection(collection)?.locked ?? true
    }

    /// Default: ``search(_:in:)`` of all collections, then ``collection(_:)`` once per collection found.
    package func searchAll(_ attributes: [String: String]) -> [(
        collection: CollectionID, item: ItemInfo, locked: Bool
    )] {
        var locked: [CollectionID: Bool] = [:]
        return search(attributes, in: nil).map { collection, item in
            let isLocked =
                locked[collection]
                ?? {
                    let value = self.collection(collection)?.locked ?? true
                    locked[collection] = value
                    return value
                }()
            return (collection, item, isLocked)
        }
    }
}
