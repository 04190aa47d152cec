import CGIO
import Foundation
import KeychainDBus

@testable import SecretService

/// A minimal Secret Service source (one collection, `plain` sessions only) that behaves as KeePassXC
/// 2.7 does where it differs from gnome-keyring, as its source and our trials show
/// (`scripts/migration-trial`):
/// - an entry is `Locked` for a client until the user allows that client's access (a prompt from
///   `Unlock` on the entry), even in an unlocked collection;
/// - `GetSecrets` fails as a whole with `IsLocked` when any entry asked for is locked;
/// - a locked collection lists no items, and its `Created` (so `GetAll`) answers `IsLocked`; an item's
///   `Label` and `Attributes` answer `IsLocked` too.
///
/// Used on the thread of a ``ThreadSource`` only; not `Sendable`.
final class KeePassXCLikeSource {
    struct Entry {
        var label: String
        var attributes: [String: String]
        var secret: [UInt8]
        var contentType: String
        /// Whether the user allowed the client's access to it.
        var allowed: Bool
    }

    static let collection = "/org/freedesktop/secrets/collection/Passwords"
    static let isLocked = "org.freedesktop.Secret.Error.IsLocked"

    let connection: OpaquePointer
    var collectionLocked: Bool
    var entries: [Entry]
    /// What the user answers to every prompt: unlock and allow (`true`) or dismiss.
    let answer: Bool
    /// Whether `GetSecrets` fails as a whole even when every item is unlocked (only `GetSecret` works).
    let getSecretsFails: Bool
    private var prompts: [String: [String]] = [:]
    private var registrations: [guint] = []
    private let nodeInfo: UnsafeMutablePointer<GDBusNodeInfo>
    private let vtable: UnsafeMutablePointer<GDBusInterfaceVTable>

    init(
        connection: OpaquePointer, entries: [Entry], collectionLocked: Bool, answer: Bool,
        getSecretsFails: Bool = false
    ) {
        self.connection = connection
        self.entries = entries
        self.collectionLocked = collectionLocked
        self.answer = answer
        self.getSecretsFails = getSecretsFails
        nodeInfo = g_dbus_node_info_new_for_xml(SecretServiceInterfaces.xml, nil)!
        vtable = .allocate(capacity: 1)
        vtable.initialize(to: GDBusInterfaceVTable())
        vtable.pointee.method_call = { _, _, path, _, method, parameters, invocation, userData in
            let source = Unmanaged<KeePassXCLikeSource>.fromOpaque(userData!).takeUnretainedValue()
            source.handle(String(cString: path!), String(cString: method!), parameters!, invocation!)
        }
        vtable.pointee.get_property = { _, _, path, _, name, error, userData in
            let source = Unmanaged<KeePassXCLikeSource>.fromOpaque(userData!).takeUnretainedValue()
            switch source.property(String(cString: path!), String(cString: name!)) {
            case .success(let value): return value
            case .failure(let failure):
                error?.pointee = g_dbus_error_new_for_dbus_error(failure.name, failure.message)
                return nil
            }
        }
    }

    deinit {
        for id in registrations { g_dbus_connection_unregister_object(connection, id) }
        g_dbus_node_info_unref(nodeInfo)
        vtable.deallocate()
    }

    /// Exports the service, the collection and the items. - Returns: whether GDBus took them all.
    func start() -> Bool {
        let paths: [(String, String)] =
            [
                (SecretServiceClient.servicePath, "org.freedesktop.Secret.Service"),
                (Self.collection, "org.freedesktop.Secret.Collection"),
            ] + entries.indices.map { (itemPath($0), "org.freedesktop.Secret.Item") }
        return paths.allSatisfy { register($0.0, $0.1) }
    }

    private func register(_ path: String, _ interface: String) -> Bool {
        let info = g_dbus_node_info_lookup_interface(nodeInfo, interface)
        let id = g_dbus_connection_register_object(
            connection, path, info, vtable, Unmanaged.passUnretained(self).toOpaque(), nil, nil)
        guard id != 0 else { return false }
        registrations.append(id)
        return true
    }

    func itemPath(_ index: Int) -> String { "\(Self.collection)/\(index)" }
    private func index(of path: String) -> Int? {
        guard path.hasPrefix(Self.collection + "/"), let index = Int(path.dropFirst(Self.collection.count + 1)),
            entries.indices.contains(index)
        else { return nil }
        return index
    }
    private func itemLocked(_ index: Int) -> Bool { collectionLocked || !entries[index].allowed }

