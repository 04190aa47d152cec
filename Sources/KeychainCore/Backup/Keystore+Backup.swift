/// Encrypted backups of a whole keychain (tracker issue 6; format in docs/BACKUP-FORMAT.md).
///
/// Modelled on Apple's encrypted device backups (Apple Platform Security, "Keybags for Data
/// Protection"): migratable items move to any installation with the passphrase; ThisDeviceOnly
/// items stay bound to this installation's device key and restore only here;
/// WhenPasscodeSetThisDeviceOnly items are never backed up.
extension Keystore {
    // MARK: - Backup

    /// Writes every item of the keychain to an encrypted backup file: SecItem items and Secret
    /// Service items (label, attributes, dates, secret and content type), and the keychain's Secret
    /// Service collection label.
    ///
    /// Items are read with a cursor inside one read transaction (a consistent snapshot) and written
    /// one record at a time, so memory does not grow with the keychain. The file is created with
    /// mode 0600 next to `path` and appears there only when complete.
    ///
    /// ```swift
    /// let report = try keystore.backup(to: "/media/usb/keychain.swkcbackup", passphrase: passphrase)
    /// print(report)  // backed up 42 items (38 migratable, 2 bound to this installation, 2 Secret Service items)
    /// ```
    /// - Parameters:
    ///   - path: the backup file to create.
    ///   - passphrase: protects the backup (Argon2id with `parameters` and a fresh salt).
    ///   - parameters: Argon2id cost, stored in the backup's header.
    ///   - overwrite: replace an existing file at `path` (atomically); otherwise an existing file is an error.
    /// - Returns: the counts written.
    /// - Throws: `.param` for an empty passphrase or invalid parameters; `.duplicateItem` when `path`
    ///   exists and `overwrite` is false; `.interactionNotAllowed` when the keychain is locked (a
    ///   backup never leaves items out silently); `.allocate` when Argon2id cannot get its memory;
    ///   `.io`/`.diskFull` for file errors. Nothing is left at `path` after a failure.
    /// - Important: ThisDeviceOnly items are sealed a second time under a key derived from the device
    ///   key, which never goes into the backup. Losing the device key loses them, as on Apple devices.
    package func backup(
        to path: String, passphrase: SecureBytes, parameters: KDFParameters = .default, overwrite: Bool = false
    ) throws(KeychainFailure) -> BackupReport {
        guard passphrase.count > 0 else { throw KeychainFailure(.param, "the backup passphrase is empty") }
        guard parameters.isValid, parameters.opsLimit <= Sodium.passwordHashOpsLimitMax,
            UInt64(parameters.memLimit) <= min(BackupHeader.maximumMemLimit, Sodium.passwordHashMemLimitMax)
        else { throw KeychainFailure(.param, "invalid Argon2id parameters") }
        let file = try FileWriter(path: path, overwrite: overwrite)
        let salt = Sodium.randomBytes(Sodium.passwordSaltBytes)
        let keys = try BackupKeys.derive(passphrase: passphrase, salt: salt, parameters: parameters)
        let writer = try BackupStream.Writer(file: file, parameters: parameters, salt: salt, keys: keys)

        let (counts, unreadable) = try read {
            (s: borrowing StoreSession) throws(KeychainFailure) -> (BackupMessage.Counts, Int) in
            let bindingKey = BackupKeys.deviceBindingKey(deviceKey: try s.keys.boundDeviceKey(), salt: salt)
            try writer.write(BackupMessage.begin(created: .now, deviceCheck: BackupKeys.deviceCheck(bindingKey)))
            var counts = BackupMessage.Counts()
            var unreadable = 0
            // Every kind of row, so that a new kind does not compile until it says whether it travels.
            for kind in RowKind.allCases {
                switch kind {
                case .secItem:
                    unreadable = try s.forEachItem(include: { _, protection in
                        if protection == .whenPasscodeSetThisDeviceOnly {
                            counts.excluded += 1
                            return false
                        }
                        return true
                    }) { (record: StoredItem) throws(KeychainFailure) in
                        if record.protection.isMigratable {
                            try writer.write(try BackupMessage.item(record))
                            counts.migratable += 1
                            if let identity = try s.syncIdentity(reference: Array(record.persistentRef)) {
                                try writer.write(BackupMessage.syncIdentity(identity))
                            }
                        } else {
                            try writer.write(try BackupMessage.deviceBound(record, bindingKey: bindingKey))
                            counts.deviceBound += 1
                        }
                        counts.items += 1
                    }
                case .secretService:
                    // Secret Service items (and the collection's label) are the keychain's too: they travel with it.
                    if let label = try Meta.blob(s.database, SecretItemSchema.labelMeta) {
                        try writer.write(BackupMessage.collection(label: String(decoding: label, as: UTF8.self)))
                    }
                    try s.forEachSecretItem { (item: SecretItem, secret: SecretItemSecret) throws(KeychainFailure) in
                        try writer.write(BackupMessage.secretItem(item, secret))
                        if let identity = try s.syncIdentity(reference: SyncReference.secretItem(item.number).bytes) {
                            try writer.write(BackupMessage.syncIdentity(identity))
                        }
                        counts.secretService += 1
                        counts.items += 1
                    }
                case .sync:
                    // The rest of the sync tables is this device's view of the sync group (its device id, clock,
                    // tombstones, conflict copies, sealed sync secrets): never in a backup; a restored keychain
                    // joins the group as a new device. Each item's own identity travels with it (kind 7, above).
                    break
                }
            }
            try writer.write(BackupMessage.end(counts), final: true)
            return (counts, unreadable)
        }
        try file.commit()
        return BackupReport(
            items: Int(counts.items), migratable: Int(counts.migratable), deviceBound: Int(counts.deviceBound),
            excludedWhenPasscodeSet: Int(counts.excluded), secretServiceItems: Int(counts.secretService),
            bytes: file.bytesWritten, unreadableThisDeviceOnly: unreadable)
    }

