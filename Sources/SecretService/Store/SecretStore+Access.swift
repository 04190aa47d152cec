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
}
