internal import KeychainCore

extension Keychain {
    // MARK: - Public

    /// Moves this keychain's items to `destination`'s scope, accessibility, access group and
    /// synchronizable state, atomically: all of them move, or none does.
    ///
    /// This is Valet's `migrateObjects(matching:removeOnCompletion:)` done in place. The source is this
    /// keychain's scope, its access group (or every group the process holds) and its synchronizable
    /// state, optionally narrowed to `keys`. Each item is rewritten in ONE write transaction: it keeps
    /// its secret, its key, its persistent reference, its creation and modification dates, its label,
    /// comment and every other attribute (for internet passwords: port, path, security domain), and
    /// takes the destination's service (or server, protocol and authentication type), access group
    /// (the named one, or the process's default), accessibility and synchronizable state.
    ///
    /// ```swift
    /// // Make every token of the app readable in the background and bound to this device.
    /// let old = Keychain(service: "com.example.app")
    /// let report = try old.migrate(to: old.accessibility(.afterFirstUnlockThisDeviceOnly))
    /// print("moved \(report.count) items")
    /// ```
    /// - Parameters:
    ///   - keys: only these keys, or every key of the scope when `nil`.
    ///   - destination: a keychain of the same item class describing where the items go. Its label
    ///     and comment are not applied; its bound keychain file, if any, is ignored (items never
    ///     leave this keychain's file).
    /// - Returns: the moved items with their new attributes; empty when nothing matched (not an error).
    /// - Throws: ``KeychainError/Code/param`` when `destination` is of another item class (a generic
    ///   password cannot become an internet password) or is synchronizable with a `ThisDeviceOnly`
    ///   accessibility; ``KeychainError/Code/duplicateItem`` when a moved item would take the place of
    ///   an existing item (then nothing moves); ``KeychainError/Code/missingEntitlement`` when either
    ///   keychain names a group the process does not hold; ``KeychainError/Code/interactionNotAllowed``
    ///   when a class key involved is locked; any other status. On any error nothing moves.
    public func migrate(keys: [String]? = nil, to destination: Keychain) throws(KeychainError) -> MigrationReport {
        guard destination.itemClass == itemClass else {
            throw KeychainError(.param, operation: .migrate, detail: "a migration cannot change the item class")
        }
        let records = try perform(.migrate) { (gateway) throws(KeychainFailure) -> [StoredItem] in
            try ItemGateway.checkSynchronizable(
                destination.isSynchronizable, protection: destination.itemAccessibility.protectionClass)
            let queries: [ItemQuery]
            if let keys {
                var list: [ItemQuery] = []
                for key in Set(keys).sorted() {
                    list.append(try query(gateway, key: key, synchronizable: Synchronizable(isSynchronizable)))
                }
                queries = list
            } else {
                queries = [try query(gateway, key: nil, synchronizable: Synchronizable(isSynchronizable))]
            }
            let changes = destination.scopeAttributes.merging(
                [String: AttributeValue](named: [
                    .accessible: destination.itemAccessibility.protectionClass.attribute,
                    .synchronizable: Synchronizable(destination.isSynchronizable).attribute,
                ])
            ) { _, new in new }
            return try gateway.migrate(queries, changes: changes, into: destination.accessGroupName)
        }
        return MigrationReport(movedItems: records.map(KeychainItem.init))
    }

    /// Async variant of ``migrate(keys:to:)-7f3mi``.
    /// - Parameters:
    ///   - keys: only these keys, or every key when `nil`.
    ///   - destination: where the items go.
    /// - Returns: the moved items.
    /// - Throws: everything ``migrate(keys:to:)-7f3mi`` throws.
    public func migrate(keys: [String]? = nil, to destination: Keychain) async throws(KeychainError)
        -> MigrationReport
    {
        let keychain = try bound(.migrate)
        return try await Offload.run { () throws(KeychainError) in try keychain.migrate(keys: keys, to: destination) }
    }
}
