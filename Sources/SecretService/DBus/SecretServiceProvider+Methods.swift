internal import CGIO
internal import KeychainCore
internal import KeychainDBus

extension SecretServiceProvider {
    // MARK: - Dispatch

    /// Answers one call on any exported object.
    func handle(_ call: MethodCall) {
        activityHandler?()
        defer {
            // A switch, not `contains` on an array literal, which allocated the array for every call.
            switch call.method {
            case "SetAlias", "CreateCollection", "Prompt": syncAliasSubtrees()
            default: break
            }
        }
        do {
            let caller = try caller(of: call)
            call.reply(try route(call, caller))
        } catch is PromptAnswered {
            return
        } catch let failure as DBusFailure {
            call.fail(failure)
        } catch {
            call.fail(.failed("\(error)"))
        }
    }

    /// The caller of `call`, cached per connection (``CallerRegistry``).
    /// - Throws: `org.freedesktop.DBus.Error.AccessDenied` for a connection of another Unix user, or one
    ///   whose process cannot be identified (it exited or its pid was reused while being read).
    func caller(of call: MethodCall) throws(DBusFailure) -> Caller {
        do {
            return try callers.caller(call.sender, on: connection)
        } catch {
            throw DBusFailure.accessDenied("\(error)")
        }
    }

    private func route(_ call: MethodCall, _ caller: Caller) throws -> [OpaquePointer] {
        guard let object = resolve(call.path) else { throw DBusFailure.noSuchObject(call.path) }
        switch (object, call.method) {
        case (.service, "OpenSession"): return try openSession(call)
        case (.service, "CreateCollection"): return try createCollection(call)
        case (.service, "SearchItems"): return try searchService(call, caller)
        case (.service, "Unlock"): return try unlock(call, caller)
        case (.service, "Lock"): return try lock(call)
        case (.service, "GetSecrets"): return try getSecrets(call, caller)
        case (.service, "ReadAlias"): return readAlias(call)
        case (.service, "SetAlias"): return try setAlias(call)
        case (.collection(let id), "Delete"):
            if store.deleteCollectionNeedsPrompt(id) {
                let promptPath = addPrompt(
                    owner: call.sender,
                    complete: { [unowned self] in
                        (try? self.store.deleteCollectionFromPrompt(id)) == true ? Variant.objectPaths([]) : nil
                    },
                    dismissed: { Variant.objectPaths([]) },
                    background: store.backgroundDeleteCollection(id).map { work in
                        { [unowned self] promptID, finish in
                            self.startBackgroundQuestion(promptID, ask: work.ask, finish: finish) { answer in
                                guard answer == true, (try? work.apply()) != nil else { return nil }
                                return Variant.objectPaths([])
                            }
                        }
                    })
                return [Variant.objectPath(promptPath)]
            }
            return try storeCall(call) { () throws(SecretStoreError) in try store.deleteCollection(id) }
        case (.collection(let id), "SearchItems"): return try searchCollection(call, id, caller)
        case (.collection(let id), "CreateItem"): return try createItem(call, id, caller)
        case (.item(let collection, let item), "Delete"):
            return try withAccess(call, caller, items: [(collection, item)], single: true) { [unowned self] _ in
                try self.storeCall(call) { () throws(SecretStoreError) in
                    try self.store.deleteItem(item, in: collection)
                }
            }
        case (.item(let collection, let item), "GetSecret"):
            if let reply = try getSecretInOneRead(call, caller, item, collection) { return reply }
            return try withAccess(call, caller, items: [(collection, item)], single: true) { [unowned self] _ in
                try self.getSecret(call, item, collection)
            }
        case (.item(let collection, let item), "SetSecret"):
            return try withAccess(call, caller, items: [(collection, item)], single: true) { [unowned self] _ in
                try self.setSecret(call, item, collection)
            }
        case (.session(let id), "Close"):
            try ownedSession(call.path, id: id, sender: call.sender)
            closeSession(id)
            return []
        case (.prompt(let id), "Prompt"): return try runPrompt(call, id, dismiss: false)
        case (.prompt(let id), "Dismiss"): return try runPrompt(call, id, dismiss: true)
        default:
            throw DBusFailure(
                name: "org.freedesktop.DBus.Error.UnknownMethod", message: "No method \(call.method) here")
        }
    }

