/// Access lists and the access policy of Secret Service items (issue 27, item 2).
extension StoreSession {
    /// Replaces an item's access list, re-sealing its metadata; label, attributes, dates and secret
    /// are kept.
    /// - Throws: `.itemNotFound`; `.interactionNotAllowed` while locked; `.decode` when the stored
    ///   metadata does not authenticate.
    func setSecretItemAccess(_ number: Int64, _ access: SecretItemAccess?) throws(KeychainFailure) {
        _ = try classKey(SecretItemSchema.protection)
        guard let row = try secretItemRow(number) else { throw KeychainFailure(.itemNotFound) }
        let codec = try secretItemCodec()
        var item = try codec.openMetadata(row.metadata, number: number, attributeSet: row.attributeSet)
        item.access = access
        try writeSecretItem(item, secret: nil, replacing: row, codec)
    }

    /// The keychain's policy: `ss_access_policy`, or ``SecretAccessPolicy/open`` for a keychain made
    /// before access lists (which has none).
    func secretAccessPolicy() throws(KeychainFailure) -> SecretAccessPolicy {
        guard let bytes = try Meta.blob(database, SecretItemSchema.accessPolicyMeta) else { return .open }
        return SecretAccessPolicy(rawValue: String(decoding: bytes, as: UTF8.self)) ?? .confirm
    }
}
