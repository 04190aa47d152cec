/// Freedesktop Secret Service items stored in this keychain (issue 17): the engine side of the
/// `keychain-secret-service` provider's keychain-backed collections.
///
/// Each call is one SQLite transaction (writes `BEGIN IMMEDIATE`, through ``write(foreign:_:)``), so
/// the provider, the `security` tool and SecItem callers can use the same file at once. Metadata
/// (label, attributes, dates) and searches work while the keychain is locked; secrets and every
/// write need it unlocked (`.interactionNotAllowed` otherwise, the provider's `IsLocked`).
/// Layout and keys: ``SecretItemSchema``, ``SecretItemCodec``; `docs/ARCHITECTURE.md`,
/// "Secret Service items in keychain files".
extension Keystore {
    /// Items whose attributes contain every pair of `query` exactly (`[:]`: all), by number.
    /// Works while locked; O(matches) through the keyed digest index.
    /// - Throws: `.interactionNotAllowed` while the keychain is foreign (waiting for adoption);
    ///   `.decode` when a row does not authenticate; `.io`.
    package func secretItems(matching query: [String: String]) throws(KeychainFailure) -> [SecretItem] {
        try read { (s: borrowing StoreSession) throws(KeychainFailure) in try s.secretItems(matching: query) }
    }

    /// One item's metadata, or `nil` when there is no item with that number. Works while locked. A row
    /// this connection keeps, while no other connection has committed, is read without a transaction
    /// (``unchangedRead(_:)``); so are the two reads below.
    /// - Throws: as ``secretItems(matching:)``.
    package func secretItem(_ number: Int64) throws(KeychainFailure) -> SecretItem? {
        let cached = try unchangedRead { (s: borrowing StoreSession) throws(KeychainFailure) -> SecretItem? in
            try s.cachedSecretItemRow(number).map { (row) throws(KeychainFailure) in try s.secretItem(row) }
        }
        if let cached { return cached }
        return try read { (s: borrowing StoreSession) throws(KeychainFailure) in try s.secretItem(number) }
    }

    /// One item's secret and content type.
    /// - Throws: `.itemNotFound`; `.interactionNotAllowed` while locked; `.decode`.
    package func secretItemSecret(_ number: Int64) throws(KeychainFailure) -> SecretItemSecret {
        try read { (s: borrowing StoreSession) throws(KeychainFailure) in try s.secretItemSecret(number) }
    }

    /// One item's metadata and, when `allowed` accepts it, its secret, in one read transaction or none (the
    /// provider's `GetSecret` when its access check needs no question: one transaction, not two).
    /// - Parameter allowed: decides from the metadata whether the secret is opened, once; it runs inside the
    ///   read, with the connection held, so it must not call this `Keystore`.
    /// - Returns: `nil` when there is no item with that number; otherwise its metadata, and its secret
    ///   when `allowed` returned `true`.
    /// - Throws: as ``secretItem(_:)``; once `allowed` returned `true`, as ``secretItemSecret(_:)``
    ///   (`.interactionNotAllowed` while locked).
    package func secretItem(_ number: Int64, secretIf allowed: (SecretItem) -> Bool) throws(KeychainFailure)
        -> (item: SecretItem, secret: SecretItemSecret?)?
    {
        typealias Found = (item: SecretItem, secret: SecretItemSecret?)
        // `allowed` runs once: the unchanged read returns nil before it, only when the row is not kept.
        let cached = try unchangedRead { (s: borrowing StoreSession) throws(KeychainFailure) -> Found? in
            guard let row = s.cachedSecretItemRow(number) else { return nil }
            return try s.secretItem(row, secretIf: allowed)
        }
        if let cached { return cached }
        return try read { (s: borrowing StoreSession) throws(KeychainFailure) -> Found? in
            try s.secretItem(number, secretIf: allowed)
        }
    }

    /// ``secretItems(matching:)`` and the keychain's ``LockState``, in one read transaction (the service's
    /// `SearchItems`, which lists each item as locked or unlocked).
    /// - Throws: as ``secretItems(matching:)``.
    package func secretItemsAndLockState(matching query: [String: String]) throws(KeychainFailure) -> (
        items: [SecretItem], lockState: LockState
    ) {
        try read(foreign: true) { (s: borrowing StoreSession) throws(KeychainFailure) -> ([SecretItem], LockState) in
            // As ``secretItems(matching:)``, which a foreign keychain refuses.
            if s.keys.isForeign { throw s.keys.foreignFailure }
            return (try s.secretItems(matching: query), s.lockStateFromEntry)
        }
    }