    /// Runs a store operation that answers with prompt `/`.
    func storeCall(_ call: MethodCall, _ body: () throws(SecretStoreError) -> Void) throws -> [OpaquePointer] {
        do { try body() } catch { throw DBusFailure(error, path: call.path) }
        return [Variant.objectPath("/")]
    }

    // MARK: - Service

    /// `OpenSession(s algorithm, v input) → (v output, o result)` (spec: Service.OpenSession).
    /// `plain` takes any input and answers `""`; the DH algorithm takes the client's public key (`ay`)
    /// and answers this side's. Other algorithms: `org.freedesktop.DBus.Error.NotSupported`.
    private func openSession(_ call: MethodCall) throws -> [OpaquePointer] {
        let algorithmName = Variant.withChild(call.parameters, 0, Variant.readString)
        // Clients may open a session per secret and never close them (python secretstorage does, for
        // items found without one), so a connection at the limit loses its least recently used session
        // instead of being refused; the memory a connection holds stays bounded.
        let owned = sessions.values.filter { $0.owner == call.sender }
        if owned.count >= Limits.sessionsPerConnection,
            let stalest = owned.min(by: { (sessionUse[$0.id] ?? 0) < (sessionUse[$1.id] ?? 0) })
        {
            closeSession(stalest.id)
        }
        let input = Variant.withChild(call.parameters, 1) { g_variant_get_variant($0)! }
        defer { g_variant_unref(input) }
        let algorithm: TransportSession.Algorithm
        let output: OpaquePointer
        guard sessionAlgorithms.contains(algorithmName) else {
            throw DBusFailure.notSupported("unsupported session algorithm \(algorithmName)")
        }
        switch algorithmName {
        case TransportSession.plainName:
            algorithm = .plain
            output = Variant.string("")
        case TransportSession.dhName:
            guard Variant.isOfType(input, "ay") else {
                throw DBusFailure.invalidArgs("the input must be a public key (ay)")
            }
            do {
                let agreement = try DHIETF1024KeyAgreement()
                let key = try Variant.withBytes(input) { (peer) throws(SessionCryptoError) in
                    try agreement.sessionKey(peerPublicKey: peer)
                }
                algorithm = .dhAES(key: key)
                output = Variant.bytes(agreement.publicKey)
            } catch .invalidPublicKey {
                throw DBusFailure.invalidArgs("invalid public key: \(SessionCryptoError.invalidPublicKey)")
            } catch {
                throw DBusFailure.failed("\(error)")
            }
        default:
            throw DBusFailure.notSupported("unsupported session algorithm \(algorithmName)")
        }
        let id = String(nextSession)
        nextSession += 1
        sessions[id] = TransportSession(id: id, owner: call.sender, algorithm: algorithm)
        touchSession(id)
        return [Variant.boxed(output), Variant.objectPath("\(Self.sessionPrefix)/\(id)")]
    }

    /// `CreateCollection(a{sv} properties, s alias) → (o collection, o prompt)`. An alias that already
    /// names a collection returns that collection (spec: Service.CreateCollection).
    private func createCollection(_ call: MethodCall) throws -> [OpaquePointer] {
        let alias = Variant.withChild(call.parameters, 1, Variant.readString)
        guard alias.isEmpty || CollectionID(alias) != nil else { throw DBusFailure.invalidArgs("invalid alias name") }
        if !alias.isEmpty, let existing = store.resolveAlias(alias) {
            return [Variant.objectPath(collectionPath(existing)), Variant.objectPath("/")]
        }
        let properties = Variant.withChild(call.parameters, 0, Variant.readVariantMap)
        defer { Variant.release(properties) }
        var label = ""
        if let value = properties["org.freedesktop.Secret.Collection.Label"] {
            guard Variant.isOfType(value, "s") else { throw DBusFailure.invalidArgs("Label must be a string") }
            label = try checkedLabel(Variant.readString(value))
        }
        if store.createCollectionNeedsPrompt {
            // A keychain: its password is asked when the client runs the prompt.
            let promptPath = addPrompt(
                owner: call.sender,
                complete: { [unowned self] in
                    guard let id = try? self.store.createCollectionFromPrompt(label: label) else { return nil }
                    if !alias.isEmpty { try? self.store.setAlias(alias, to: id) }
                    return Variant.objectPath(self.collectionPath(id))
                },
                dismissed: { Variant.objectPath("/") },
                background: store.backgroundCreateCollection(label: label).map { work in
                    // The password is asked on a worker thread; the keychain is made here afterwards.
                    { [unowned self] promptID, finish in
                        self.startBackgroundQuestion(promptID, ask: work.ask, finish: finish) { answer in
                            guard answer == true, let id = try? work.apply() else { return nil }
                            if !alias.isEmpty { try? self.store.setAlias(alias, to: id) }
                            return Variant.objectPath(self.collectionPath(id))
                        }
                    }
                })
            return [Variant.objectPath("/"), Variant.objectPath(promptPath)]
        }
        do {
            let id = try store.createCollection(label: label)
            if !alias.isEmpty { try store.setAlias(alias, to: id) }
            return [Variant.objectPath(collectionPath(id)), Variant.objectPath("/")]
        } catch {
            throw DBusFailure(error, path: call.path)
        }
    }

