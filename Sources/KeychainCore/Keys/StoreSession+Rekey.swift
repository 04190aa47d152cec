/// What a password change or removal does to each kind of row (``RowKind``), in the change's own
/// transaction (``Keystore/setPassword(_:current:parameters:)``).
///
/// A change re-wraps the passcode slot's class keys (WhenUnlocked, AfterFirstUnlock, WhenPasscodeSet)
/// under the new password, and a removal moves them back to the device slot: their bytes stay the
/// same either way, so a row sealed under one of them (through its item key) opens as before and no
/// row is re-sealed. What differs per kind is what a removal deletes: the rows of the
/// WhenPasscodeSetThisDeviceOnly class, which exist only while a password is set (Apple Platform
/// Security, "Data Protection classes": that class's items are deleted when the passcode is turned
/// off). A new kind does not compile until it says here what it does.
extension StoreSession {
    /// Applies a password change (or, with `passwordRemoved`, its removal) to the rows of `kind`, after
    /// the class keys were re-wrapped.
    /// - Throws: file statuses as for every write.
    func rekeyRows(_ kind: RowKind, passwordRemoved: Bool) throws(KeychainFailure) {
        switch kind {
        case .secItem:
            // Item keys are wrapped by their row's class key: unchanged. A removal deletes the
            // WhenPasscodeSetThisDeviceOnly items (journaled and taken out of the accumulator by deleteRow).
            if passwordRemoved { try deleteAll(.whenPasscodeSetThisDeviceOnly) }
        case .secretService:
            // Every item key is wrapped by SecretItemSchema.protection's class key (WhenUnlocked), which is
            // re-wrapped with the others and kept in the device slot after a removal: every item stays.
            break
        case .sync:
            // Conflict copies are sealed under a synchronizable class's key (never ThisDeviceOnly) and sync
            // secrets under AfterFirstUnlockThisDeviceOnly's, which lives in the device slot: all stay.
            break
        }
    }

    /// How many rows of `kind` a password removal deletes (``rekeyRows(_:passwordRemoved:)``): it reads
    /// the protection-class column only, so it answers while the keychain is locked.
    /// - Throws: file statuses as for every read.
    func passcodeOnlyRowCount(_ kind: RowKind) throws(KeychainFailure) -> Int {
        switch kind {
        case .secItem:
            let select = try database.prepare("SELECT count(*) FROM items WHERE pdmn = ?")
            try select.bind([.integer(ProtectionClass.whenPasscodeSetThisDeviceOnly.code)])
            defer { select.finish() }
            guard try select.step() else { return 0 }
            return Int(select.int64(0))
        case .secretService, .sync:
            // Not rows of the WhenPasscodeSetThisDeviceOnly class (see rekeyRows).
            return 0
        }
    }
}
