internal import KeychainCore
internal import KeychainDBus

/// Finding, opening, creating and unlocking the keychain files behind ``KeychainSecretStore``'s collections.
extension KeychainSecretStore {
    // MARK: - Keychain files

    func location(_ name: String) -> KeychainLocation { Self.location(name, in: configuration) }

    /// The keychain `name` (without `.keychain-db`) in the folder of `configuration`.
    static func location(_ name: String, in configuration: Configuration) -> KeychainLocation {
        KeychainLocation(
            databasePath: configuration.directory + "/" + name + ".keychain-db",
            deviceKeyPath: configuration.deviceKeyPath)
    }

    /// The open keychain of `collection`; `nil` for the session collection and an unknown one. The last
    /// one found is kept (``lastKeychain``): one D-Bus call makes several store calls on one collection,
    /// and a client's calls name the same one in turn.
    func keychain(_ collection: CollectionID) -> Keychain? {
        if let last = lastKeychain, last.id == collection { return last.keychain }
        guard let found = keychains[collection] else { return nil }
        lastKeychain = (collection, found)
        return found
    }

    /// The collection of the keychain file at `path` (open or damaged), `nil` when none is.
    func keychainID(path: String?) -> CollectionID? {
        guard let path else { return nil }
        // Paths are unique, so the dictionary's own order finds the same one as ``order`` would, without
        // hashing each id (the `login` and `default` aliases resolve through this on every call).
        for (id, keychain) in keychains where keychain.path == path { return id }
        return damaged.first { $0.path == path }?.id
    }

    /// The default keychain's database path from `keychains.conf` (`default=`), or `nil`. The file is
    /// read again only when it changed (``KeychainPreferencesCache``: its inode, size or times).
    func defaultKeychainPath() -> String? {
        guard let value = preferences.current().defaultKeychain else { return nil }
        guard !value.contains("/") else { return value }
        return location(value.hasSuffix(".keychain-db") ? String(value.dropLast(".keychain-db".count)) : value)
            .databasePath
    }

    /// Opens keychains that appeared in the folder and forgets those whose file is gone. A file that
    /// fails to open is kept as a damaged keychain (KeychainSecretStore+Damaged.swift), tried again once
    /// it changes.
    func rescan(announce: Bool) {
        let names = (FileSystem.entries(configuration.directory) ?? [])
            .filter { $0.hasSuffix(".keychain-db") }.sorted()
        let paths = Set(names.map { configuration.directory + "/" + $0 })
        for id in order where !paths.contains(keychains[id]!.path) {
            keychains[id] = nil
            order.removeAll { $0 == id }
            if announce { changeHandler?(.collectionDeleted(id)) }
        }
        for keychain in damaged where !paths.contains(keychain.path) {
            damaged.removeAll { $0 === keychain }
            if announce { changeHandler?(.collectionDeleted(keychain.id)) }
        }
        let open = Set(order.compactMap { keychains[$0]?.path })
        for name in names {
            let path = configuration.directory + "/" + name
            guard !open.contains(path), damagedFileChanged(path) else { continue }
            let base = String(name.dropLast(".keychain-db".count))
            let wasDamaged = damaged.first { $0.path == path }?.id
            damaged.removeAll { $0.path == path }
            switch openKeychain(base, path: path) {
            case .success(let keychain):
                keychains[keychain.id] = keychain
                order.append(keychain.id)
                guard announce else { continue }
                if let wasDamaged, wasDamaged == keychain.id {
                    // Restored in place: the same object, now readable.
                    changeHandler?(.collectionChanged(keychain.id))
                } else {
                    if let wasDamaged { changeHandler?(.collectionDeleted(wasDamaged)) }
                    changeHandler?(.collectionCreated(keychain.id))
                }
            case .failure(let failure):
                _ = noteDamaged(base, path: path, reason: failure.description)
                guard announce, let id = damaged.last?.id, id != wasDamaged else { continue }
                if let wasDamaged { changeHandler?(.collectionDeleted(wasDamaged)) }
                changeHandler?(.collectionCreated(id))
            }
        }
    }

    func openKeychain(_ base: String, path: String) -> Result<Keychain, KeychainFailure> {
        let keystore: Keystore
        do {
            keystore = try Keystore(
                location: KeychainLocation(databasePath: path, deviceKeyPath: configuration.deviceKeyPath),
                create: false)
        } catch {
            return .failure(error)
        }
        var id = Self.collectionID(for: base)
        var suffix = 2
        while keychains[id] != nil || damagedKeychain(id) != nil || id == MemorySecretStore.sessionCollection {
            id = CollectionID("\(Self.collectionID(for: base).rawValue)_\(suffix)")!
            suffix += 1
        }
        var created = Keystore.secondsNow()
        if let modified = FileSystem.modificationTime(path) {
            created = UInt64(max(0, modified.secondsSince1970))
        }
        let stored = (try? keystore.secretCollectionLabel()) ?? nil
        let keychain = Keychain(id: id, keystore: keystore, label: stored ?? base, created: created)
        keychain.locked = Self.isLocked(keystore)
        keychain.dataVersion = (try? keystore.externalDataVersion()) ?? 0
        if let changes = try? keystore.secretItemChanges(after: 0) {
            for (number, serial) in changes.written { keychain.known[number] = serial }
            keychain.serial = changes.latestSerial
        }
        return .success(keychain)
    }

