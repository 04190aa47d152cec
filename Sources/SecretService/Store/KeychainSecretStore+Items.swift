package import KeychainCore

/// Items of keychain collections (``KeychainSecretStore``): the engine's Secret Service items.
extension KeychainSecretStore {
    // MARK: - Items

    package func items(in collection: CollectionID) throws(SecretStoreError) -> [ItemInfo] {
        if damagedKeychain(collection) != nil { return [] }
        guard let keychain = keychain(collection) else { return try memory.items(in: collection) }
        do { return try keychain.keystore.secretItems(matching: [:]).map(Self.info) } catch { throw Self.mapped(error) }
    }

    package func item(_ id: ItemID, in collection: CollectionID) throws(SecretStoreError) -> ItemInfo {
        guard let keychain = keychain(collection) else { return try memory.item(id, in: collection) }
        guard let number = Self.number(id) else { throw .noSuchObject }
        let found: SecretItem?
        do { found = try keychain.keystore.secretItem(number) } catch { throw Self.mapped(error) }
        guard let found else { throw .noSuchObject }
        return Self.info(found)
    }

    /// One read transaction: the item's metadata, and its secret when `allowed` accepts it.
    package func item(_ id: ItemID, in collection: CollectionID, secretIf allowed: (ItemInfo) -> Bool)
        throws(SecretStoreError) -> (info: ItemInfo, secret: StoredSecret?)
    {
        guard let keychain = keychain(collection) else {
            let info = try memory.item(id, in: collection)
            return (info, allowed(info) ? try secret(of: id, in: collection) : nil)
        }
        guard let number = Self.number(id) else { throw .noSuchObject }
        let found: (item: SecretItem, secret: SecretItemSecret?)?
        do {
            found = try keychain.keystore.secretItem(number) { item in allowed(Self.info(item)) }
        } catch {
            throw observe(error, keychain)
        }
        guard let found else { throw .noSuchObject }
        return (Self.info(found.item), found.secret)
    }

    /// One read transaction: the item's existence and the keychain's lock state (noticing a lock change
    /// as ``collection(_:)`` does).
    package func itemLocked(_ id: ItemID, in collection: CollectionID) -> Bool? {
        guard let keychain = keychain(collection) else {
            guard (try? memory.item(id, in: collection)) != nil else { return nil }
            return memory.collection(collection)?.locked ?? true
        }
        guard let number = Self.number(id),
            let read = try? keychain.keystore.secretItemAndLockState(number), read.item != nil
        else { return nil }
        refreshLock(keychain, locked: read.lockState != .noPassword && read.lockState != .unlocked)
        return keychain.locked
    }

    /// Item numbers from the keychain (no metadata is opened), ascending.
    package func itemIDs(in collection: CollectionID) throws(SecretStoreError) -> [ItemID] {
        if damagedKeychain(collection) != nil { return [] }
        guard let keychain = keychain(collection) else { return try memory.itemIDs(in: collection) }
        do { return try keychain.keystore.secretItemNumbers().map(Self.id) } catch { throw Self.mapped(error) }
    }

    /// Answered from the item numbers this store has seen (its own writes and the last poll); an
    /// unknown number is looked up in the keychain, so another process's new item resolves at once.
    package func hasItem(_ id: ItemID, in collection: CollectionID) -> Bool {
        guard let keychain = keychain(collection) else { return memory.hasItem(id, in: collection) }
        guard let number = Self.number(id) else { return false }
        if keychain.known[number] != nil { return true }
        return (try? keychain.keystore.secretItem(number)) != nil
    }

    package func search(_ attributes: [String: String], in collection: CollectionID?) -> [(CollectionID, ItemInfo)] {
        if let collection, keychain(collection) == nil { return memory.search(attributes, in: collection) }
        var found: [(CollectionID, ItemInfo)] = []
        for id in collection.map({ [$0] }) ?? order {
            guard let keychain = keychain(id), let items = try? keychain.keystore.secretItems(matching: attributes)
            else { continue }
            found += items.map { (id, Self.info($0)) }
        }
        if collection == nil { found += memory.search(attributes, in: nil) }
        return found
    }