    /// `SearchItems(a{ss}) → (ao unlocked, ao locked)`: items of locked collections are listed as locked.
    /// Each collection's lock state is read once per call, as it is now (a client that is told "unlocked"
    /// asks `GetSecrets` at once, without `Unlock`, and gets nothing if another process locked it since).
    private func searchService(_ call: MethodCall, _ caller: Caller) throws -> [OpaquePointer] {
        let query = try Variant.withChild(call.parameters, 0, checkedAttributes)
        var unlocked: [String] = [], locked: [String] = []
        // A keychain's matches and its lock state come from one read transaction.
        for found in store.searchAll(query) where lists(found.item, to: caller) {
            if found.locked {
                locked.append(itemPath(found.item.id, in: found.collection))
            } else {
                unlocked.append(itemPath(found.item.id, in: found.collection))
            }
        }
        if unlocked.isEmpty && locked.isEmpty { try refuseEmptySearch(call, in: nil) }
        return [Variant.objectPaths(unlocked), Variant.objectPaths(locked)]
    }

    /// Fails an empty search that included a damaged keychain (`collection`, or any when `nil`) with
    /// the keychain's reason, logged: libsecret reports a failed `SearchItems`, while empty lists mean
    /// "no such item", so `secret-tool lookup`, `search` and `clear` would exit 1 saying nothing
    /// (tracker issue 24). A search that finds items elsewhere answers them.
    private func refuseEmptySearch(_ call: MethodCall, in collection: CollectionID?) throws {
        guard let keychains = store as? KeychainSecretStore,
            let damaged = keychains.damaged.first(where: { collection == nil || $0.id == collection })
        else { return }
        do { try keychains.refuseIfDamaged(damaged.id) } catch { throw DBusFailure(error, path: call.path) }
    }

    /// Collections named by paths of collections, aliases or items; unknown paths are skipped.
    private func collections(of paths: [String]) -> [(path: String, id: CollectionID)] {
        paths.compactMap { path in
            switch resolve(path) {
            case .collection(let id), .item(let id, _): (path, id)
            default: nil
            }
        }
    }

    /// `Unlock(ao objects) → (ao unlocked, o prompt)`: objects already unlocked come back at once; the
    /// others through a prompt, or prompt `/` when there are none (spec: Service.Unlock). An item of an
    /// unlocked collection whose access list does not name the caller is asked about first, as a read
    /// is (issue 27): "Deny" leaves it out of `unlocked`, "Allow" lets this client use it until it leaves
    /// the bus, "Always Allow" adds the client to its list.
    private func unlock(_ call: MethodCall, _ caller: Caller) throws -> [OpaquePointer] {
        let paths = Variant.withChild(call.parameters, 0, Variant.readStrings)
        var items: [(CollectionID, ItemID)] = []
        for path in paths {
            guard case .item(let collection, let item) = resolve(path),
                (try? store.unlockRequirement(collection)) == UnlockRequirement.none
            else { continue }
            items.append((collection, item))
        }
        guard !items.isEmpty else { return try unlockCollections(call, paths) }
        return try withAccess(call, caller, items: items, single: false, remember: true) { [unowned self] granted in
            let refused = Set(items.map { Self.grantKey($0.0, $0.1) }).subtracting(
                granted.map { Self.grantKey($0.0, $0.1) })
            return try self.unlockCollections(
                call,
                paths.filter { path in
                    guard case .item(let collection, let item) = self.resolve(path) else { return true }
                    return !refused.contains(Self.grantKey(collection, item))
                })
        }
    }

