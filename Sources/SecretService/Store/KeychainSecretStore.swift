#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif
package import KeychainCore

/// A ``SecretStore`` whose collections are keychain files (issue 17, "Collections are keychains").
///
/// - Every `*.keychain-db` in the keychain folder (`$XDG_DATA_HOME/keychains`) is a collection, named
///   by its file name without the suffix (bytes outside `[A-Za-z0-9_]` become `_`): the login keychain
///   is `/org/freedesktop/secrets/collection/login`. The login keychain is created, without a
///   password, when it does not exist (as SecItem's first use does).
/// - Aliases: `login` is the login keychain; `default` the default keychain (`default=` in
///   `keychains.conf`, as `security default-keychain` sets it; the login keychain without one) unless
///   a client sets it; `session` the in-memory collection of ``MemorySecretStore``, never written.
/// - Items are the engine's Secret Service items (``SecretItem``), numbered for life: item paths are
///   `…/collection/<keychain>/<number>` in every process and across restarts.
/// - A collection is locked when its keychain is (the kernel keyring, so `security unlock-keychain`
///   in a terminal is seen). Unlocking asks the password through the project's prompter (pinentry;
///   `$KEYCHAIN_PINENTRY` names a scripted one in tests).
/// - Other processes' changes are found by ``pollExternalChanges()``: `PRAGMA data_version` per
///   keychain, then the rows written since the last serial seen, and the folder's file list.
///
/// Not `Sendable`: the provider's main context owns it.
package final class KeychainSecretStore: SecretStore {
    /// Where the store finds keychains and how it asks the user.
    package struct Configuration: Sendable {
        /// The keychain folder.
        package var directory: String
        /// The installation's device key.
        package var deviceKeyPath: String
        /// The tool preferences file (`keychains.conf`), for the default keychain.
        package var preferencesPath: String
        /// KDF parameters for keychains that `CreateCollection` makes.
        package var kdf: KDFParameters

        package init(directory: String, deviceKeyPath: String, preferencesPath: String, kdf: KDFParameters = .default) {
            self.directory = directory
            self.deviceKeyPath = deviceKeyPath
            self.preferencesPath = preferencesPath
            self.kdf = kdf
        }

        /// The user's folders, from `environment` (`XDG_DATA_HOME`, `XDG_STATE_HOME`, `XDG_CONFIG_HOME`,
        /// `HOME`); `KEYCHAIN_KDF=testing` selects ``KDFParameters/testing`` as the `security` tool does.
        package static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
            -> Configuration
        {
            let config =
                environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
                ?? (environment["HOME"] ?? FileSystem.homeDirectory()) + "/.config"
            return Configuration(
                directory: KeychainLocation.keychainDirectory(environment: environment),
                deviceKeyPath: KeychainLocation.defaultDeviceKeyPath(environment: environment),
                preferencesPath: config + "/swift-keychain/keychains.conf",
                kdf: environment["KEYCHAIN_KDF"] == "testing" ? .testing : .default)
        }
    }

    /// One keychain served as a collection, and what was last seen of it.
    private final class Keychain {
        let id: CollectionID
        let keystore: Keystore
        var label: String
        var locked: Bool
        let created: UInt64
        var modified: UInt64
        /// `PRAGMA data_version` when last looked at.
        var dataVersion: Int64
        /// The latest Secret Service serial processed.
        var serial: Int64
        /// Each known item's serial at its last write seen.
        var known: [Int64: Int64]

        init(id: CollectionID, keystore: Keystore, label: String, created: UInt64) {
            self.id = id
            self.keystore = keystore
            self.label = label
            self.created = created
            modified = created
            locked = true
            dataVersion = 0
            serial = 0
            known = [:]
        }

        var path: String { keystore.location.databasePath }
    }

    package var changeHandler: ((SecretStoreChange) -> Void)? {
        didSet { memory.changeHandler = changeHandler }
    }

    private let configuration: Configuration
    private let memory: MemorySecretStore
    private var keychains: [CollectionID: Keychain] = [:]
    private var order: [CollectionID] = []
    /// Aliases clients set (SetAlias); `nil` values remove a built-in alias.
    private var aliasOverrides: [String: CollectionID?] = [:]
    /// Files that failed to open, so that each poll does not retry (and report) them again.
    private var unusable: Set<String> = []

    /// Opens every keychain in the folder (creating the login keychain when absent).
    /// - Parameters:
    ///   - configuration: where the keychains are.
    ///   - memory: the in-memory store serving the `session` collection.
    package init(configuration: Configuration = .fromEnvironment(), memory: MemorySecretStore = MemorySecretStore()) {
        self.configuration = configuration
        self.memory = memory
        let login = location("login")
        if !FileSystem.exists(login.databasePath) { _ = try? Keystore(location: login, create: true) }
        rescan(announce: false)
    }

    package var holdsUnsavedData: Bool { memory.holdsUnsavedData || !aliasOverrides.isEmpty }

    // MARK: - Collections

    package func collections() -> [CollectionInfo] {
        order.compactMap { keychains[$0].map(info) } + memory.collections()
    }

    package func collection(_ id: CollectionID) -> CollectionInfo? {
        if let keychain = keychains[id] { return info(keychain) }
        return memory.collection(id)
    }

    package var externalChangePollSeconds: UInt32? { 1 }

    package func pollExternalChanges() {
        rescan(announce: true)
        for id in order {
            guard let keychain = keychains[id] else { continue }
            refreshLock(keychain)
            if let version = try? keychain.keystore.externalDataVersion(), version != keychain.dataVersion {
                keychain.dataVersion = version
                syncItems(keychain, own: nil)
            }
        }
    }

    package func aliasNames() -> [String] {
        var names = Set(["login", "default", "session"].filter { resolveAlias($0) != nil })
        for (name, target) in aliasOverrides { if target != nil { names.insert(name) } else { names.remove(name) } }
        return names.sorted()
    }

    package func resolveAlias(_ alias: String) -> CollectionID? {
        if let override = aliasOverrides[alias] { return override.flatMap { collection($0) != nil ? $0 : nil } }
        switch alias {
        case "login": return keychainID(path: location("login").databasePath)
        case "default": return keychainID(path: defaultKeychainPath()) ?? keychainID(path: location("login").databasePath)
        case "session": return memory.resolveAlias("session")
        default: return nil
        }
    }

    package func setAlias(_ alias: String, to collection: CollectionID?) throws(SecretStoreError) {
        if let collection, self.collection(collection) == nil { throw .noSuchObject }
        aliasOverrides[alias] = .some(collection)
    }

    /// Creates a keychain without a password (the prompt-driven ``createCollectionFromPrompt(label:)``
    /// asks for one).
    package func createCollection(label: String) throws(SecretStoreError) -> CollectionID {
        try makeKeychain(label: label, password: nil)
    }

    package var createCollectionNeedsPrompt: Bool { true }

    package func createCollectionFromPrompt(label: String) throws(SecretStoreError) -> CollectionID? {
        let name = label.isEmpty ? "collection" : label
        let first: SecureBytes
        do {
            first = try Prompters.current().requestPassword(
                PasswordPrompt(
                    title: "New keychain",
                    description: "An application wants to create a new keychain called “\(name)”. Choose its password.",
                    label: "Password:"))
        } catch where error.status == .userCanceled {
            return nil
        } catch {
            throw .notSupported("cannot ask for a password: \(error)")
        }
        return try makeKeychain(label: label, password: first)
    }

    package func deleteCollection(_ id: CollectionID) throws(SecretStoreError) {
        guard let keychain = keychains[id] else {
            try memory.deleteCollection(id)
            return
        }
        try? keychain.keystore.withdrawAllClassKeys()
        for suffix in ["", "-wal", "-shm"] { FileSystem.remove(keychain.path + suffix) }
        keychains[id] = nil
        order.removeAll { $0 == id }
        aliasOverrides = aliasOverrides.filter { $0.value != id }
        changeHandler?(.collectionDeleted(id))
    }

    package func deleteCollectionNeedsPrompt(_ id: CollectionID) -> Bool { keychains[id] != nil }

    package func deleteCollectionFromPrompt(_ id: CollectionID) throws(SecretStoreError) -> Bool {
        guard let keychain = keychains[id] else { return try memory.deleteCollectionFromPrompt(id) }
        // A keychain with a password is deleted only by someone who knows it.
        if (try? keychain.keystore.hasPassword()) == true {
            guard try askPassword(keychain, purpose: "delete") else { return false }
        }
        try deleteCollection(id)
        return true
    }

    package func setLabel(_ label: String, of collection: CollectionID) throws(SecretStoreError) {
        guard let keychain = keychains[collection] else {
            try memory.setLabel(label, of: collection)
            return
        }
        keychain.label = label
        keychain.modified = Keystore.secondsNow()
        changeHandler?(.collectionChanged(collection))
    }

    // MARK: - Locking

    package func unlockRequirement(_ id: CollectionID) throws(SecretStoreError) -> UnlockRequirement {
        guard let keychain = keychains[id] else { return try memory.unlockRequirement(id) }
        refreshLock(keychain)
        return keychain.locked ? .prompt : .none
    }

    /// Unlocks when already unlocked by other means; otherwise asks through the prompter.
    package func unlock(_ id: CollectionID) throws(SecretStoreError) {
        _ = try unlockFromPrompt(id)
    }

    package func unlockFromPrompt(_ id: CollectionID) throws(SecretStoreError) -> Bool {
        guard let keychain = keychains[id] else { return try memory.unlockFromPrompt(id) }
        return try askPassword(keychain, purpose: "unlock")
    }

    /// Asks through the prompter on the calling thread (the provider runs it on a worker thread) and
    /// unlocks the keychain; stops as soon as another process has unlocked it.
    package func backgroundUnlock(_ id: CollectionID) -> (@Sendable () -> Bool?)? {
        guard let keychain = keychains[id] else { return nil }
        let keystore = keychain.keystore
        let label = keychain.label
        return { Self.askUnlockPassword(keystore, label: label) }
    }

    /// Up to 3 pinentry attempts. - Returns: `true` once unlocked (by this or any process), `false` when
    /// the user cancelled or gave 3 wrong passwords, `nil` when no prompt could be shown.
    private static func askUnlockPassword(_ keystore: Keystore, label: String) -> Bool? {
        var retryMessage: String?
        for _ in 0..<3 {
            if !isLocked(keystore) { return true }
            let password: SecureBytes
            do {
                password = try Prompters.current().requestPassword(
                    PasswordPrompt(
                        title: "Unlock keychain",
                        description: "An application wants access to the keychain “\(label)”, but it is locked.",
                        label: "Password:", error: retryMessage))
            } catch where error.status == .userCanceled {
                return isLocked(keystore) ? false : true
            } catch {
                return nil
            }
            do {
                _ = try keystore.unlock(password: password)
                return true
            } catch where error.status == .authFailed {
                retryMessage = "Wrong password; try again."
            } catch {
                return nil
            }
        }
        return !isLocked(keystore)
    }

    package func lock(_ id: CollectionID) throws(SecretStoreError) {
        guard let keychain = keychains[id] else {
            try memory.lock(id)
            return
        }
        do { try keychain.keystore.lock() } catch { throw Self.mapped(error) }
        refreshLock(keychain)
        // A keychain without a password is always unlocked, like a device without a passcode.
        guard keychain.locked else { throw .notSupported("\(keychain.label) has no password and cannot be locked") }
    }

    // MARK: - Items

    package func items(in collection: CollectionID) throws(SecretStoreError) -> [ItemInfo] {
        guard let keychain = keychains[collection] else { return try memory.items(in: collection) }
        do { return try keychain.keystore.secretItems(matching: [:]).map(Self.info) } catch { throw Self.mapped(error) }
    }

    package func item(_ id: ItemID, in collection: CollectionID) throws(SecretStoreError) -> ItemInfo {
        guard let keychain = keychains[collection] else { return try memory.item(id, in: collection) }
        guard let number = Self.number(id) else { throw .noSuchObject }
        let found: SecretItem?
        do { found = try keychain.keystore.secretItem(number) } catch { throw Self.mapped(error) }
        guard let found else { throw .noSuchObject }
        return Self.info(found)
    }

    /// Item numbers from the keychain (no metadata is opened), ascending.
    package func itemIDs(in collection: CollectionID) throws(SecretStoreError) -> [ItemID] {
        guard let keychain = keychains[collection] else { return try memory.itemIDs(in: collection) }
        do { return try keychain.keystore.secretItemNumbers().map(Self.id) } catch { throw Self.mapped(error) }
    }

    /// Answered from the item numbers this store has seen (its own writes and the last poll); an
    /// unknown number is looked up in the keychain, so another process's new item resolves at once.
    package func hasItem(_ id: ItemID, in collection: CollectionID) -> Bool {
        guard let keychain = keychains[collection] else { return memory.hasItem(id, in: collection) }
        guard let number = Self.number(id) else { return false }
        if keychain.known[number] != nil { return true }
        return (try? keychain.keystore.secretItem(number)) != nil
    }

    package func search(_ attributes: [String: String], in collection: CollectionID?) -> [(CollectionID, ItemInfo)] {
        if let collection, keychains[collection] == nil { return memory.search(attributes, in: collection) }
        var found: [(CollectionID, ItemInfo)] = []
        for id in collection.map({ [$0] }) ?? order {
            guard let keychain = keychains[id], let items = try? keychain.keystore.secretItems(matching: attributes)
            else { continue }
            found += items.map { (id, Self.info($0)) }
        }
        if collection == nil { found += memory.search(attributes, in: nil) }
        return found
    }

    package func createItem(
        in collection: CollectionID, label: String, attributes: [String: String], secret: StoredSecret, replace: Bool
    ) throws(SecretStoreError) -> (id: ItemID, replaced: Bool) {
        guard let keychain = keychains[collection] else {
            return try memory.createItem(
                in: collection, label: label, attributes: attributes, secret: secret, replace: replace)
        }
        let result: (number: Int64, replaced: Bool)
        do {
            result = try keychain.keystore.createSecretItem(
                label: label, attributes: attributes,
                secret: SecretItemSecret(value: secret.value, contentType: secret.contentType), replace: replace)
        } catch {
            throw observe(error, keychain)
        }
        syncItems(keychain, own: result.number)
        changeHandler?(result.replaced ? .itemChanged(collection, Self.id(result.number)) : .itemCreated(collection, Self.id(result.number)))
        return (Self.id(result.number), result.replaced)
    }

    package func secret(of item: ItemID, in collection: CollectionID) throws(SecretStoreError) -> StoredSecret {
        guard let keychain = keychains[collection] else { return try memory.secret(of: item, in: collection) }
        guard let number = Self.number(item) else { throw .noSuchObject }
        do {
            let stored = try keychain.keystore.secretItemSecret(number)
            return StoredSecret(value: stored.value, contentType: stored.contentType)
        } catch {
            throw observe(error, keychain)
        }
    }

    package func setSecret(_ secret: StoredSecret, of item: ItemID, in collection: CollectionID)
        throws(SecretStoreError)
    {
        guard let keychain = keychains[collection] else {
            try memory.setSecret(secret, of: item, in: collection)
            return
        }
        guard let number = Self.number(item) else { throw .noSuchObject }
        do {
            try keychain.keystore.setSecretItemSecret(
                number, SecretItemSecret(value: secret.value, contentType: secret.contentType))
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
        guard let keychain = keychains[collection] else {
            try memory.deleteItem(id, in: collection)
            return
        }
        guard let number = Self.number(id) else { throw .noSuchObject }
        let existed: Bool
        do { existed = try keychain.keystore.deleteSecretItem(number) } catch { throw observe(error, keychain) }
        guard existed else { throw .noSuchObject }
        keychain.known[number] = nil
        keychain.modified = Keystore.secondsNow()
        changeHandler?(.itemDeleted(collection, id))
    }

    // MARK: - Private: items

    private func update(_ item: ItemID, in collection: CollectionID, label: String?, attributes: [String: String]?)
        throws(SecretStoreError)
    {
        guard let keychain = keychains[collection] else {
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
    private func syncItems(_ keychain: Keychain, own: Int64?) {
        guard let changes = try? keychain.keystore.secretItemChanges(after: keychain.serial) else { return }
        // Every write and every delete advances the serial by one: when it advanced further than the rows
        // written since, something was deleted (or written twice), and only then are the numbers listed.
        let mayHaveDeleted = changes.latestSerial - keychain.serial > Int64(changes.written.count)
        var reported: [SecretStoreChange] = []
        for (number, serial) in changes.written {
            let previous = keychain.known.updateValue(serial, forKey: number)
            if number == own || previous == serial { continue }
            reported.append(previous == nil ? .itemCreated(keychain.id, Self.id(number)) : .itemChanged(keychain.id, Self.id(number)))
        }
        keychain.serial = changes.latestSerial
        if mayHaveDeleted, let numbers = try? keychain.keystore.secretItemNumbers() {
            let present = Set(numbers)
            for number in keychain.known.keys where !present.contains(number) {
                keychain.known[number] = nil
                reported.append(.itemDeleted(keychain.id, Self.id(number)))
            }
        }
        if !reported.isEmpty || own != nil { keychain.modified = Keystore.secondsNow() }
        for change in reported { changeHandler?(change) }
    }

    // MARK: - Private: keychains

    private func location(_ name: String) -> KeychainLocation {
        KeychainLocation(
            databasePath: configuration.directory + "/" + name + ".keychain-db",
            deviceKeyPath: configuration.deviceKeyPath)
    }

    private func keychainID(path: String?) -> CollectionID? {
        guard let path else { return nil }
        return order.first { keychains[$0]?.path == path }
    }

    /// The default keychain's database path from `keychains.conf` (`default=`), or `nil`.
    private func defaultKeychainPath() -> String? {
        guard let data = FileManager.default.contents(atPath: configuration.preferencesPath) else { return nil }
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where line.hasPrefix("default=") {
            let value = String(line.dropFirst("default=".count))
            return value.contains("/") ? value : location(value.replacingOccurrences(of: ".keychain-db", with: "")).databasePath
        }
        return nil
    }

    /// Opens keychains that appeared in the folder and forgets those whose file is gone.
    private func rescan(announce: Bool) {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: configuration.directory)) ?? [])
            .filter { $0.hasSuffix(".keychain-db") }.sorted()
        let paths = Set(names.map { configuration.directory + "/" + $0 })
        for id in order where !paths.contains(keychains[id]!.path) {
            keychains[id] = nil
            order.removeAll { $0 == id }
            if announce { changeHandler?(.collectionDeleted(id)) }
        }
        let open = Set(order.compactMap { keychains[$0]?.path })
        for name in names {
            let path = configuration.directory + "/" + name
            guard !open.contains(path), !unusable.contains(path) else { continue }
            let base = String(name.dropLast(".keychain-db".count))
            guard let keychain = openKeychain(base, path: path) else {
                unusable.insert(path)
                continue
            }
            keychains[keychain.id] = keychain
            order.append(keychain.id)
            if announce { changeHandler?(.collectionCreated(keychain.id)) }
        }
    }

    private func openKeychain(_ base: String, path: String) -> Keychain? {
        guard
            let keystore = try? Keystore(
                location: KeychainLocation(databasePath: path, deviceKeyPath: configuration.deviceKeyPath), create: false)
        else { return nil }
        var id = Self.collectionID(for: base)
        var suffix = 2
        while keychains[id] != nil || id == MemorySecretStore.sessionCollection {
            id = CollectionID("\(Self.collectionID(for: base).rawValue)_\(suffix)")!
            suffix += 1
        }
        var created = Keystore.secondsNow()
        if let date = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date {
            created = UInt64(max(0, date.timeIntervalSince1970))
        }
        let keychain = Keychain(id: id, keystore: keystore, label: base, created: created)
        keychain.locked = Self.isLocked(keystore)
        keychain.dataVersion = (try? keystore.externalDataVersion()) ?? 0
        if let changes = try? keystore.secretItemChanges(after: 0) {
            for (number, serial) in changes.written { keychain.known[number] = serial }
            keychain.serial = changes.latestSerial
        }
        return keychain
    }

    private func makeKeychain(label: String, password: SecureBytes?) throws(SecretStoreError) -> CollectionID {
        var base = String(
            String.UnicodeScalarView(
                label.unicodeScalars.prefix(64).map { scalar in
                    scalar.isASCII && isPathElementByte(UInt8(scalar.value)) ? scalar : "_"
                }))
        if base.isEmpty { base = "collection" }
        var candidate = base
        var suffix = 2
        while FileSystem.exists(location(candidate).databasePath) || candidate == MemorySecretStore.sessionCollection.rawValue {
            candidate = "\(base)_\(suffix)"
            suffix += 1
        }
        do {
            let keystore = try Keystore.create(location: location(candidate), password: password, parameters: configuration.kdf)
            if let password { _ = try keystore.unlock(password: password) }
        } catch {
            throw .invalidArgument("cannot create the keychain: \(error)")
        }
        let path = location(candidate).databasePath
        rescan(announce: true)
        guard let id = keychainID(path: path) else { throw .notSupported("the new keychain cannot be opened") }
        if !label.isEmpty { keychains[id]?.label = label }
        return id
    }

    /// Asks for the keychain's password until it unlocks (3 attempts), or another process unlocks it.
    /// - Returns: `false` when the user cancelled.
    private func askPassword(_ keychain: Keychain, purpose: String) throws(SecretStoreError) -> Bool {
        var retryMessage: String?
        for _ in 0..<3 {
            refreshLock(keychain)
            if purpose == "unlock" && !keychain.locked { return true }
            let password: SecureBytes
            do {
                password = try Prompters.current().requestPassword(
                    PasswordPrompt(
                        title: purpose == "unlock" ? "Unlock keychain" : "Delete keychain",
                        description: purpose == "unlock"
                            ? "An application wants access to the keychain “\(keychain.label)”, but it is locked."
                            : "An application wants to delete the keychain “\(keychain.label)” and every item in it.",
                        label: "Password:", error: retryMessage))
            } catch where error.status == .userCanceled {
                return false
            } catch {
                throw .notSupported("cannot ask for the keychain password: \(error)")
            }
            do {
                _ = try keychain.keystore.unlock(password: password)
                refreshLock(keychain)
                return true
            } catch where error.status == .authFailed {
                retryMessage = "Wrong password; try again."
            } catch {
                throw Self.mapped(error)
            }
        }
        return false
    }

    private func refreshLock(_ keychain: Keychain) {
        let locked = Self.isLocked(keychain.keystore)
        guard locked != keychain.locked else { return }
        keychain.locked = locked
        changeHandler?(.collectionChanged(keychain.id))
    }

    /// Maps an engine failure, and notices a lock it reveals.
    private func observe(_ failure: KeychainFailure, _ keychain: Keychain) -> SecretStoreError {
        if failure.status == .interactionNotAllowed { refreshLock(keychain) }
        return Self.mapped(failure)
    }

    private func info(_ keychain: Keychain) -> CollectionInfo {
        CollectionInfo(
            id: keychain.id, label: keychain.label, locked: keychain.locked, created: keychain.created,
            modified: keychain.modified)
    }

    private static func isLocked(_ keystore: Keystore) -> Bool {
        switch try? keystore.lockState() {
        case .noPassword?, .unlocked?: false
        default: true
        }
    }

    private static func collectionID(for base: String) -> CollectionID {
        let mapped = String(
            String.UnicodeScalarView(
                base.unicodeScalars.prefix(200).map { scalar in
                    scalar.isASCII && isPathElementByte(UInt8(scalar.value)) ? scalar : "_"
                }))
        return CollectionID(mapped) ?? CollectionID("keychain")!
    }

    private static func mapped(_ failure: KeychainFailure) -> SecretStoreError {
        switch failure.status {
        case .interactionNotAllowed: .isLocked
        case .itemNotFound: .noSuchObject
        case .dataTooLarge, .param: .invalidArgument(failure.detail ?? failure.status.message)
        default: .notSupported("\(failure)")
        }
    }

    private static func info(_ item: SecretItem) -> ItemInfo {
        ItemInfo(
            id: id(item.number), label: item.label, attributes: item.attributes, created: item.created,
            modified: item.modified)
    }

    private static func id(_ number: Int64) -> ItemID { ItemID(String(number))! }

    private static func number(_ id: ItemID) -> Int64? {
        guard let number = Int64(id.rawValue), number > 0, String(number) == id.rawValue else { return nil }
        return number
    }
}