    struct Failure: Error {
        let name: String
        let message: String
        static let locked = Failure(name: isLocked, message: "locked")
    }

    private func property(_ path: String, _ name: String) -> Result<OpaquePointer, Failure> {
        if path == SecretServiceClient.servicePath {
            return .success(Variant.objectPaths([Self.collection]))
        }
        if path == Self.collection {
            switch name {
            case "Label": return .success(Variant.string("Passwords"))
            case "Locked": return .success(Variant.boolean(collectionLocked))
            case "Items": return .success(Variant.objectPaths(collectionLocked ? [] : entries.indices.map(itemPath)))
            default: return collectionLocked ? .failure(.locked) : .success(Variant.uint64(0))
            }
        }
        guard let index = index(of: path) else {
            return .failure(Failure(name: "org.freedesktop.DBus.Error.UnknownObject", message: path))
        }
        switch name {
        case "Locked": return .success(Variant.boolean(itemLocked(index)))
        case "Label": return collectionLocked ? .failure(.locked) : .success(Variant.string(entries[index].label))
        case "Attributes":
            return collectionLocked ? .failure(.locked) : .success(Variant.stringMap(entries[index].attributes))
        default: return .success(Variant.uint64(0))
        }
    }

    private func secretValue(_ index: Int) -> OpaquePointer {
        Variant.tuple([
            Variant.objectPath("/org/freedesktop/secrets/session/1"), Variant.bytes([]),
            Variant.bytes(entries[index].secret), Variant.string(entries[index].contentType),
        ])
    }

    private func handle(_ path: String, _ method: String, _ parameters: OpaquePointer, _ invocation: OpaquePointer) {
        func reply(_ values: [OpaquePointer]) {
            g_dbus_method_invocation_return_value(invocation, Variant.tuple(values))
        }
        func fail(_ failure: Failure) {
            g_dbus_method_invocation_return_dbus_error(invocation, failure.name, failure.message)
        }
        switch method {
        case "OpenSession":
            guard Variant.withChild(parameters, 0, Variant.readString) == TransportSession.plainName else {
                return fail(Failure(name: "org.freedesktop.DBus.Error.NotSupported", message: "plain only"))
            }
            reply([Variant.boxed(Variant.string("")), Variant.objectPath("/org/freedesktop/secrets/session/1")])
        case "ReadAlias":
            let name = Variant.withChild(parameters, 0, Variant.readString)
            reply([Variant.objectPath(name == "default" ? Self.collection : "/")])
        case "Unlock":
            let targets = Variant.withChild(parameters, 0, Variant.readStrings)
            let locked = targets.filter { target in
                target == Self.collection ? collectionLocked : index(of: target).map(itemLocked) ?? false
            }
            let unlocked = targets.filter { !locked.contains($0) }
            guard !locked.isEmpty else { return reply([Variant.objectPaths(unlocked), Variant.objectPath("/")]) }
            let prompt = "/org/freedesktop/secrets/prompt/\(prompts.count + 1)"
            prompts[prompt] = locked
            guard register(prompt, "org.freedesktop.Secret.Prompt") else {
                return fail(Failure(name: "org.freedesktop.DBus.Error.Failed", message: "prompt"))
            }
            reply([Variant.objectPaths(unlocked), Variant.objectPath(prompt)])
        case "Prompt", "Dismiss":
            let targets = prompts[path] ?? []
            let allow = method == "Prompt" && answer
            if allow {
                for target in targets {
                    if target == Self.collection { collectionLocked = false }
                    if let index = index(of: target) { entries[index].allowed = true }
                }
            }
            reply([])
            g_dbus_connection_emit_signal(
                connection, nil, path, "org.freedesktop.Secret.Prompt", "Completed",
                Variant.tuple([Variant.boolean(!allow), Variant.boxed(Variant.objectPaths(allow ? targets : []))]), nil)
        case "GetSecrets":
            let items = Variant.withChild(parameters, 0, Variant.readStrings).compactMap(index(of:))
            guard !getSecretsFails, !items.contains(where: itemLocked) else { return fail(.locked) }
            let pairs = items.map { g_variant_new_dict_entry(Variant.objectPath(itemPath($0)), secretValue($0))! }
            reply([Variant.array("{o(oayays)}", pairs)])
        case "GetSecret":
            guard let index = index(of: path), !itemLocked(index) else { return fail(.locked) }
            reply([secretValue(index)])
        default:
            fail(Failure(name: "org.freedesktop.DBus.Error.NotSupported", message: method))
        }
    }
}