    /// `Unlock` of `paths` once the caller may use their items: collections and items of collections
    /// that are unlocked come back at once, the others through a prompt.
    private func unlockCollections(_ call: MethodCall, _ paths: [String]) throws -> [OpaquePointer] {
        var unlocked: [String] = [], pending: [(path: String, id: CollectionID)] = []
        for target in collections(of: paths) {
            do {
                switch try store.unlockRequirement(target.id) {
                case .none: unlocked.append(target.path)
                case .prompt: pending.append(target)
                }
            } catch .failed(let message) {
                // A keychain that cannot be unlocked at all (a damaged file): the caller learns why.
                throw DBusFailure.failed(message)
            } catch {
                continue
            }
        }
        guard !pending.isEmpty else { return [Variant.objectPaths(unlocked), Variant.objectPath("/")] }
        let promptPath = addPrompt(
            owner: call.sender,
            complete: { [unowned self] in
                var done: [String] = []
                for target in pending {
                    switch Result(catching: { () throws(SecretStoreError) in try self.store.unlockFromPrompt(target.id)
                    })
                    {
                    case .success(true): done.append(target.path)
                    case .success(false): if done.isEmpty { return nil }  // dismissed
                    case .failure(.notSupported(let reason)):
                        // No prompter can be shown at all: dismissed, and the log says why.
                        self.logNoPrompter(reason)
                        if done.isEmpty { return nil }
                    case .failure: continue
                    }
                }
                return Variant.objectPaths(done)
            },
            dismissed: { Variant.objectPaths([]) },
            background: backgroundUnlockStarter(pending))
        return [Variant.objectPaths(unlocked), Variant.objectPath(promptPath)]
    }

    /// When every pending collection's store can ask in the background: starts that work on a worker
    /// thread and completes the prompt when the work ends or when all of them are unlocked by other means
    /// (then its pinentry closes).
    private func backgroundUnlockStarter(_ pending: [(path: String, id: CollectionID)])
        -> ((String, @escaping (OpaquePointer?) -> Void) -> Void)?
    {
        let work = pending.compactMap { store.backgroundUnlock($0.id) }
        guard work.count == pending.count else { return nil }
        return { [unowned self] promptID, finish in
            let job = BackgroundPrompt(work: work)
            var finished = false
            let unlockedPaths = { [unowned self] in
                pending.filter { (try? self.store.unlockRequirement($0.id)) == UnlockRequirement.none }.map(\.path)
            }
            job.onPoll = { [cancellation = job.cancellation] in
                let done = unlockedPaths()
                guard !finished, done.count == pending.count else { return finished }
                finished = true
                // Unlocked by other means: the question is moot, so its pinentry closes.
                cancellation.cancel()
                finish(Variant.objectPaths(done))
                return true
            }
            job.onResults = { answers in
                guard !finished else { return }
                finished = true
                let done = unlockedPaths()
                // No prompter could be shown (`nil`): logged once, and dismissed like a cancel.
                if answers.contains(nil) { self.logNoPrompter(nil) }
                // Dismissed when nothing got unlocked and the user cancelled or could not be asked.
                if done.isEmpty && (answers.contains(false) || answers.contains(nil)) {
                    finish(nil)
                } else {
                    finish(Variant.objectPaths(done))
                }
            }
            backgroundPrompts[promptID] = job
            job.start()
        }
    }

    /// Logs, once per process, that an unlock prompt could not be shown and completed as dismissed
    /// (issue 24, item 4: Seahorse's "Unlock" otherwise did nothing without a word).
    func logNoPrompter(_ reason: String?) {
        guard !loggedNoPrompter else { return }
        loggedNoPrompter = true
        SecretServiceDaemon.printError(
            "keychain-secret-service: cannot show a password prompt (\(reason ?? "no pinentry could be started")); "
                + "unlock prompts complete as dismissed. A graphical pinentry needs DISPLAY or WAYLAND_DISPLAY in "
                + "the D-Bus activation environment (dbus-update-activation-environment --systemd DISPLAY "
                + "WAYLAND_DISPLAY); in a terminal, run security unlock-keychain")
    }