    // MARK: - Restore

    /// Restores the items of an encrypted backup into this keychain, in one write transaction.
    ///
    /// The whole file is authenticated as it is read, record by record; any failure (a wrong
    /// passphrase, a flipped byte, a truncated or extended file, a conflict under `.fail`, a locked
    /// class) rolls everything back, so the keychain is either fully restored or untouched.
    /// Each item keeps its attributes, its creation and modification dates and, when free, its
    /// persistent reference. A Secret Service item keeps its label, attributes, dates, secret and
    /// content type and gets a new number (object path); its conflicts are with an item whose
    /// attribute set is equal. The collection label is set when the keychain has none (or, under
    /// `.replace`, always). ThisDeviceOnly items restore only onto the installation that made the
    /// backup; elsewhere they are skipped and counted. A synchronizable item keeps its sync identity
    /// (its id and version in the sync group, ``StoreSession/adoptRestoredSyncIdentity(_:reference:)``),
    /// so that restoring on a device that syncs does not give the other devices a second copy.
    ///
    /// ```swift
    /// let report = try keystore.restore(from: path, passphrase: passphrase, policy: .skip)
    /// print(report)  // restored 40 of 42 items; 2 ThisDeviceOnly items skipped: …
    /// ```
    /// - Parameters:
    ///   - path: the backup file.
    ///   - passphrase: the passphrase the backup was made with.
    ///   - policy: what to do with an item whose primary key is already in the keychain.
    /// - Returns: counts of what was restored and skipped.
    /// - Throws: `.authFailed` (-25293) for a wrong passphrase; `.decode` (-26275) for a file that is
    ///   not a backup, is damaged, altered, truncated or extended; `.wrongSecVersion` for a newer
    ///   format; `.duplicateItem` for a conflict under `.fail`; `.interactionNotAllowed` when a class
    ///   the backup needs is locked; `.io` when the file cannot be read.
    package func restore(
        from path: String, passphrase: SecureBytes, policy: ConflictPolicy = .skip
    ) throws(KeychainFailure) -> RestoreReport {
        try restore(Self.unlockBackup(at: path, passphrase: passphrase), policy: policy)
    }

    /// Reads a backup's header and checks its passphrase, before any keychain is opened: so that
    /// `security restore-keychain` with a wrong passphrase does not first create the login keychain.
    /// Runs Argon2id once; ``restore(_:policy:)`` then uses the derived keys.
    /// - Parameters:
    ///   - path: the backup file.
    ///   - passphrase: the passphrase the backup was made with.
    /// - Returns: the backup, ready for ``restore(_:policy:)``.
    /// - Throws: `.authFailed` (-25293) for a wrong passphrase; `.decode` (-26275) for a header that is
    ///   not a backup's; `.wrongSecVersion` for a newer format; `.allocate` when Argon2id cannot get its
    ///   memory; `.io` when the file cannot be read.
    package static func unlockBackup(at path: String, passphrase: SecureBytes) throws(KeychainFailure)
        -> UnlockedBackup
    {
        let (header, headerBytes) = try BackupStream.readHeader(path: path)
        let keys = try BackupKeys.derive(passphrase: passphrase, salt: header.salt, parameters: header.parameters)
        guard SecureBytes(copying: keys.keyCheck).constantTimeEquals(header.keyCheck) else {
            throw KeychainFailure(.authFailed, "the backup passphrase is not correct")
        }
        return UnlockedBackup(path: path, header: header, headerBytes: headerBytes, keys: keys)
    }

