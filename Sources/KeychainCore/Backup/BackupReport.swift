/// What ``Keystore/backup(to:passphrase:parameters:overwrite:)`` wrote.
package struct BackupReport: Sendable, Equatable, CustomStringConvertible {
    /// Items written to the backup, Secret Service items included.
    package var items: Int
    /// Of those, SecItem items that restore onto any installation.
    package var migratable: Int
    /// Of those, ThisDeviceOnly items, which restore only onto this installation.
    package var deviceBound: Int
    /// WhenPasscodeSetThisDeviceOnly items left out: Apple never backs this class up.
    package var excludedWhenPasscodeSet: Int
    /// Secret Service items written (they restore onto any installation).
    package var secretServiceItems = 0
    /// Size of the backup file in bytes.
    package var bytes: Int
    /// ThisDeviceOnly items left out because they belong to another installation's device key and
    /// cannot be opened here (see ``Keystore/unlock(password:)``).
    package var unreadableThisDeviceOnly = 0

    package var description: String {
        var text = "backed up \(items) items (\(migratable) migratable, \(deviceBound) bound to this installation"
        text += ", \(secretServiceItems) Secret Service items)"
        if excludedWhenPasscodeSet > 0 {
            text += "; \(excludedWhenPasscodeSet) WhenPasscodeSetThisDeviceOnly items are never backed up"
        }
        if unreadableThisDeviceOnly > 0 {
            text +=
                "; \(unreadableThisDeviceOnly) ThisDeviceOnly items left out: they belong to another installation and cannot be read here"
        }
        return text
    }
}

/// What ``Keystore/restore(from:passphrase:policy:)`` did.
package struct RestoreReport: Sendable, Equatable, CustomStringConvertible {
    /// Items the backup holds, Secret Service items included.
    package var itemsInBackup = 0
    /// Of those, Secret Service items.
    package var secretServiceItems = 0
    /// Items stored, including ``replaced``.
    package var restored = 0
    /// Items stored in place of an existing item with the same primary key (policy `.replace`).
    package var replaced = 0
    /// Items not stored because an item with the same primary key exists (policy `.skip`).
    package var skippedExisting = 0
    /// ThisDeviceOnly items not stored because the backup was made on another installation.
    package var skippedThisDeviceOnly = 0
    /// Restored items that got a new persistent reference because another item held theirs.
    package var reassignedReferences = 0
    /// WhenPasscodeSetThisDeviceOnly items the source keychain had, which were never in the backup.
    package var excludedFromBackup = 0

    package init() {}

    package var description: String {
        var parts = ["restored \(restored) of \(itemsInBackup) items"]
        if replaced > 0 { parts.append("\(replaced) replaced existing items") }
        if skippedExisting > 0 { parts.append("\(skippedExisting) skipped because they already exist") }
        if skippedThisDeviceOnly > 0 {
            parts.append(
                "\(skippedThisDeviceOnly) ThisDeviceOnly items skipped: the backup comes from another installation")
        }
        if reassignedReferences > 0 { parts.append("\(reassignedReferences) got a new persistent reference") }
        return parts.joined(separator: "; ")
    }
}