    /// `Lock(ao objects) → (ao locked, o prompt)`: never prompts.
    private func lock(_ call: MethodCall) throws -> [OpaquePointer] {
        let paths = Variant.withChild(call.parameters, 0, Variant.readStrings)
        var locked: [String] = []
        for target in collections(of: paths) where (try? store.lock(target.id)) != nil { locked.append(target.path) }
        return [Variant.objectPaths(locked), Variant.objectPath("/")]
    }

    /// `GetSecrets(ao items, o session) → a{o(oayays)}`: locked and unknown items are left out.
    private func getSecrets(_ call: MethodCall, _ caller: Caller) throws -> [OpaquePointer] {
        let paths = Variant.withChild(call.parameters, 0, Variant.readStrings)
        let sessionPath = Variant.withChild(call.parameters, 1, Variant.readString)
        _ = try usableSession(sessionPath, sender: call.sender)
        var items: [(CollectionID, ItemID)] = [], pathOf: [String: String] = [:]
        var seen: Set<String> = []
        for path in paths where seen.insert(path).inserted {
            guard case .item(let collection, let item) = resolve(path) else { continue }
            items.append((collection, item))
            pathOf["\(collection.rawValue)/\(item.rawValue)"] = path
        }
        return try withAccess(call, caller, items: items, single: false) { [unowned self] granted in
            // The session is looked up again: it may have closed while the user was asked.
            let session = try self.usableSession(sessionPath, sender: call.sender)
            var entries: [OpaquePointer] = []
            for (collection, item) in granted {
                guard let path = pathOf["\(collection.rawValue)/\(item.rawValue)"],
                    let secret = try? self.store.secret(of: item, in: collection)
                else { continue }
                entries.append(
                    Variant.dictEntry(
                        Variant.objectPath(path), try self.encodedSecret(secret, session, path: sessionPath)))
            }
            return [Variant.array("{o(oayays)}", entries)]
        }
    }

    /// `ReadAlias(s) → o`: `/` when the alias names nothing.
    private func readAlias(_ call: MethodCall) -> [OpaquePointer] {
        let name = Variant.withChild(call.parameters, 0, Variant.readString)
        return [Variant.objectPath(store.resolveAlias(name).map(collectionPath) ?? "/")]
    }

    /// `SetAlias(s name, o collection)`: `/` removes the alias.
    private func setAlias(_ call: MethodCall) throws -> [OpaquePointer] {
        let name = Variant.withChild(call.parameters, 0, Variant.readString)
        let path = Variant.withChild(call.parameters, 1, Variant.readString)
        guard CollectionID(name) != nil else { throw DBusFailure.invalidArgs("invalid alias name") }
        do {
            if path == "/" {
                try store.setAlias(name, to: nil)
            } else {
                guard case .collection(let id) = resolve(path) else { throw DBusFailure.noSuchObject(path) }
                try store.setAlias(name, to: id)
            }
        } catch let error as SecretStoreError {
            throw DBusFailure(error, path: path)
        }
        return []
    }

    // MARK: - Collection

    /// `SearchItems(a{ss}) → ao`: every matching item of the collection, locked or not.
    private func searchCollection(_ call: MethodCall, _ id: CollectionID, _ caller: Caller) throws -> [OpaquePointer] {
        let query = try Variant.withChild(call.parameters, 0, checkedAttributes)
        let found = store.search(query, in: id).filter { lists($0.1, to: caller) }
        if found.isEmpty { try refuseEmptySearch(call, in: id) }
        return [Variant.objectPaths(found.map { itemPath($0.1.id, in: id) })]
    }