    /// One read transaction per keychain: its matches and its lock state (noticing a lock change as
    /// ``collection(_:)`` does); then the memory store's.
    package func searchAll(_ attributes: [String: String]) -> [(
        collection: CollectionID, item: ItemInfo, locked: Bool
    )] {
        var found: [(collection: CollectionID, item: ItemInfo, locked: Bool)] = []
        for id in order {
            guard let keychain = keychain(id),
                let read = try? keychain.keystore.secretItemsAndLockState(matching: attributes)
            else { continue }
            if read.items.isEmpty { continue }
            refreshLock(keychain, locked: read.lockState != .noPassword && read.lockState != .unlocked)
            found += read.items.map { (id, Self.info($0), keychain.locked) }
        }
        var memoryLocked: [CollectionID: Bool] = [:]
        for (collection, item) in memory.search(attributes, in: nil) {
            let locked = memoryLocked[collection] ?? (memory.collection(collection)?.locked ?? true)
            memoryLocked[collection] = locked
            found.append((collection, item, locked))
        }
        return found
    }

    package func createItem(
        in collection: CollectionID, label: String, attributes: [String: String], secret: StoredSecret, replace: Bool,
        access: SecretItemAccess?
    ) throws(SecretStoreError) -> (id: ItemID, replaced: Bool) {
        try refuseIfDamaged(collection)
        guard let keychain = keychain(collection) else {
            return try memory.createItem(
                in: collection, label: label, attributes: attributes, secret: secret, replace: replace, access: access)
        }
        let result: (number: Int64, replaced: Bool, changes: SecretItemChanges)
        do {
            // The changes since the last serial seen are read in the write's own transaction.
            result = try keychain.keystore.createSecretItem(
                label: label, attributes: attributes,
                secret: secret, replace: replace, access: access, changesAfter: keychain.serial)
        } catch {
            throw observe(error, keychain)
        }
        syncItems(keychain, own: result.number, changes: result.changes)
        changeHandler?(
            result.replaced
                ? .itemChanged(collection, Self.id(result.number)) : .itemCreated(collection, Self.id(result.number)))
        return (Self.id(result.number), result.replaced)
    }

    package func secret(of item: ItemID, in collection: CollectionID) throws(SecretStoreError) -> StoredSecret {
        try refuseIfDamaged(collection)
        guard let keychain = keychain(collection) else { return try memory.secret(of: item, in: collection) }
        guard let number = Self.number(item) else { throw .noSuchObject }
        do {
            return try keychain.keystore.secretItemSecret(number)
        } catch {
            throw observe(error, keychain)
        }
    }

    package func setSecret(_ secret: StoredSecret, of item: ItemID, in collection: CollectionID)
        throws(SecretStoreError)
    {
        try refuseIfDamaged(collection)
        guard let keychain = keychain(collection) else {
            try memory.setSecret(secret, of: item, in: collection)
            return
        }
        guard let number = Self.number(item) else { throw .noSuchObject }
        do {
            try keychain.keystore.setSecretItemSecret(number, secret)
        } catch {
            throw observe(error, keychain)
        }
        syncItems(keychain, own: number)
        changeHandler?(.itemChanged(collection, item))
    }

    package func setLabel(_ label: String, of item: ItemID, in collection: CollectionID) throws(SecretStoreError) {
        try update(item, in: collection, label: label, attributes: nil)
    }

    package func setAttributes(_ attributes: [String: String], of item: ItemID, in collection: CollectionID)
        throws(SecretStoreError)
    {
        try update(item, in: collection, label: nil, attributes: attributes)
    }

    package func deleteItem(_ id: ItemID, in collection: CollectionID) throws(SecretStoreError) {
        try refuseIfDamaged(collection)
        guard let keychain = keychain(collection) else {
            try memory.deleteItem(id, in: collection)
            return
        }
        guard let number = Self.number(id) else { throw .noSuchObject }
        let existed: Bool
        do { existed = try keychain.keystore.deleteSecretItem(number) } catch { throw observe(error, keychain) }
        guard existed else { throw .noSuchObject }
        keychain.known[number] = nil
        keychain.ownDeletes += 1
        keychain.modified = Keystore.secondsNow()
        changeHandler?(.itemDeleted(collection, id))
    }