    func makeKeychain(label: String, password: SecureBytes?) throws(SecretStoreError) -> CollectionID {
        var base = String(
            String.UnicodeScalarView(
                label.unicodeScalars.prefix(64).map { scalar in
                    scalar.isASCII && isPathElementByte(UInt8(scalar.value)) ? scalar : "_"
                }))
        if base.isEmpty { base = "collection" }
        var candidate = base
        var suffix = 2
        while FileSystem.exists(location(candidate).databasePath)
            || candidate == MemorySecretStore.sessionCollection.rawValue
        {
            candidate = "\(base)_\(suffix)"
            suffix += 1
        }
        do {
            // Made with its password, it stays unlocked (``Keystore/setPassword(_:current:parameters:)``).
            _ = try Keystore.create(location: location(candidate), password: password, parameters: configuration.kdf)
        } catch {
            throw .invalidArgument("cannot create the keychain: \(error)")
        }
        let path = location(candidate).databasePath
        addToSearchList(path)
        rescan(announce: true)
        guard let id = keychainID(path: path) else { throw .failed("the new keychain \(path) cannot be opened") }
        if !label.isEmpty {
            try? keychains[id]?.keystore.setSecretCollectionLabel(label)
            keychains[id]?.label = label
        }
        return id
    }

    /// Adds a keychain made here to the search list in `keychains.conf`, as `security create-keychain`
    /// does (a list never set starts from the default keychain), so that `security` commands naming no
    /// keychain see its items. A preferences file that cannot be written leaves the list as it was.
    func addToSearchList(_ path: String) {
        var preferences = KeychainPreferences.load(path: configuration.preferencesPath)
        let current = preferences.searchList ?? [preferences.defaultKeychain ?? location("login").databasePath]
        guard !current.contains(path) else { return }
        preferences.searchList = current + [path]
        try? preferences.save(path: configuration.preferencesPath)
    }

    /// Asks for the keychain's password (``askPassword(_:for:label:)``) on the calling thread, then
    /// notes the lock state it left.
    /// - Returns: `false` when the user cancelled or gave 3 wrong passwords.
    /// - Throws: `.notSupported` naming why when no prompt can be shown; the engine's failures mapped.
    func askPassword(_ keychain: Keychain, for purpose: PasswordPurpose) throws(SecretStoreError) -> Bool {
        defer { refreshLock(keychain) }
        do {
            return try Self.askPassword(keychain.keystore, for: purpose, label: keychain.label)
        } catch  where error.status == .interactionNotAllowed {
            throw .notSupported("cannot ask for the keychain password: \(error)")
        } catch {
            throw Self.mapped(error)
        }
    }

    func refreshLock(_ keychain: Keychain) {
        refreshLock(keychain, locked: Self.isLocked(keychain.keystore))
    }

    /// Records a lock state read by the caller, reporting a change as ``pollExternalChanges()`` would.
    func refreshLock(_ keychain: Keychain, locked: Bool) {
        guard locked != keychain.locked else { return }
        keychain.locked = locked
        changeHandler?(.collectionChanged(keychain.id))
    }

    /// Maps an engine failure, and notices a lock it reveals.
    func observe(_ failure: KeychainFailure, _ keychain: Keychain) -> SecretStoreError {
        if failure.status == .interactionNotAllowed { refreshLock(keychain) }
        return Self.mapped(failure)
    }

    func info(_ keychain: Keychain) -> CollectionInfo {
        CollectionInfo(
            id: keychain.id, label: keychain.label, locked: keychain.locked, created: keychain.created,
            modified: keychain.modified)
    }

    static func isLocked(_ keystore: Keystore) -> Bool {
        switch try? keystore.lockState() {
        case .noPassword?, .unlocked?: false
        default: true
        }
    }

    static func collectionID(for base: String) -> CollectionID {
        let mapped = String(
            String.UnicodeScalarView(
                base.unicodeScalars.prefix(200).map { scalar in
                    scalar.isASCII && isPathElementByte(UInt8(scalar.value)) ? scalar : "_"
                }))
        return CollectionID(mapped) ?? CollectionID("keychain")!
    }

    /// The Secret Service error for an engine failure: locked, missing and bad input map to the spec's
    /// errors; what the engine could not do (I/O, a full disk, a damaged file, an integrity failure)
    /// to `Failed` with the engine's description, never to `NotSupported` (issue 24, item 6).
    static func mapped(_ failure: KeychainFailure) -> SecretStoreError {
        switch failure.status {
        case .interactionNotAllowed: .isLocked
        case .itemNotFound: .noSuchObject
        case .dataTooLarge, .param: .invalidArgument(failure.detail ?? failure.status.message)
        case .unimplemented: .notSupported("\(failure)")
        case .diskFull: .failed("\(failure); free space on that file system and try again")
        case .invalidKeychain:
            // Damage found in use (an inner page): the file and how to restore it, as at start.
            .failed(
                "\(failure)" + (DamagedFile.path(of: failure).map { ". The keychain's " + restoreAdvice($0) } ?? ""))
        default: .failed("\(failure)")
        }
    }
}