    /// One item's metadata and the keychain's ``LockState``, in one read transaction or none (an item's
    /// `Locked` property).
    /// - Returns: the item (`nil` when there is no item with that number) and the lock state.
    /// - Throws: as ``secretItem(_:)``.
    package func secretItemAndLockState(_ number: Int64) throws(KeychainFailure) -> (
        item: SecretItem?, lockState: LockState
    ) {
        let cached = try unchangedRead {
            (s: borrowing StoreSession) throws(KeychainFailure) -> (SecretItem?, LockState)? in
            guard let row = s.cachedSecretItemRow(number) else { return nil }
            return (try s.secretItem(row), s.lockStateFromEntry)
        }
        if let cached { return cached }
        return try read(foreign: true) {
            (s: borrowing StoreSession) throws(KeychainFailure) -> (SecretItem?, LockState) in
            // As ``secretItem(_:)``, which a foreign keychain refuses; its lock state alone would not be.
            if s.keys.isForeign { throw s.keys.foreignFailure }
            return (try s.secretItem(number), s.lockStateFromEntry)
        }
    }

    /// Creates an item, or with `replace` replaces the label and secret of the item whose attribute set
    /// *equals* `attributes` (Secret Service API, `CreateItem`: "same attributes"; never an item that
    /// merely contains them). One transaction, which also seals a new item's `access` (issue 27: the
    /// creator's ownership is never a second write).
    /// - Parameters:
    ///   - now: seconds since the Unix epoch for `Created`/`Modified`.
    ///   - access: the new item's access list; a replaced item keeps its own.
    /// - Returns: the item's number and whether it replaced one.
    /// - Throws: `.interactionNotAllowed` while locked; `.dataTooLarge` above 4 MiB; `.diskFull`; `.io`.
    package func createSecretItem(
        label: String, attributes: [String: String], secret: SecretItemSecret, replace: Bool,
        now: UInt64 = Keystore.secondsNow(), access: SecretItemAccess? = nil
    ) throws(KeychainFailure) -> (number: Int64, replaced: Bool) {
        try write { (s: borrowing StoreSession) throws(KeychainFailure) in
            try s.createSecretItem(
                label: label, attributes: attributes, secret: secret, replace: replace, now: now, access: access)
        }
    }

    /// ``createSecretItem(label:attributes:secret:replace:now:access:)``, then, in the same write
    /// transaction, ``secretItemChanges(after:)`` since `serial`: the provider learns what it and other
    /// writers changed without a read transaction of its own.
    /// - Returns: the item's number, whether it replaced one, and the changes after `serial` (this write included).
    /// - Throws: as ``createSecretItem(label:attributes:secret:replace:now:access:)``.
    package func createSecretItem(
        label: String, attributes: [String: String], secret: SecretItemSecret, replace: Bool,
        now: UInt64 = Keystore.secondsNow(), access: SecretItemAccess? = nil, changesAfter serial: Int64
    ) throws(KeychainFailure) -> (number: Int64, replaced: Bool, changes: SecretItemChanges) {
        try write { (s: borrowing StoreSession) throws(KeychainFailure) in
            let created = try s.createSecretItem(
                label: label, attributes: attributes, secret: secret, replace: replace, now: now, access: access)
            return (created.number, created.replaced, try s.secretItemChanges(after: serial))
        }
    }

    /// Creates `count` new items in one write transaction (a bulk load: `keychain-bench secret-service-populate`
    /// fills a keychain for `scripts/bench-secret-service` without a `CreateItem` per item). Each item is
    /// exactly what ``createSecretItem(label:attributes:secret:replace:now:access:)`` without `replace`
    /// makes from the same values; nothing is replaced.
    /// - Parameters:
    ///   - count: how many items.
    ///   - now: seconds since the Unix epoch for every item's `Created`/`Modified`.
    ///   - item: the label, attributes, secret and access list of the item at each index `0..<count`,
    ///     called inside the transaction (it must not call this `Keystore`).
    /// - Returns: the new items' numbers, in index order.
    /// - Throws: as ``createSecretItem(label:attributes:secret:replace:now:access:)``; then nothing is written.
    package func createSecretItems(
        count: Int, now: UInt64 = Keystore.secondsNow(),
        _ item: (Int) -> (
            label: String, attributes: [String: String], secret: SecretItemSecret, access: SecretItemAccess?
        )
    ) throws(KeychainFailure) -> [Int64] {
        try write { (s: borrowing StoreSession) throws(KeychainFailure) -> [Int64] in
            var numbers: [Int64] = []
            numbers.reserveCapacity(count)
            for index in 0..<count {
                let new = item(index)
                let created = try s.createSecretItem(
                    label: new.label, attributes: new.attributes, secret: new.secret, replace: false, now: now,
                    access: new.access)
                numbers.append(created.number)
            }
            return numbers
        }
    }