    // MARK: - Writing and change detection

    func update(_ item: ItemID, in collection: CollectionID, label: String?, attributes: [String: String]?)
        throws(SecretStoreError)
    {
        try refuseIfDamaged(collection)
        guard let keychain = keychain(collection) else {
            if let label { try memory.setLabel(label, of: item, in: collection) }
            if let attributes { try memory.setAttributes(attributes, of: item, in: collection) }
            return
        }
        guard let number = Self.number(item) else { throw .noSuchObject }
        do {
            try keychain.keystore.updateSecretItem(number, label: label, attributes: attributes)
        } catch {
            throw observe(error, keychain)
        }
        syncItems(keychain, own: number)
        changeHandler?(.itemChanged(collection, item))
    }

    /// Reads what was written since the last serial seen and reports other writers' changes (items
    /// created, changed, deleted). `own` is an item this process has just written: recorded silently,
    /// since its caller reports it.
    /// - Parameter changes: ``Keystore/secretItemChanges(after:)`` since ``Keychain/serial``, when the
    ///   caller read them in its write's transaction; read here otherwise.
    func syncItems(_ keychain: Keychain, own: Int64?, changes: SecretItemChanges? = nil) {
        guard let changes = changes ?? (try? keychain.keystore.secretItemChanges(after: keychain.serial)) else {
            return
        }
        // Every write and every delete advances the serial by one: when it advanced further than the rows
        // written since and this process's own deletions, another writer deleted something (or wrote a
        // row twice), and only then are the numbers listed (O(items)); otherwise this is O(changes).
        let mayHaveDeleted = changes.latestSerial - keychain.serial > Int64(changes.written.count) + keychain.ownDeletes
        keychain.ownDeletes = 0
        var reported: [SecretStoreChange] = []
        for (number, serial) in changes.written {
            let previous = keychain.known.updateValue(serial, forKey: number)
            if number == own || previous == serial { continue }
            reported.append(
                previous == nil
                    ? .itemCreated(keychain.id, Self.id(number)) : .itemChanged(keychain.id, Self.id(number)))
        }
        keychain.serial = changes.latestSerial
        if mayHaveDeleted, let numbers = try? keychain.keystore.secretItemNumbers() {
            keychain.numberListings += 1
            let present = Set(numbers)
            for number in keychain.known.keys where !present.contains(number) {
                keychain.known[number] = nil
                reported.append(.itemDeleted(keychain.id, Self.id(number)))
            }
        }
        if !reported.isEmpty || own != nil { keychain.modified = Keystore.secondsNow() }
        for change in reported { changeHandler?(change) }
    }

    // MARK: - Conversions

    static func info(_ item: SecretItem) -> ItemInfo {
        ItemInfo(
            id: id(item.number), label: item.label, attributes: item.attributes, created: item.created,
            modified: item.modified, access: item.access)
    }

    static func id(_ number: Int64) -> ItemID { ItemID(String(number))! }

    /// The item number an id names, `nil` unless the id is its canonical decimal form (``id(_:)``: no
    /// sign, no leading zero, above zero). Read by bytes: every call on an item converts its id, and
    /// `Int64(_:)` followed by `String(_:)` for the round trip cost several hundred instructions.
    static func number(_ id: ItemID) -> Int64? {
        var text = id.rawValue
        return text.withUTF8 { bytes -> Int64? in
            guard let first = bytes.first, first != UInt8(ascii: "0"), bytes.count <= 19 else { return nil }
            var value: Int64 = 0
            for byte in bytes {
                guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
                let (shifted, overflowed) = value.multipliedReportingOverflow(by: 10)
                let (sum, carried) = shifted.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
                guard !overflowed && !carried else { return nil }
                value = sum
            }
            return value
        }
    }
}