    /// `CreateItem(a{sv} properties, (oayays) secret, b replace) → (o item, o prompt)`.
    private func createItem(_ call: MethodCall, _ id: CollectionID, _ caller: Caller) throws -> [OpaquePointer] {
        let properties = Variant.withChild(call.parameters, 0, Variant.readVariantMap)
        defer { Variant.release(properties) }
        var label = "", attributes: [String: String] = [:]
        if let value = properties["org.freedesktop.Secret.Item.Label"] {
            guard Variant.isOfType(value, "s") else { throw DBusFailure.invalidArgs("Label must be a string") }
            label = try checkedLabel(Variant.readString(value))
        }
        if let value = properties["org.freedesktop.Secret.Item.Attributes"] {
            guard Variant.isOfType(value, "a{ss}") else { throw DBusFailure.invalidArgs("Attributes must be a{ss}") }
            attributes = try checkedAttributes(value)
        }
        let secret = try Variant.withChild(call.parameters, 1) { try decodedSecret($0, sender: call.sender) }
        let replace = Variant.withChild(call.parameters, 2, Variant.readBoolean)
        // The creator owns a new item, sealed in the same write (an item it replaces keeps its list); a
        // caller that could not be identified owns nothing.
        let access = caller.identity.kind == .unidentified ? nil : SecretItemAccess(owner: caller.identity.string)
        let create = { [unowned self] () throws -> [OpaquePointer] in
            do throws(SecretStoreError) {
                let created = try self.store.createItem(
                    in: id, label: label, attributes: attributes, secret: secret, replace: replace, access: access)
                return [Variant.objectPath(self.itemPath(created.id, in: id)), Variant.objectPath("/")]
            } catch {
                throw DBusFailure(error, path: call.path)
            }
        }
        // Replacing an item overwrites its secret, so another application's item is asked about as
        // `SetSecret` is (issue 27); "Deny" fails the call and leaves the item as it was.
        if replace, let existing = store.search(attributes, in: id).first(where: { $0.1.attributes == attributes }) {
            return try withAccess(call, caller, items: [(id, existing.1.id)], single: true) { _ in try create() }
        }
        return try create()
    }

    // MARK: - Item

    /// `GetSecret(o session) → (oayays)`: `IsLocked` while the collection is locked.
    func getSecret(_ call: MethodCall, _ item: ItemID, _ collection: CollectionID) throws -> [OpaquePointer] {
        let sessionPath = Variant.withChild(call.parameters, 0, Variant.readString)
        let session = try usableSession(sessionPath, sender: call.sender)
        let secret: StoredSecret
        do { secret = try store.secret(of: item, in: collection) } catch { throw DBusFailure(error, path: call.path) }
        return [try encodedSecret(secret, session, path: sessionPath)]
    }

    /// `GetSecret` with one read of the store (a keychain's: one read transaction) when the item's access
    /// list alone lets the caller use it: ``AccessRule/verdict(_:policy:caller:)`` is `.allow` without
    /// the keychain's policy. When the verdict needs the policy, the policy is read as
    /// ``withAccess(_:_:items:single:remember:_:)`` reads it, and an `.allow` reads the item and its secret
    /// once more (two reads, as before). Every other case (a grant from `Unlock`, an item to adopt or ask
    /// about, any failure) is left to ``withAccess(_:_:items:single:remember:_:)``, which decides it as before.
    /// - Returns: the reply, or `nil` for the general path.
    private func getSecretInOneRead(_ call: MethodCall, _ caller: Caller, _ item: ItemID, _ collection: CollectionID)
        throws -> [OpaquePointer]?
    {
        if unlockGrants[call.sender]?.contains(Self.grantKey(collection, item)) == true { return nil }
        var needsPolicy = false
        let unconsulted: () -> SecretAccessPolicy = {
            needsPolicy = true
            return .confirm
        }
        var read = try? store.item(item, in: collection) { info in
            AccessRule.verdict(info.access, policy: unconsulted, caller: caller.identity) == .allow && !needsPolicy
        }
        if needsPolicy, let info = read?.info {
            let policy = store.accessPolicy(of: collection)
            guard AccessRule.verdict(info.access, policy: { policy }, caller: caller.identity) == .allow else {
                return nil
            }
            read = try? store.item(item, in: collection) { again in
                AccessRule.verdict(again.access, policy: { policy }, caller: caller.identity) == .allow
            }
        }
        guard let secret = read?.secret else { return nil }
        let sessionPath = Variant.withChild(call.parameters, 0, Variant.readString)
        let session = try usableSession(sessionPath, sender: call.sender)
        return [try encodedSecret(secret, session, path: sessionPath)]
    }

    /// `SetSecret((oayays))`: `IsLocked` while the collection is locked.
    func setSecret(_ call: MethodCall, _ item: ItemID, _ collection: CollectionID) throws -> [OpaquePointer] {
        let secret = try Variant.withChild(call.parameters, 0) { try decodedSecret($0, sender: call.sender) }
        do { try store.setSecret(secret, of: item, in: collection) } catch { throw DBusFailure(error, path: call.path) }
        return []
    }

    // MARK: - Sessions and prompts

