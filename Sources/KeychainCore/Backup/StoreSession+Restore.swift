/// Storing items that already have a history: restored from a backup or imported from a file.
///
/// Unlike ``StoreSession/add(_:attributes:secret:now:)``, the item keeps the creation and
/// modification dates and the persistent reference it comes with, and a primary-key clash is
/// settled by a ``ConflictPolicy`` instead of always failing.
extension StoreSession {
    /// What ``restore(_:attributes:secret:persistentRef:policy:now:)`` did with one item.
    enum RestoreOutcome: Sendable, Equatable {
        /// Stored; no item had its primary key.
        case inserted
        /// Stored after deleting the item that had its primary key (policy `.replace`).
        case replaced
        /// Not stored: an item with its primary key exists (policy `.skip`).
        case skipped
    }

    /// Stores one item with its own dates and persistent reference.
    ///
    /// - Parameters:
    ///   - attributes: the item's attributes; missing primary-key attributes, `pdmn` and `sync`
    ///     take their defaults, a missing `cdat` or `mdat` becomes `now`.
    ///   - persistentRef: the reference to keep. A fresh one is made when it is `nil`, malformed,
    ///     or held by another item (one whose primary key differs); `reassignedReference` says so.
    ///   - policy: what to do when an item with the same primary key exists.
    /// - Returns: what was done, whether the reference was replaced, and the persistent reference stored (nil when
    ///   skipped).
    /// - Throws: `.duplicateItem` for a clash under `.fail`; `.interactionNotAllowed` when the class
    ///   key is locked; `.authFailed` for a WhenPasscodeSet item in a keychain without password;
    ///   `.dataTooLarge`; file statuses.
    func restore(
        _ itemClass: ItemClass, attributes input: [String: AttributeValue], secret: SecureBytes?,
        persistentRef: [UInt8]?, policy: ConflictPolicy, now: AbsoluteTime = .now
    ) throws(KeychainFailure) -> (outcome: RestoreOutcome, reassignedReference: Bool, stored: [UInt8]?) {
        var attributes = Self.normalized(itemClass, input)
        if attributes[.creationDate] == nil { attributes[.creationDate] = .date(now) }
        if attributes[.modificationDate] == nil { attributes[.modificationDate] = .date(now) }

        var outcome = RestoreOutcome.inserted
        if let existing = try rowIDAndTag(column: "pk", codec.primaryKeyDigest(itemClass, attributes)) {
            switch policy {
            case .skip: return (.skipped, false, nil)
            case .fail:
                throw KeychainFailure(.duplicateItem, "an item with the same primary key is already in the keychain")
            case .replace:
                try deleteRow(existing.rowid, tag: existing.tag)
                outcome = .replaced
            }
        }

        let prefix = Array(itemClass.rawValue.utf8)
        var reference = persistentRef ?? []
        var reassigned = false
        let wellFormed = reference.count == prefix.count + 16 && reference.starts(with: prefix)
        var taken = false
        if wellFormed { taken = try rowIDAndTag(column: "persistref", reference) != nil }
        if !wellFormed || taken {
            reassigned = persistentRef != nil
            reference = prefix + Sodium.randomBytes(16)
        }
        try insert(itemClass, attributes: attributes, secret: secret, persistentRef: reference)
        return (outcome, reassigned, reference)
    }
}
