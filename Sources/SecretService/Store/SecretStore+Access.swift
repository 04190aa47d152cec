package import KeychainCore

/// Access lists on items (issue 27, item 2), added to ``SecretStore`` with defaults: a store without
/// them is ``SecretAccessPolicy/open`` and keeps no list.
extension SecretStore {
    /// Default: ``SecretAccessPolicy/open``.
    package func accessPolicy(of collection: CollectionID) -> SecretAccessPolicy { .open }

    /// Default: nothing is kept.
    package func setAccess(_ access: SecretItemAccess?, of item: ItemID, in collection: CollectionID)
        throws(SecretStoreError)
    {}

    /// ``createItem(in:label:attributes:secret:replace:access:)`` without an access list (the item gets its
    /// owner on first use).
    package func createItem(
        in collection: CollectionID, label: String, attributes: [String: String], secret: StoredSecret, replace: Bool
    ) throws(SecretStoreError) -> (id: ItemID, replaced: Bool) {
        try createItem(
            in: collection, label: label, attributes: attributes, secret: secret, replace: replace, access: nil)
    }
}
