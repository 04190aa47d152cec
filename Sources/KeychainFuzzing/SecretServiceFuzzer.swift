internal import CGIO
package import Foundation
import KeychainCore
internal import KeychainDBus
import SecretService

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The `secretservice` fuzz target: method calls on the Secret Service provider's objects, sent over
/// an in-process peer-to-peer GDBus connection (a socket pair, no bus daemon), so that every byte goes
/// through GDBus's checks and the provider's handlers exactly as from a client.
///
/// One input is a sequence of up to ``maxCalls`` calls, each encoded as
/// `[path selector][method selector][length: UInt16 big-endian][GVariant bytes]`:
/// - the path selector picks a fixed path (service, collections, aliases, unknown objects) or one
///   harvested from earlier replies of the same input (sessions, items, prompts, collections);
/// - the method selector picks one of the spec's methods (plus `Properties` and `Introspect`); its
///   top bit asks for the arguments' type to be read from the data (a wrong signature) instead of the
///   method's own;
/// - the bytes become the arguments through `g_variant_new_from_data` (untrusted) and its normal form.
///
/// Each input starts from a fresh provider over a fresh ``MemorySecretStore``, so inputs do not depend
/// on each other and a crash reproduces from its input alone; session and item numbers start at 1.
package enum SecretServiceFuzzer {
    /// Calls per input.
    package static let maxCalls = 8

    /// The spec's methods: interface, method, argument type.
    static let methods: [(String, String, String)] = [
        ("org.freedesktop.Secret.Service", "OpenSession", "(sv)"),
        ("org.freedesktop.Secret.Service", "CreateCollection", "(a{sv}s)"),
        ("org.freedesktop.Secret.Service", "SearchItems", "(a{ss})"),
        ("org.freedesktop.Secret.Service", "Unlock", "(ao)"),
        ("org.freedesktop.Secret.Service", "Lock", "(ao)"),
        ("org.freedesktop.Secret.Service", "GetSecrets", "(aoo)"),
        ("org.freedesktop.Secret.Service", "ReadAlias", "(s)"),
        ("org.freedesktop.Secret.Service", "SetAlias", "(so)"),
        ("org.freedesktop.Secret.Collection", "Delete", "()"),
        ("org.freedesktop.Secret.Collection", "SearchItems", "(a{ss})"),
        ("org.freedesktop.Secret.Collection", "CreateItem", "(a{sv}(oayays)b)"),
        ("org.freedesktop.Secret.Item", "Delete", "()"),
        ("org.freedesktop.Secret.Item", "GetSecret", "(o)"),
        ("org.freedesktop.Secret.Item", "SetSecret", "((oayays))"),
        ("org.freedesktop.Secret.Session", "Close", "()"),
        ("org.freedesktop.Secret.Prompt", "Prompt", "(s)"),
        ("org.freedesktop.Secret.Prompt", "Dismiss", "()"),
        ("org.freedesktop.DBus.Properties", "Get", "(ss)"),
        ("org.freedesktop.DBus.Properties", "Set", "(ssv)"),
        ("org.freedesktop.DBus.Properties", "GetAll", "(s)"),
        ("org.freedesktop.DBus.Introspectable", "Introspect", "()"),
    ]

    static let fixedPaths = [
        "/org/freedesktop/secrets", "/org/freedesktop/secrets/collection/session",
        "/org/freedesktop/secrets/aliases/session", "/org/freedesktop/secrets/aliases/default",
        "/org/freedesktop/secrets/collection", "/org/freedesktop/secrets/collection/nothing",
        "/org/freedesktop/secrets/collection/session/1", "/org/freedesktop/secrets/session/1",
        "/org/freedesktop/secrets/prompt/1", "/", "/org/freedesktop/secrets/aliases",
    ]

    /// Whether the in-process connection pair could be made (`false`: ``run(_:)`` would test nothing).
    package static var isReady: Bool { Harness.shared != nil }

    /// Runs one input. Returns the number of calls that got a reply (not an error), for the seeds' test.
    @discardableResult
    package static func run(_ data: Data) -> (replies: Int, errors: Int) {
        guard let harness = Harness.shared else { return (0, 0) }
        return harness.run(Array(data))
    }

    /// One encoded call, for the seed corpus.
    package static func encode(path: UInt8, method: String, interface: String, arguments: OpaquePointer) -> [UInt8] {
        let index = methods.firstIndex { $0.0 == interface && $0.1 == method }!
        let variant = g_variant_ref_sink(arguments)!
        defer { g_variant_unref(variant) }
        let size = Int(g_variant_get_size(variant))
        // g_variant_store needs memory aligned for the type: a fresh array's storage is.
        var body = [UInt8](repeating: 0, count: size)
        body.withUnsafeMutableBytes { g_variant_store(variant, $0.baseAddress!) }
        return [path, UInt8(index), UInt8(size >> 8), UInt8(size & 0xff)] + body
    }

    /// Well-formed call sequences that reach deep into the handlers: open plain and DH sessions,
    /// create, search, read, change, lock, unlock through the prompt and delete items.
    package static func seeds() -> [String: [UInt8]] {
        // The provider's own builders (SecretService's Variant), so the seeds are built as replies are.
        let string = Variant.string, path = Variant.objectPath, tuple = Variant.tuple
        func attributes(_ map: [String: String]) -> OpaquePointer { Variant.stringMap(map) }
        let session = "/org/freedesktop/secrets/session/1"
        let openPlain = encode(
            path: 0, method: "OpenSession", interface: "org.freedesktop.Secret.Service",
            arguments: tuple([string("plain"), Variant.boxed(string(""))]))
        var dhKey = [UInt8](repeating: 0, count: 128)
        dhKey[127] = 2
        let openDH = encode(
            path: 0, method: "OpenSession", interface: "org.freedesktop.Secret.Service",
            arguments: tuple([string("dh-ietf1024-sha256-aes128-cbc-pkcs7"), Variant.boxed(Variant.bytes(dhKey))]))
        func createItem(_ label: String, _ attrs: [String: String], secret: [UInt8]) -> [UInt8] {
            let properties = Variant.variantMap([
                ("org.freedesktop.Secret.Item.Label", string(label)),
                ("org.freedesktop.Secret.Item.Attributes", attributes(attrs)),
            ])
            let secretValue = tuple([path(session), Variant.bytes([]), Variant.bytes(secret), string("text/plain")])
            return encode(
                path: 2, method: "CreateItem", interface: "org.freedesktop.Secret.Collection",
                arguments: tuple([properties, secretValue, Variant.boolean(true)]))
        }
        let item = "/org/freedesktop/secrets/collection/session/1"
        let search = encode(
            path: 0, method: "SearchItems", interface: "org.freedesktop.Secret.Service",
            arguments: tuple([attributes(["service": "fuzz"])]))
        let getSecret = encode(
            path: 6, method: "GetSecret", interface: "org.freedesktop.Secret.Item", arguments: tuple([path(session)]))
        let getSecrets = encode(
            path: 0, method: "GetSecrets", interface: "org.freedesktop.Secret.Service",
            arguments: tuple([Variant.objectPaths([item]), path(session)]))
        let lock = encode(
            path: 0, method: "Lock", interface: "org.freedesktop.Secret.Service",
            arguments: tuple([Variant.objectPaths(["/org/freedesktop/secrets/aliases/session"])]))
        let unlock = encode(
            path: 0, method: "Unlock", interface: "org.freedesktop.Secret.Service",
            arguments: tuple([Variant.objectPaths([item])]))
        let prompt = encode(
            path: 8, method: "Prompt", interface: "org.freedesktop.Secret.Prompt", arguments: tuple([string("")]))
        let setLabel = encode(
            path: 6, method: "Set", interface: "org.freedesktop.DBus.Properties",
            arguments: tuple([
                string("org.freedesktop.Secret.Item"), string("Label"), Variant.boxed(string("renamed")),
            ]))
        let getAll = encode(
            path: 6, method: "GetAll", interface: "org.freedesktop.DBus.Properties",
            arguments: tuple([string("org.freedesktop.Secret.Item")]))
        let createCollection = encode(
            path: 0, method: "CreateCollection", interface: "org.freedesktop.Secret.Service",
            arguments: tuple([
                Variant.variantMap([("org.freedesktop.Secret.Collection.Label", string("Work"))]), string("default"),
            ]))
        let deleteItem = encode(
            path: 6, method: "Delete", interface: "org.freedesktop.Secret.Item", arguments: tuple([]))
        let introspect = encode(
            path: 1, method: "Introspect", interface: "org.freedesktop.DBus.Introspectable", arguments: tuple([]))
        let created = createItem("fuzz", ["service": "fuzz", "user": "a"], secret: Array("secret".utf8))
        return [
            "seed-plain-create-read.bin": openPlain + created + search + getSecret + getSecrets + getAll,
            "seed-dh-open.bin": openDH + openPlain + created + getSecret,
            "seed-lock-unlock-prompt.bin": openPlain + created + lock + getSecret + unlock + prompt + getSecret,
            "seed-set-delete.bin": openPlain + created + setLabel + getAll + deleteItem + introspect,
            "seed-collection-alias.bin": createCollection + introspect + openPlain + search,
        ]
    }

    /// The provider under test and the client connection, on a private main context.
    /// `@unchecked Sendable`: used only under `lock`, one input at a time (libFuzzer and the corpus
    /// replay both call ``run(_:)`` serially); the GLib objects never leave that critical section.
    final class Harness: @unchecked Sendable {
        static let shared: Harness? = Harness()

        let lock = NSLock()
        let context: OpaquePointer
        let server: OpaquePointer
        let client: OpaquePointer

        private init?() {
            let context = g_main_context_new()!
            self.context = context
            g_main_context_push_thread_default(context)
            defer { g_main_context_pop_thread_default(context) }
            var fds: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { return nil }
            guard let serverSocket = g_socket_new_from_fd(fds[0], nil),
                let clientSocket = g_socket_new_from_fd(fds[1], nil)
            else { return nil }
            let serverStream = g_socket_connection_factory_create_connection(serverSocket)!
            let clientStream = g_socket_connection_factory_create_connection(clientSocket)!
            g_object_unref(UnsafeMutableRawPointer(serverSocket))
            g_object_unref(UnsafeMutableRawPointer(clientSocket))
            // The server side authenticates in a worker thread while the client side blocks.
            final class Pending { var connection: OpaquePointer?; var done = false }
            let pending = Unmanaged.passRetained(Pending())
            let guid = g_dbus_generate_guid()!
            g_dbus_connection_new(
                UnsafeMutableRawPointer(serverStream).assumingMemoryBound(to: GIOStream.self), guid,
                GDBusConnectionFlags(
                    rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_SERVER.rawValue
                        | G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_ALLOW_ANONYMOUS.rawValue), nil, nil,
                { _, result, userData in
                    let pending = Unmanaged<Pending>.fromOpaque(userData!).takeUnretainedValue()
                    pending.connection = g_dbus_connection_new_finish(result, nil)
                    pending.done = true
                }, pending.toOpaque())
            g_free(guid)
            let client = g_dbus_connection_new_sync(
                UnsafeMutableRawPointer(clientStream).assumingMemoryBound(to: GIOStream.self), nil,
                G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT, nil, nil, nil)
            while !pending.takeUnretainedValue().done { g_main_context_iteration(context, 1) }
            let server = pending.takeUnretainedValue().connection
            pending.release()
            g_object_unref(UnsafeMutableRawPointer(serverStream))
            g_object_unref(UnsafeMutableRawPointer(clientStream))
            guard let client, let server else { return nil }
            self.client = client
            self.server = server
        }

        func run(_ bytes: [UInt8]) -> (replies: Int, errors: Int) {
            lock.lock()
            defer { lock.unlock() }
            g_main_context_push_thread_default(context)
            defer { g_main_context_pop_thread_default(context) }
            let provider = SecretServiceProvider(connection: server, store: MemorySecretStore())
            // The provider watches NameOwnerChanged from the bus daemon, which a peer-to-peer connection
            // has not: GLib refuses that one subscription with a critical, dropped here and nowhere else.
            let handler = g_log_set_handler(
                "GLib-GIO", G_LOG_LEVEL_CRITICAL,
                { domain, level, message, _ in
                    if let message, strstr(message, "g_dbus_connection_signal_subscribe") != nil { return }
                    g_log_default_handler(domain, level, message, nil)
                }, nil)
            let started = (try? provider.start()) != nil
            g_log_remove_handler("GLib-GIO", handler)
            guard started else { return (0, 0) }
            defer {
                provider.stop()
                // Deliver what the provider queued (signals) before the next input's provider starts.
                while g_main_context_iteration(context, 0) != 0 {}
            }
            var paths = SecretServiceFuzzer.fixedPaths
            var offset = 0, calls = 0, replies = 0, errors = 0
            while calls < SecretServiceFuzzer.maxCalls, offset + 4 <= bytes.count {
                calls += 1
                let pathSelector = Int(bytes[offset]), methodSelector = bytes[offset + 1]
                let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
                offset += 4
                let end = min(bytes.count, offset + length)
                var body = Array(bytes[offset..<end])
                offset = end
                let method = SecretServiceFuzzer.methods[Int(methodSelector & 0x7f) % SecretServiceFuzzer.methods.count]
                var type = method.2
                if methodSelector & 0x80 != 0, let first = body.first {
                    // A wrong signature: a type string taken from the data.
                    let count = min(Int(first), body.count - 1)
                    let candidate = String(decoding: body[1..<(1 + count)], as: UTF8.self)
                    body.removeFirst(1 + count)
                    if g_variant_type_string_is_valid(candidate) != 0, candidate.hasPrefix("(") { type = candidate }
                }
                let path = paths[pathSelector % paths.count]
                guard let reply = call(path, method.0, method.1, type: type, data: body) else {
                    errors += 1
                    continue
                }
                replies += 1
                harvest(reply, into: &paths)
                g_variant_unref(reply)
            }
            return (replies, errors)
        }

        /// Sends one call and waits for its answer. - Returns: the reply, `nil` for an error reply.
        private func call(_ path: String, _ interface: String, _ method: String, type: String, data: [UInt8])
            -> OpaquePointer?
        {
            let arguments: OpaquePointer = data.withUnsafeBytes { raw in
                let loose = Variant.withType(type) {
                    g_variant_new_from_data($0, raw.baseAddress, gsize(raw.count), 0, nil, nil)!
                }
                g_variant_ref_sink(loose)
                defer { g_variant_unref(loose) }
                return g_variant_get_normal_form(loose)!
            }
            final class Answer { var reply: OpaquePointer?; var done = false }
            let answer = Unmanaged.passRetained(Answer())
            defer { answer.release() }
            g_dbus_connection_call(
                client, nil, path, interface, method, arguments, nil, G_DBUS_CALL_FLAGS_NONE, 10_000, nil,
                { source, result, userData in
                    let answer = Unmanaged<Answer>.fromOpaque(userData!).takeRetainedValue()
                    var error: UnsafeMutablePointer<GError>?
                    answer.reply = g_dbus_connection_call_finish(OpaquePointer(source), result, &error)
                    if let error { g_error_free(error) }
                    answer.done = true
                }, answer.retain().toOpaque())
            g_variant_unref(arguments)
            while !answer.takeUnretainedValue().done { g_main_context_iteration(context, 1) }
            return answer.takeUnretainedValue().reply
        }

        /// Adds every object path in a reply to the paths later calls of the input may use.
        private func harvest(_ value: OpaquePointer, into paths: inout [String]) {
            if Variant.isOfType(value, "o") {
                let path = Variant.readString(value)
                if path != "/", !paths.contains(path), paths.count < 64 { paths.append(path) }
                return
            }
            if Variant.isOfType(value, "v") {
                let inner = g_variant_get_variant(value)!
                harvest(inner, into: &paths)
                g_variant_unref(inner)
                return
            }
            guard g_variant_is_container(value) != 0 else { return }
            for index in 0..<min(Variant.childCount(value), 64) {
                Variant.withChild(value, index) { harvest($0, into: &paths) }
            }
        }
    }
}