    /// Replaces an item's secret.
    /// - Throws: `.itemNotFound`; `.interactionNotAllowed` while locked; `.dataTooLarge`.
    package func setSecretItemSecret(_ number: Int64, _ secret: SecretItemSecret, now: UInt64 = Keystore.secondsNow())
        throws(KeychainFailure)
    {
        try write { (s: borrowing StoreSession) throws(KeychainFailure) in
            try s.setSecretItemSecret(number, secret, now: now)
        }
    }

    /// Replaces an item's label, its attributes (re-indexed in the same transaction), or both.
    /// - Throws: `.itemNotFound`; `.interactionNotAllowed` while locked.
    package func updateSecretItem(
        _ number: Int64, label: String? = nil, attributes: [String: String]? = nil, now: UInt64 = Keystore.secondsNow()
    ) throws(KeychainFailure) {
        try write { (s: borrowing StoreSession) throws(KeychainFailure) in
            try s.updateSecretItem(number, label: label, attributes: attributes, now: now)
        }
    }

    /// Deletes an item. - Returns: whether it existed.
    /// - Throws: `.interactionNotAllowed` while locked.
    @discardableResult
    package func deleteSecretItem(_ number: Int64) throws(KeychainFailure) -> Bool {
        try write { (s: borrowing StoreSession) throws(KeychainFailure) in try s.deleteSecretItem(number) }
    }

    /// Items written after `serial` (a value from an earlier answer; 0 for all), for noticing other
    /// processes' changes. Deletions show as numbers missing from ``secretItemNumbers()``.
    package func secretItemChanges(after serial: Int64) throws(KeychainFailure) -> SecretItemChanges {
        try read { (s: borrowing StoreSession) throws(KeychainFailure) in try s.secretItemChanges(after: serial) }
    }

    /// The label a Secret Service client gave this keychain's collection (`meta.ss_label`, UTF-8), or
    /// `nil` when none was set. Works while locked: the label is not sealed (it is not secret; someone
    /// holding the file reads it, as they read the file's name).
    /// - Throws: `.invalidKeychain` when the metadata cannot be read.
    package func secretCollectionLabel() throws(KeychainFailure) -> String? {
        try read { (s: borrowing StoreSession) throws(KeychainFailure) -> String? in
            try Meta.blob(s.database, SecretItemSchema.labelMeta).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// Sets the Secret Service collection label (one write transaction; works while locked).
    /// - Parameter label: the new label; `nil` removes it.
    /// - Throws: the engine's write errors (`.io`, `.diskFull`, `.invalidKeychain`).
    package func setSecretCollectionLabel(_ label: String?) throws(KeychainFailure) {
        try write { (s: borrowing StoreSession) throws(KeychainFailure) in
            try Meta.set(s.database, SecretItemSchema.labelMeta, label.map { Array($0.utf8) })
        }
    }

    /// Every item number, ascending. Works while locked.
    package func secretItemNumbers() throws(KeychainFailure) -> [Int64] {
        try read { (s: borrowing StoreSession) throws(KeychainFailure) in try s.secretItemNumbers() }
    }

    /// SQLite's `PRAGMA data_version` of this connection: changes when another connection (another
    /// process, another `Keystore`) commits. Cheap: no transaction, no key.
    package func externalDataVersion() throws(KeychainFailure) -> Int64 {
        try session.withLock { (session: inout StoreSession) throws(KeychainFailure) -> Int64 in
            return try session.database.dataVersion()
        }
    }

    /// Checks the Secret Service rows only (also part of ``verifyIntegrity()``).
    /// - Returns: the number of Secret Service items.
    /// - Throws: `.decode` naming what does not match.
    package func verifySecretItems() throws(KeychainFailure) -> Int {
        try read { (s: borrowing StoreSession) throws(KeychainFailure) in try s.verifySecretItems() }
    }

    /// Seconds since the Unix epoch, now.
    package static func secondsNow() -> UInt64 { UInt64(max(0, AbsoluteTime.now.secondsSince1970)) }
}
