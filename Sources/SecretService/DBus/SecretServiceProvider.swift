internal import CGIO
internal import KeychainCore
internal import KeychainDBus

/// The freedesktop Secret Service over GDBus: exports `/org/freedesktop/secrets` and its objects on
/// one connection and maps each call onto a ``SecretStore``.
///
/// Objects (Secret Service API, "Object Paths"): the service `/org/freedesktop/secrets`; collections
/// `…/collection/<id>` and aliases `…/aliases/<name>` (live: every call on an alias path acts on the
/// collection it names); items `…/collection/<id>/<item>`; sessions `…/session/<n>`; prompts
/// `…/prompt/<n>`. They are GDBus subtrees (one level each), so GDBus answers `Introspect` (with child
/// nodes) and `org.freedesktop.DBus.Properties` from ``SecretServiceInterfaces/xml`` and checks every
/// call's argument signature before it reaches this type.
///
/// Sessions and prompts belong to the connection that made them and end when it leaves the bus
/// (`NameOwnerChanged` with an empty new owner).
///
/// Threading: every callback runs on the GLib main context that was the thread default when
/// ``start()`` ran, and this type is used only there; it is not `Sendable`.
package final class SecretServiceProvider {
    /// The service's object path.
    package static let servicePath = "/org/freedesktop/secrets"
    static let collectionPrefix = servicePath + "/collection"
    static let aliasPrefix = servicePath + "/aliases"
    static let sessionPrefix = servicePath + "/session"
    static let promptPrefix = servicePath + "/prompt"

    /// Limits on what one call may carry; beyond them a call gets `org.freedesktop.DBus.Error.InvalidArgs`.
    package enum Limits {
        /// Attribute pairs of one item or query.
        package static let attributeCount = 1024
        /// Bytes of all attribute names and values of one item or query.
        package static let attributeBytes = 1 << 20
        /// Bytes of a label.
        package static let labelBytes = 64 << 10
        /// Bytes of a secret (as received: ciphertext for DH sessions).
        package static let secretBytes = 4 << 20
        /// Open sessions of one connection; opening one more closes its least recently used one.
        package static let sessionsPerConnection = 64
    }

    package let store: any SecretStore
    /// The session algorithms `OpenSession` accepts (both by default); any other answers
    /// `org.freedesktop.DBus.Error.NotSupported`. Tests narrow it to `plain` to stand in for a provider
    /// without DH, which the migration must read through a `plain` session.
    package var sessionAlgorithms: Set<String> = [TransportSession.plainName, TransportSession.dhName]
    /// Called on every method call and property write, and when a session closes or a client leaves;
    /// the daemon restarts its idle clock from it.
    package var activityHandler: (() -> Void)?

    let bus: BusConnection
    /// The `GDBusConnection`.
    var connection: OpaquePointer { bus.pointer }
    private let nodeInfo = BusNodeInfo(builtIn: SecretServiceInterfaces.xml, "Secret Service")
    /// The subtrees' handlers (set in ``start()``; they hold this provider `unowned`).
    private var subtreeHandler: BusSubtreeHandler?
    private var objectHandler: BusInterfaceHandler?
    /// The handler of a call on a node of a subtree that names no object: every method, and (with no
    /// property handlers, so that GDBus hands them to its method handler) `Properties.Get`, `Set` and
    /// `GetAll`, answer `UnknownMethod` "Object does not exist at path", as gnome-keyring does.
    private let unknownObjectHandler = BusInterfaceHandler { call in
        g_dbus_method_invocation_return_dbus_error(
            call.invocation, "org.freedesktop.DBus.Error.UnknownMethod",
            "Object does not exist at path \u{201C}\(call.path)\u{201D}")
    }
    var subtrees: [String: BusRegistration] = [:] {
        didSet { lastSubtreeRoot = nil }
    }
    /// The path ``isSubtreeRoot(_:)`` last found exported as a subtree root, while ``subtrees`` is unchanged.
    private var lastSubtreeRoot: String?
    /// The child path ``childPath(_:_:)`` made last, with its root and node.
    private var lastChildPath: (root: String, node: String, path: String)?
    private var clientsLeaving: BusSignalSubscription?
    /// Each collection's lock state as last announced, to tell lock changes from other changes.
    private var knownLocked: [CollectionID: Bool] = [:]
    /// Whether ``logNoPrompter(_:)`` has logged (once per process).
    var loggedNoPrompter = false
    var sessions: [String: TransportSession] = [:]
    /// When each session was last opened or used, on `sessionClock`: the least recently used one of a
    /// connection at ``Limits/sessionsPerConnection`` is closed for a new one.
    var sessionUse: [String: UInt64] = [:]
    var sessionClock: UInt64 = 0
    var prompts: [String: Prompt] = [:]
    /// Prompts whose work runs in the background, by prompt id (they count as pending for idle exit).
    var backgroundPrompts: [String: BackgroundPrompt] = [:]
    var nextSession = 1
    var nextPrompt = 1
    /// Who each connection is, looked up on its first call and forgotten when it leaves the bus.
    let callers = CallerRegistry()
    /// Calls waiting for the user's answer about an item's access list (``withAccess(_:_:items:single:remember:_:)``).
    var accessQuestions: [ObjectIdentifier: AccessQuestion] = [:]
    /// Items a client was allowed once through `Unlock`, for as long as it stays on the bus (issue 27).
    var unlockGrants: [String: Set<String>] = [:]
    /// The last path split by ``pathElements(_:)`` and its elements.
    private var lastPathElements: (path: String, elements: PathElements?)?
    /// The last collection or item path ``resolve(_:)`` found, what it named, and the ``resolutionStamp`` then.
    private var lastResolved: (path: String, object: Object, stamp: UInt64)?
    /// Moves on at every store change the provider hears of: a kept resolution holds only at its stamp.
    private var resolutionStamp: UInt64 = 0

    /// A pending prompt: what it does when the client calls `Prompt`, and who may call it.
    struct Prompt {
        let owner: String
        /// Runs the prompt's work; returns the `Completed` signal's result (a floating `GVariant`), or
        /// `nil` when the user dismissed it.
        let complete: () -> OpaquePointer?
        /// The result of a dismissal.
        let dismissedResult: () -> OpaquePointer
        /// When set, the prompt's work runs in the background instead of ``complete``: it is started on
        /// the main context and calls its argument once with the result (`nil`: dismissed).
        var background: ((@escaping (OpaquePointer?) -> Void) -> Void)? = nil
    }

    /// Prepares the provider for `connection` (a `GDBusConnection`, which it references).
    /// - Parameters:
    ///   - connection: the bus connection, e.g. from `g_bus_get_sync`.
    ///   - store: the collections and items to serve.
    package init(connection: OpaquePointer, store: any SecretStore) {
        bus = BusConnection(connection)
        self.store = store
    }

    deinit { stop() }

    /// Exports the objects and starts watching clients leave. Call once, before requesting the bus name.
    /// - Throws: ``ProviderError/registration(_:)`` if GDBus refuses a path.
    package func start() throws(ProviderError) {
        store.changeHandler = { [unowned self] change in self.storeChanged(change) }
        let objectHandler = BusInterfaceHandler(
            methodCall: { [unowned self] call in self.handle(call) },
            getProperty: { [unowned self] access in
                self.property(access.path, access.interface, access.name, sender: access.sender)
                    .map { .success($0) }
                    ?? .failure(
                        BusPropertyFailure(code: G_DBUS_ERROR_UNKNOWN_OBJECT, message: "No such object or property"))
            },
            setProperty: { [unowned self] access, value in
                self.setProperty(access.path, access.interface, access.name, value)
                    .map { BusPropertyFailure(code: $0.code, message: $0.message) }
            })
        self.objectHandler = objectHandler
        subtreeHandler = BusSubtreeHandler(
            nodeInfo: nodeInfo, enumerate: { [unowned self] path in self.children(of: path) },
            introspect: { [unowned self] path, node in self.interfaces(of: path, node: node) },
            dispatch: { [unowned self] path, node in
                let full = node.map { self.isSubtreeRoot(path) ? self.childPath(path, $0) : path } ?? path
                return self.resolve(full) != nil ? objectHandler : self.unknownObjectHandler
            })
        for path in [Self.servicePath, Self.collectionPrefix, Self.aliasPrefix, Self.sessionPrefix, Self.promptPrefix] {
            try register(path)
        }
        for collection in store.collections() {
            try register(collectionPath(collection.id))
            knownLocked[collection.id] = collection.locked
        }
        syncAliasSubtrees()
        clientsLeaving = bus.subscribeToClientsLeaving { [unowned self] name in self.clientLeft(name) }
    }

    /// Unexports every object. Idempotent.
    package func stop() {
        for registration in subtrees.values { registration.cancel() }
        subtrees = [:]
        clientsLeaving?.cancel()
        clientsLeaving = nil
        store.changeHandler = nil
    }

    /// Open sessions and pending prompts (the provider is idle when both are zero).
    package var openSessionCount: Int { sessions.count }
    package var pendingPromptCount: Int { prompts.count + backgroundPrompts.count + accessQuestions.count }

    /// The caller a connection was identified as on its first call, until it leaves the bus.
    package func knownCaller(_ uniqueName: String) -> Caller? { callers.cached(uniqueName) }
    /// The connections whose caller is known.
    package var knownCallerCount: Int { callers.count }
    /// Replaces the bus and `/proc` lookup of callers (tests that need callers the test process cannot be).
    package var callerLookup: ((String) throws(CallerLookupError) -> Caller)? {
        get { callers.lookup }
        set { callers.lookup = newValue }
    }

    // MARK: - Objects

    /// What an object path names.
    enum Object: Equatable {
        case service
        case collection(CollectionID)
        case item(CollectionID, ItemID)
        case session(String)
        case prompt(String)
    }

    /// Resolves a path, aliases included; `nil` for a path that names nothing.
    ///
    /// A collection's or item's path under `…/collection/` that resolved is kept until the provider hears
    /// of the next store change (``storeChanged(_:)``): one call's path is resolved three times or more
    /// (GDBus's dispatch, the call, each property read), and the store answers what exists from what it
    /// heard last as well (its own writes and the last poll). Alias paths follow `keychains.conf`, which
    /// may change without a store change, and are resolved every time.
    func resolve(_ path: String) -> Object? {
        if path == Self.servicePath { return .service }
        if let kept = lastResolved, kept.stamp == resolutionStamp, kept.path == path { return kept.object }
        guard let parts = pathElements(path) else { return nil }
        switch (parts.kind, parts.second) {
        case (.collection, nil):
            guard let id = CollectionID(parts.first), store.hasCollection(id) else { return nil }
            lastResolved = (path, .collection(id), resolutionStamp)
            return .collection(id)
        case (.collection, let item?):
            guard let id = CollectionID(parts.first), let item = ItemID(item), store.hasItem(item, in: id)
            else { return nil }
            lastResolved = (path, .item(id, item), resolutionStamp)
            return .item(id, item)
        case (.aliases, nil):
            return store.resolveAlias(parts.first).map { .collection($0) }
        case (.aliases, let item?):
            // An item under an alias path is the item under its collection's path (keepassxc#6314).
            guard let id = store.resolveAlias(parts.first), let item = ItemID(item), store.hasItem(item, in: id)
            else { return nil }
            return .item(id, item)
        case (.session, nil):
            return sessions[parts.first] != nil ? .session(parts.first) : nil
        case (.prompt, nil):
            return prompts[parts.first] != nil || backgroundPrompts[parts.first] != nil ? .prompt(parts.first) : nil
        case (.session, _?), (.prompt, _?):
            return nil
        }
    }

    /// The first element under the service path that ``resolve(_:)`` knows.
    enum PathKind {
        case collection, aliases, session, prompt
    }

    /// A path's elements under the service path (``pathElements(_:)``).
    typealias PathElements = (kind: PathKind, first: String, second: String?)

    /// ``pathElements(_:)`` of `path`, kept for the last path: one call's path is resolved three times or
    /// more (GDBus's dispatch, the call itself, each property read), and its elements depend on it alone.
    private func pathElements(_ path: String) -> PathElements? {
        if let last = lastPathElements, last.path == path { return last.elements }
        let elements = Self.pathElements(path)
        lastPathElements = (path, elements)
        return elements
    }

    /// Splits `/org/freedesktop/secrets/<kind>/<first>[/<second>]` into its elements (either may be
    /// empty, which no identifier accepts); `nil` for any other shape. Object paths are ASCII (the D-Bus
    /// spec): their bytes are compared, not their Characters, since this runs several times per call.
    static func pathElements(_ path: String) -> PathElements? {
        var path = path
        return path.withUTF8 { bytes -> PathElements? in
            let root = servicePathElements
            // By index (``bytes(_:startWith:)``): `elementsEqual` of a rebased slice went through two
            // iterators (550 instructions a call).
            guard bytes.count > root.count, Self.bytes(bytes, startWith: root) else { return nil }
            var firstCut: Int?
            var secondCut: Int?
            for index in root.count..<bytes.count where bytes[index] == UInt8(ascii: "/") {
                if firstCut == nil {
                    firstCut = index
                } else if secondCut == nil {
                    secondCut = index
                } else {
                    return nil
                }
            }
            guard let firstCut else { return nil }
            let kind: PathKind
            switch String(decoding: UnsafeBufferPointer(rebasing: bytes[root.count..<firstCut]), as: UTF8.self) {
            case "collection": kind = .collection
            case "aliases": kind = .aliases
            case "session": kind = .session
            case "prompt": kind = .prompt
            default: return nil
            }
            let first = String(
                decoding: UnsafeBufferPointer(rebasing: bytes[(firstCut + 1)..<(secondCut ?? bytes.count)]),
                as: UTF8.self)
            let second = secondCut.map {
                String(decoding: UnsafeBufferPointer(rebasing: bytes[($0 + 1)...]), as: UTF8.self)
            }
            return (kind, first, second)
        }
    }

    /// `/org/freedesktop/secrets/`, the bytes every path under the service starts with.
    private static let servicePathElements = Array((servicePath + "/").utf8)

    func collectionPath(_ id: CollectionID) -> String { "\(Self.collectionPrefix)/\(id.rawValue)" }
    func itemPath(_ id: ItemID, in collection: CollectionID) -> String {
        "\(collectionPath(collection))/\(id.rawValue)"
    }

    /// The child nodes under a registered subtree root, but those that are subtrees of their own
    /// (GDBus lists registered subtrees itself).
    private func children(of path: String) -> [String] {
        switch path {
        case Self.servicePath, Self.collectionPrefix: return []
        case Self.aliasPrefix: return []
        case Self.sessionPrefix: return sessions.keys.sorted()
        case Self.promptPrefix: return (Array(prompts.keys) + Array(backgroundPrompts.keys)).sorted()
        default:
            let id: CollectionID?
            if path.hasPrefix(Self.aliasPrefix + "/") {
                id = store.resolveAlias(String(path.dropFirst(Self.aliasPrefix.count + 1)))
            } else if path.hasPrefix(Self.collectionPrefix + "/") {
                id = CollectionID(String(path.dropFirst(Self.collectionPrefix.count + 1)))
            } else {
                id = nil
            }
            guard let id, let items = try? store.itemIDs(in: id) else { return [] }
            return items.map(\.rawValue)
        }
    }

    /// The interfaces of `path` + `/` + `node` (`node` nil: the subtree root itself).
    ///
    /// GLib 2.74 passes the subtree root as `path` when introspecting, but the full object path when
    /// dispatching a call on a child node; a registered root tells the two apart.
    private func interfaces(of path: String, node: String?) -> [String] {
        guard let node else { return interfaces(of: resolve(path)) }
        // Introspect on a child: GLib passes the subtree root and the child, and the child is listed with
        // its interfaces only if it exists.
        if isSubtreeRoot(path) { return interfaces(of: resolve(childPath(path, node))) }
        // Dispatching a call on a child: GLib passes the full object path. The child claims the interface
        // its place implies, without asking the store whether it exists (GDBus asks before every call
        // it dispatches, and the call resolves the object anyway); the dispatch function gives an
        // unknown object the handler that refuses it.
        // By bytes (object paths are ASCII): GDBus asks this before every call on a child, and a String
        // of the parent, compared by Characters with four prefixes and two concatenations, was made each time.
        var text = path
        return text.withUTF8 { bytes -> [String] in
            guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return [] }
            let parent = UnsafeBufferPointer(rebasing: bytes[..<slash])
            let collection = Self.collectionPrefixBytes
            let aliases = Self.aliasPrefixBytes
            if Self.bytes(parent, are: collection) || Self.bytes(parent, are: aliases) {
                return Self.collectionInterfaces
            }
            if Self.bytes(parent, are: Self.sessionPrefixBytes) { return Self.sessionInterfaces }
            if Self.bytes(parent, are: Self.promptPrefixBytes) { return Self.promptInterfaces }
            let underCollection =
                parent.count > collection.count && parent[collection.count] == UInt8(ascii: "/")
                && Self.bytes(parent, startWith: collection)
            let underAlias =
                parent.count > aliases.count && parent[aliases.count] == UInt8(ascii: "/")
                && Self.bytes(parent, startWith: aliases)
            return underCollection || underAlias ? Self.itemInterfaces : []
        }
    }

    /// Whether `path` is the root of an exported subtree. GDBus asks about a subtree's root before each
    /// call on one of its children (introspecting with the root and the child's node), so the last root
    /// found is kept; an item's path (`…/collection/<c>/<i>`, six slashes: every root has five or fewer),
    /// which GDBus passes when dispatching, is told by its bytes, not hashed.
    private func isSubtreeRoot(_ path: String) -> Bool {
        if let lastSubtreeRoot, lastSubtreeRoot == path { return true }
        var text = path
        let slashes = text.withUTF8 { bytes in bytes.reduce(0) { $0 + ($1 == UInt8(ascii: "/") ? 1 : 0) } }
        guard slashes < 6, subtrees[path] != nil else { return false }
        lastSubtreeRoot = path
        return true
    }

    /// `root/node`, the last one kept: GDBus introspects a subtree's root and node before every call on
    /// the child, and a client makes several calls on one item in turn.
    private func childPath(_ root: String, _ node: String) -> String {
        if let last = lastChildPath, last.root == root, last.node == node { return last.path }
        let path = "\(root)/\(node)"
        lastChildPath = (root, node, path)
        return path
    }

    private static let collectionPrefixBytes = Array(collectionPrefix.utf8)
    private static let aliasPrefixBytes = Array(aliasPrefix.utf8)
    private static let sessionPrefixBytes = Array(sessionPrefix.utf8)
    private static let promptPrefixBytes = Array(promptPrefix.utf8)

    /// Whether `bytes` begin with `prefix`, compared by index.
    static func bytes(_ bytes: UnsafeBufferPointer<UInt8>, startWith prefix: [UInt8]) -> Bool {
        guard bytes.count >= prefix.count else { return false }
        for index in 0..<prefix.count where bytes[index] != prefix[index] { return false }
        return true
    }

    /// Whether `bytes` are exactly `other`.
    private static func bytes(_ bytes: UnsafeBufferPointer<UInt8>, are other: [UInt8]) -> Bool {
        bytes.count == other.count && Self.bytes(bytes, startWith: other)
    }

    private func interfaces(of object: Object?) -> [String] {
        switch object {
        case .service: Self.serviceInterfaces
        case .collection: Self.collectionInterfaces
        case .item: Self.itemInterfaces
        case .session: Self.sessionInterfaces
        case .prompt: Self.promptInterfaces
        case nil: []
        }
    }

    // Each object's interface list, made once: GDBus asks for one before every call.
    private static let serviceInterfaces = [SecretServiceInterfaces.service]
    private static let collectionInterfaces = [SecretServiceInterfaces.collection]
    private static let itemInterfaces = [SecretServiceInterfaces.item]
    private static let sessionInterfaces = [SecretServiceInterfaces.session]
    private static let promptInterfaces = [SecretServiceInterfaces.prompt]

    private func register(_ path: String) throws(ProviderError) {
        guard subtrees[path] == nil, let subtreeHandler else { return }
        do {
            subtrees[path] = try bus.registerSubtree(path, handler: subtreeHandler)
        } catch {
            throw .registration(error.description)
        }
    }

    /// Exports each alias path as a subtree of its own (as each collection is), so that its items
    /// (`…/aliases/<name>/<item>`) are dispatched; called when collections or aliases may have changed.
    /// A path whose alias no longer names anything stays exported and answers "Object does not exist".
    func syncAliasSubtrees() {
        for name in store.aliasNames() { try? register("\(Self.aliasPrefix)/\(name)") }
    }

    private func unregister(_ path: String) {
        subtrees.removeValue(forKey: path)?.cancel()
    }

    // MARK: - Store changes → signals

    private func storeChanged(_ change: SecretStoreChange) {
        resolutionStamp &+= 1
        defer {
            switch change {
            case .collectionCreated, .collectionDeleted: syncAliasSubtrees()
            default: break
            }
        }
        switch change {
        case .collectionCreated(let id):
            try? register(collectionPath(id))
            knownLocked[id] = store.collection(id)?.locked
            emit(
                Self.servicePath, SecretServiceInterfaces.service, "CollectionCreated",
                [Variant.objectPath(collectionPath(id))])
            propertiesChanged(Self.servicePath, SecretServiceInterfaces.service, ["Collections"])
        case .collectionDeleted(let id):
            unregister(collectionPath(id))
            knownLocked[id] = nil
            emit(
                Self.servicePath, SecretServiceInterfaces.service, "CollectionDeleted",
                [Variant.objectPath(collectionPath(id))])
            propertiesChanged(Self.servicePath, SecretServiceInterfaces.service, ["Collections"])
        case .collectionChanged(let id):
            // gnome-keyring's order: on a lock or unlock, `ItemChanged` for each item, then
            // `CollectionChanged`, then the changed properties (each item's `Locked`, the collection's).
            let locked = store.collection(id)?.locked
            let lockChanged = locked.map { knownLocked.updateValue($0, forKey: id) != $0 } ?? false
            let items = lockChanged ? ((try? store.itemIDs(in: id)) ?? []) : []
            for item in items {
                emit(
                    collectionPath(id), SecretServiceInterfaces.collection, "ItemChanged",
                    [Variant.objectPath(itemPath(item, in: id))])
            }
            emit(
                Self.servicePath, SecretServiceInterfaces.service, "CollectionChanged",
                [Variant.objectPath(collectionPath(id))])
            for item in items {
                propertiesChanged(itemPath(item, in: id), SecretServiceInterfaces.item, ["Locked"])
            }
            propertiesChanged(collectionPath(id), SecretServiceInterfaces.collection, ["Label", "Locked", "Modified"])
        case .itemCreated(let collection, let item):
            emit(
                collectionPath(collection), SecretServiceInterfaces.collection, "ItemCreated",
                [Variant.objectPath(itemPath(item, in: collection))])
            propertiesChanged(collectionPath(collection), SecretServiceInterfaces.collection, ["Items", "Modified"])
        case .itemChanged(let collection, let item):
            emit(
                collectionPath(collection), SecretServiceInterfaces.collection, "ItemChanged",
                [Variant.objectPath(itemPath(item, in: collection))])
            propertiesChanged(
                itemPath(item, in: collection), SecretServiceInterfaces.item, ["Label", "Attributes", "Modified"])
        case .itemDeleted(let collection, let item):
            emit(
                collectionPath(collection), SecretServiceInterfaces.collection, "ItemDeleted",
                [Variant.objectPath(itemPath(item, in: collection))])
            propertiesChanged(collectionPath(collection), SecretServiceInterfaces.collection, ["Items", "Modified"])
        }
    }

    func emit(_ path: String, _ interface: String, _ signal: String, _ arguments: [OpaquePointer]) {
        bus.emit(path, interface, signal, arguments)
    }

    /// `org.freedesktop.DBus.Properties.PropertiesChanged` with the current values of `names`.
    ///
    /// Every changed property goes with its value, none as invalidated: libsecret's proxies (Seahorse,
    /// secret-tool, python gi) drop an invalidated property from their cache, and its handler of the next
    /// `ItemCreated`/`ItemDeleted` reads the cached `Items` without checking it, so an invalidated
    /// `Items` crashed the client (a segmentation fault in GLib) at the next change.
    private func propertiesChanged(_ path: String, _ interface: String, _ names: [String]) {
        let values = names.compactMap { name in property(path, interface, name).map { (name, $0) } }
        guard !values.isEmpty else { return }
        emit(
            path, "org.freedesktop.DBus.Properties", "PropertiesChanged",
            [Variant.string(interface), Variant.variantMap(values), Variant.strings([])])
    }

    // MARK: - Clients

    private func clientLeft(_ name: String) {
        callers.forget(name)
        endAccessQuestions(of: name)
        sessions = sessions.filter { $0.value.owner != name }
        sessionUse = sessionUse.filter { sessions[$0.key] != nil }
        for (id, prompt) in prompts where prompt.owner == name { prompts[id] = nil }
        for (id, job) in backgroundPrompts where job.owner == name { endBackgroundPrompt(id) }
        activityHandler?()
    }
}

/// Why the provider could not start or keep its name.
package enum ProviderError: Error, Equatable, CustomStringConvertible {
    /// GDBus refused to export an object path.
    case registration(String)
    /// Connecting to the bus failed.
    case connection(String)
    /// Another connection owns `org.freedesktop.secrets`; the text names it.
    case nameTaken(String)

    package var description: String {
        switch self {
        case .registration(let message): "cannot export \(message)"
        case .connection(let message): "cannot connect to the session bus: \(message)"
        case .nameTaken(let message): message
        }
    }
}