    /// Restores a backup whose passphrase ``unlockBackup(at:passphrase:)`` checked; otherwise as
    /// ``restore(from:passphrase:policy:)``, with the same errors but for the passphrase's.
    package func restore(_ backup: UnlockedBackup, policy: ConflictPolicy = .skip) throws(KeychainFailure)
        -> RestoreReport
    {
        let (path, header, headerBytes, keys) = (backup.path, backup.header, backup.headerBytes, backup.keys)
        return try write { (s: borrowing StoreSession) throws(KeychainFailure) -> RestoreReport in
            // Built inside the transaction so that a retried transaction starts from the first record.
            let reader = try BackupStream.Reader(path: path, expectedHeader: headerBytes, keys: keys)
            let bindingKey = BackupKeys.deviceBindingKey(deviceKey: try s.keys.boundDeviceKey(), salt: header.salt)
            let first = try reader.next()
            guard !first.final,
                case .begin(let deviceCheck) = try BackupMessage.parse(first.plaintext, version: header.version)
            else {
                throw KeychainFailure(.decode, "the backup does not start with its opening record")
            }
            let sameInstallation = SecureBytes(copying: BackupKeys.deviceCheck(bindingKey)).constantTimeEquals(
                deviceCheck)
            var report = RestoreReport()
            var seen = BackupMessage.Counts()
            var seenCollection = false
            let existingSecretItems = try s.secretItemHighWater()
            // The item record a sync identity may follow: its journal reference when it was stored, else nil.
            var identityTarget: [UInt8]??
            while true {
                let message = try reader.next()
                let parsed = try BackupMessage.parse(message.plaintext, version: header.version)
                var record: StoredItem?
                let target = identityTarget
                identityTarget = nil
                switch parsed {
                case .end(let counts) where message.final:
                    guard counts.items == seen.items, counts.migratable == seen.migratable,
                        counts.deviceBound == seen.deviceBound, counts.secretService == seen.secretService
                    else { throw KeychainFailure(.decode, "the backup's item counts do not match its records") }
                    try reader.expectEnd()
                    report.itemsInBackup = Int(counts.items)
                    report.excludedFromBackup = Int(counts.excluded)
                    report.secretServiceItems = Int(counts.secretService)
                    return report
                case .item(let item) where !message.final:
                    seen.migratable += 1
                    record = item
                case .deviceBound(let itemClass, let protection, let box) where !message.final:
                    seen.deviceBound += 1
                    if sameInstallation {
                        guard
                            let item = try BackupMessage.openDeviceBound(
                                itemClass, protection, box: box, bindingKey: bindingKey)
                        else {
                            throw KeychainFailure(.decode, "a ThisDeviceOnly record does not open with this device key")
                        }
                        record = item
                    } else {
                        report.skippedThisDeviceOnly += 1
                    }
                case .secretItem(let item, let secret) where !message.final:
                    seen.secretService += 1
                    seen.items += 1
                    let (outcome, number) = try s.restoreSecretItem(
                        item, secret, policy: policy, existing: existingSecretItems)
                    report.count(outcome)
                    identityTarget = .some(outcome == .inserted ? SyncReference.secretItem(number).bytes : nil)
                    continue
                case .syncIdentity(let identity) where !message.final:
                    guard let target else {
                        throw KeychainFailure(.decode, "the backup has a sync identity without its item")
                    }
                    if let target { try s.adoptRestoredSyncIdentity(identity, reference: target) }
                    continue
                case .collection(let label) where !message.final && !seenCollection:
                    seenCollection = true
                    // The target's own label wins unless the backup's replaces what exists.
                    let current = try Meta.blob(s.database, SecretItemSchema.labelMeta)
                    if policy == .replace || current == nil {
                        try Meta.set(s.database, SecretItemSchema.labelMeta, Array(label.utf8))
                    }
                    continue
                case .begin, .item, .deviceBound, .end, .secretItem, .collection, .syncIdentity:
                    throw KeychainFailure(.decode, "the backup's records are out of order")
                }
                seen.items += 1
                guard let record else { continue }
                let result = try s.restore(
                    record.itemClass, attributes: record.attributes, secret: record.secret,
                    persistentRef: Array(record.persistentRef), policy: policy)
                report.count(result.outcome)
                if result.reassignedReference { report.reassignedReferences += 1 }
                if record.protection.isMigratable { identityTarget = .some(result.stored) }
            }
        }
    }
}

extension RestoreReport {
    /// Counts what restoring one item did.
    fileprivate mutating func count(_ outcome: StoreSession.RestoreOutcome) {
        switch outcome {
        case .inserted: restored += 1
        case .replaced:
            restored += 1
            replaced += 1
        case .skipped: skippedExisting += 1
        }
    }
}