    @discardableResult
    private func ownedSession(_ path: String, id: String, sender: String) throws -> TransportSession {
        guard let session = sessions[id], session.owner == sender else { throw DBusFailure.noSession(path) }
        touchSession(id)
        return session
    }

    /// Marks a session as the connection's most recently used one (see `openSession`).
    private func touchSession(_ id: String) {
        sessionClock += 1
        sessionUse[id] = sessionClock
    }

    /// The session a secret names, if the caller owns it; `NoSession` otherwise.
    func usableSession(_ path: String, sender: String) throws -> TransportSession {
        // By bytes, as ``pathElements(_:)`` (object paths are ASCII): `hasPrefix` of a concatenation and
        // `dropFirst` by Characters made and walked Strings on every GetSecret.
        var text = path
        let id = text.withUTF8 { bytes -> String? in
            let prefix = Self.sessionPathBytes
            guard Self.bytes(bytes, startWith: prefix) else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[prefix.count...]), as: UTF8.self)
        }
        guard let id else { throw DBusFailure.noSession(path) }
        return try ownedSession(path, id: id, sender: sender)
    }

    /// `/org/freedesktop/secrets/session/`, the bytes a session's path starts with.
    private static let sessionPathBytes = Array((sessionPrefix + "/").utf8)

    private func closeSession(_ id: String) {
        sessions[id] = nil
        sessionUse[id] = nil
        activityHandler?()
    }

    /// Reads a `(oayays)` secret sent by `sender` into zeroising memory.
    private func decodedSecret(_ value: OpaquePointer, sender: String) throws -> StoredSecret {
        let session = try usableSession(Variant.withChild(value, 0, Variant.readString), sender: sender)
        let contentType = Variant.withChild(value, 3, Variant.readString)
        guard contentType.utf8.count <= 255 else { throw DBusFailure.invalidArgs("content type too long") }
        let bytes = try Variant.withChild(value, 1) { parameters in
            try Variant.withChild(value, 2) { payload in
                try Variant.withBytes(parameters) { (parameterBytes) throws -> SecureBytes in
                    try Variant.withBytes(payload) { (valueBytes) throws -> SecureBytes in
                        guard valueBytes.count <= Limits.secretBytes else {
                            throw DBusFailure.invalidArgs("secret larger than \(Limits.secretBytes) bytes")
                        }
                        do {
                            return try session.decode(parameters: parameterBytes, value: valueBytes)
                        } catch {
                            throw DBusFailure.invalidArgs("\(error)")
                        }
                    }
                }
            }
        }
        return StoredSecret(value: bytes, contentType: contentType)
    }

    /// Builds a `(oayays)` secret for `session`, whose object path `sessionPath` is (the one the caller
    /// named, which ``usableSession(_:sender:)`` accepted: not made again from the session's id).
    func encodedSecret(_ secret: StoredSecret, _ session: TransportSession, path sessionPath: String) throws
        -> OpaquePointer
    {
        if case .plain = session.algorithm {
            // The secret as it is: the reply refers to its zeroising storage instead of copying it twice.
            return Variant.tuple([
                Variant.objectPath(sessionPath), Variant.bytes([UInt8]()),
                Variant.bytes(referencing: secret.value), Variant.string(secret.contentType),
            ])
        }
        var encoded: TransportSession.Encoded
        do { encoded = try session.encode(secret.value) } catch { throw DBusFailure.failed("\(error)") }
        defer { encoded.value.wipe() }
        return Variant.tuple([
            Variant.objectPath(sessionPath), Variant.bytes(encoded.parameters),
            Variant.bytes(encoded.value), Variant.string(secret.contentType),
        ])
    }

    private func checkedLabel(_ label: String) throws -> String {
        guard label.utf8.count <= Limits.labelBytes else {
            throw DBusFailure.invalidArgs("label larger than \(Limits.labelBytes) bytes")
        }
        return label
    }

    private func checkedAttributes(_ value: OpaquePointer) throws -> [String: String] {
        guard Variant.childCount(value) <= Limits.attributeCount else {
            throw DBusFailure.invalidArgs("more than \(Limits.attributeCount) attributes")
        }
        let map = Variant.readStringMap(value)
        guard map.reduce(0, { $0 + $1.key.utf8.count + $1.value.utf8.count }) <= Limits.attributeBytes else {
            throw DBusFailure.invalidArgs("attributes larger than \(Limits.attributeBytes) bytes")
        }
        return map
    }
}
