internal import CGIO
internal import KeychainCore
internal import KeychainDBus

/// A client of another Secret Service provider (gnome-keyring, KWallet, KeePassXC) on one GDBus
/// connection: the calls the migration needs, with a `dh-ietf1024-sha256-aes128-cbc-pkcs7` session
/// (falling back to `plain` when the provider refuses DH).
///
/// Every call carries `G_DBUS_CALL_FLAGS_NO_AUTO_START`, so that a call never D-Bus-activates a
/// provider (which could be this project's own, installed by `make install`).
///
/// Threading: used on one thread; ``waitForPrompt(_:timeoutSeconds:)`` iterates the thread-default
/// main context that was current when the client was made (the migration pushes a private one).
/// Not `Sendable`.
package final class SecretServiceClient {
    /// A failed call: the D-Bus error name (`(local)` for a local failure such as a timeout) and message.
    package struct CallError: Error, CustomStringConvertible {
        package let name: String
        package let message: String
        package var description: String { "\(name): \(message)" }
    }

    static let service = "org.freedesktop.Secret.Service"
    static let collectionInterface = "org.freedesktop.Secret.Collection"
    static let itemInterface = "org.freedesktop.Secret.Item"
    static let properties = "org.freedesktop.DBus.Properties"
    static let servicePath = "/org/freedesktop/secrets"
    /// The error a provider answers for a locked collection or item.
    static let isLockedError = "org.freedesktop.Secret.Error.IsLocked"

    let bus: BusConnection
    var connection: OpaquePointer { bus.pointer }
    let busName: String
    /// Milliseconds each call may take (a provider that answers nothing must not hang the migration).
    let timeoutMilliseconds: Int32
    /// The open session (set by ``openSession()``; tests set one the provider does not use, to make
    /// replies undecodable).
    var session: TransportSession?
    var sessionPath = "/"

    /// - Parameters:
    ///   - connection: a `GDBusConnection` to the bus the provider is on (referenced for the client's life).
    ///   - busName: the provider's well-known name, normally `org.freedesktop.secrets`.
    ///   - timeoutMilliseconds: the longest wait for one reply.
    package init(connection: OpaquePointer, busName: String, timeoutMilliseconds: Int32 = 60_000) {
        bus = BusConnection(connection)
        self.busName = busName
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    deinit {
        if sessionPath != "/" {
            _ = try? call(sessionPath, "org.freedesktop.Secret.Session", "Close", [])
        }
    }

    // MARK: - The bus

    /// The unique name and process of the name's owner, or `nil` when nobody owns it.
    /// - Returns: `unique`; `pid` when the bus gives it; `program`, the owner's program name from
    ///   ``programName(pid:)``, else "".
    package func owner() throws(CallError) -> (unique: String, pid: UInt32?, program: String)? {
        let has = try busCall("NameHasOwner", [Variant.string(busName)])
        defer { g_variant_unref(has) }
        guard Variant.withChild(has, 0, Variant.readBoolean) else { return nil }
        let ownerReply = try busCall("GetNameOwner", [Variant.string(busName)])
        let unique = Variant.withChild(ownerReply, 0, Variant.readString)
        g_variant_unref(ownerReply)
        var program = ""
        var pid: UInt32?
        if let pidReply = try? busCall("GetConnectionUnixProcessID", [Variant.string(unique)]) {
            let number = Variant.withChild(pidReply, 0) { g_variant_get_uint32($0) }
            g_variant_unref(pidReply)
            pid = number
            program = Self.programName(pid: number)
        }
        return (unique, pid, program)
    }

    /// The whole file name of process `pid`'s program: the last component of `/proc/<pid>/exe` (a
    /// binary replaced since it started reads `… (deleted)`, which is dropped), else of the first
    /// argument in `/proc/<pid>/cmdline`, else `/proc/<pid>/comm`, which the kernel cuts to 15 bytes
    /// (`keychain-secret`); "" when none is readable (another user's process, a process gone).
    package static func programName(pid: UInt32) -> String {
        func lastComponent(_ path: String) -> String {
            String(path.split(separator: "/", omittingEmptySubsequences: true).last ?? "")
        }
        if let link = g_file_read_link("/proc/\(pid)/exe", nil) {
            defer { g_free(link) }
            var path = String(cString: link)
            if path.hasSuffix(" (deleted)") { path.removeLast(" (deleted)".count) }
            let name = lastComponent(path)
            if !name.isEmpty { return name }
        }
        for (file, cut) in [("cmdline", UInt8(0)), ("comm", UInt8(ascii: "\n"))] {
            var contents: UnsafeMutablePointer<gchar>?
            var length: gsize = 0
            guard g_file_get_contents("/proc/\(pid)/\(file)", &contents, &length, nil) != 0, let contents else {
                continue
            }
            defer { g_free(contents) }
            let bytes = UnsafeRawBufferPointer(start: contents, count: Int(length))
            let name = lastComponent(String(decoding: bytes.prefix { $0 != cut }, as: UTF8.self))
            if !name.isEmpty { return name }
        }
        return ""
    }

    /// Whether `program` (from ``programName(pid:)``) is this project's provider; a name the kernel cut
    /// to 15 bytes counts too.
    package static func isOwnProvider(_ program: String) -> Bool {
        program == SecretServiceDaemon.programName
            || (program.utf8.count == 15 && SecretServiceDaemon.programName.hasPrefix(program))
    }

    /// Calls a method of the bus itself (`org.freedesktop.DBus`). - Returns: the reply (the caller unrefs it).
    func busCall(_ method: String, _ arguments: [OpaquePointer]) throws(CallError) -> OpaquePointer {
        try call(
            "/org/freedesktop/DBus", "org.freedesktop.DBus", method, arguments, destination: "org.freedesktop.DBus")
    }

    // MARK: - Calls

    /// Calls a method on the provider. - Returns: the reply tuple (the caller unrefs it).
    func call(
        _ path: String, _ interface: String, _ method: String, _ arguments: [OpaquePointer],
        destination: String? = nil
    ) throws(CallError) -> OpaquePointer {
        var error: UnsafeMutablePointer<GError>?
        let reply = g_dbus_connection_call_sync(
            connection, destination ?? busName, path, interface, method, Variant.tuple(arguments), nil,
            G_DBUS_CALL_FLAGS_NO_AUTO_START, gint(timeoutMilliseconds), nil, &error)
        if let reply { return reply }
        let remote = error.flatMap { g_dbus_error_get_remote_error($0) }
        let name = remote.map { String(cString: $0) } ?? "(local)"
        g_free(remote)
        if let error { g_dbus_error_strip_remote_error(error) }
        let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
        if let error { g_error_free(error) }
        throw CallError(name: name, message: message)
    }

    /// `org.freedesktop.DBus.Properties.GetAll` as unboxed values (the caller releases them with
    /// ``Variant/release(_:)``).
    func allProperties(_ path: String, _ interface: String) throws(CallError) -> [String: OpaquePointer] {
        let reply = try call(path, Self.properties, "GetAll", [Variant.string(interface)])
        defer { g_variant_unref(reply) }
        guard Variant.isOfType(reply, "(a{sv})") else {
            throw CallError(name: "(local)", message: "GetAll on \(path) answered an unexpected type")
        }
        return Variant.withChild(reply, 0, Variant.readVariantMap)
    }

    // MARK: - Service

    /// Opens a DH session, or a `plain` one when the provider answers `NotSupported` to DH.
    func openSession() throws(CallError) {
        let agreement: DHIETF1024KeyAgreement
        do { agreement = try DHIETF1024KeyAgreement() } catch {
            throw CallError(name: "(local)", message: "cannot make a DH key: \(error)")
        }
        do throws(CallError) {
            let reply = try call(
                Self.servicePath, Self.service, "OpenSession",
                [Variant.string(TransportSession.dhName), Variant.boxed(Variant.bytes(agreement.publicKey))])
            defer { g_variant_unref(reply) }
            let output = Variant.withChild(reply, 0) { g_variant_get_variant($0)! }
            defer { g_variant_unref(output) }
            let path = Variant.withChild(reply, 1, Variant.readString)
            guard Variant.isOfType(output, "ay") else {
                throw CallError(name: "(local)", message: "OpenSession answered no public key")
            }
            let key: SecureBytes
            do {
                key = try Variant.withBytes(output) { (peer) throws(SessionCryptoError) in
                    try agreement.sessionKey(peerPublicKey: peer)
                }
            } catch {
                throw CallError(name: "(local)", message: "the provider's public key is invalid: \(error)")
            }
            session = TransportSession(id: path, owner: "", algorithm: .dhAES(key: key))
            sessionPath = path
        } catch  where error.name == "org.freedesktop.DBus.Error.NotSupported" {
            let reply = try call(
                Self.servicePath, Self.service, "OpenSession",
                [Variant.string(TransportSession.plainName), Variant.boxed(Variant.string(""))])
            defer { g_variant_unref(reply) }
            sessionPath = Variant.withChild(reply, 1, Variant.readString)
            session = TransportSession(id: sessionPath, owner: "", algorithm: .plain)
        }
    }

    /// Whether the open session encrypts (DH) rather than `plain`.
    package var sessionIsEncrypted: Bool {
        if case .dhAES = session?.algorithm { return true }
        return false
    }

    /// The path an alias names, or `nil` (`ReadAlias` answered `/` or failed).
    func readAlias(_ name: String) -> String? {
        guard let reply = try? call(Self.servicePath, Self.service, "ReadAlias", [Variant.string(name)]) else {
            return nil
        }
        defer { g_variant_unref(reply) }
        let path = Variant.withChild(reply, 0, Variant.readString)
        return path == "/" ? nil : path
    }

    /// The service's `Collections` property.
    func collectionPaths() throws(CallError) -> [String] {
        let reply = try call(
            Self.servicePath, Self.properties, "Get", [Variant.string(Self.service), Variant.string("Collections")])
        defer { g_variant_unref(reply) }
        return Variant.withChild(reply, 0) { boxed in
            let value = g_variant_get_variant(boxed)!
            defer { g_variant_unref(value) }
            return Variant.isOfType(value, "ao") ? Variant.readStrings(value) : []
        }
    }

    /// The named properties of `interface` on `path`, read one `Get` at a time (the caller releases them
    /// with ``Variant/release(_:)``): for providers whose `GetAll` fails as a whole when one property
    /// cannot be read (KeePassXC answers `IsLocked` for a locked collection's `Created`). Properties
    /// that fail are left out.
    func properties(_ path: String, _ interface: String, _ names: [String]) -> [String: OpaquePointer] {
        var result: [String: OpaquePointer] = [:]
        for name in names {
            guard
                let reply = try? call(path, Self.properties, "Get", [Variant.string(interface), Variant.string(name)])
            else { continue }
            result[name] = Variant.withChild(reply, 0) { g_variant_get_variant($0)! }
            g_variant_unref(reply)
        }
        return result
    }

    /// `Unlock(paths)` (collections or items) and, when the provider answers with a prompt, runs it and
    /// waits for `Completed`.
    /// - Returns: whether the prompt completed without being dismissed (or no prompt was needed).
    func unlock(_ paths: [String], promptTimeoutSeconds: UInt32) throws(CallError) -> Bool {
        let reply = try call(Self.servicePath, Self.service, "Unlock", [Variant.objectPaths(paths)])
        let prompt = Variant.withChild(reply, 1, Variant.readString)
        g_variant_unref(reply)
        guard prompt != "/" else { return true }
        return try runPrompt(prompt, timeoutSeconds: promptTimeoutSeconds)
    }

    /// Calls `Prompt("")` on a prompt object and waits up to `timeoutSeconds` for its `Completed` signal.
    /// - Returns: `true` when it completed without dismissal; `false` when dismissed or timed out
    ///   (a timed-out prompt is dismissed).
    func runPrompt(_ prompt: String, timeoutSeconds: UInt32) throws(CallError) -> Bool {
        final class Outcome {
            var done = false
            var dismissed = true
        }
        let outcome = Outcome()
        let subscription = bus.subscribe(
            sender: nil, interface: "org.freedesktop.Secret.Prompt", member: "Completed", path: prompt
        ) { signal in
            outcome.done = true
            if Variant.isOfType(signal.parameters, "(bv)") {
                outcome.dismissed = Variant.withChild(signal.parameters, 0, Variant.readBoolean)
            }
        }
        defer { subscription.cancel() }
        g_variant_unref(try call(prompt, "org.freedesktop.Secret.Prompt", "Prompt", [Variant.string("")]))
        let deadline = g_get_monotonic_time() + Int(timeoutSeconds) * 1_000_000
        let context = g_main_context_ref_thread_default()
        defer { g_main_context_unref(context) }
        while !outcome.done, g_get_monotonic_time() < deadline {
            // A wake-up source so that the loop re-checks the deadline even when no message comes.
            let timer = g_timeout_source_new(100)
            g_source_set_callback(timer, { _ in cgio_source_remove() }, nil, nil)
            g_source_attach(timer, context)
            g_main_context_iteration(context, 1)
            g_source_destroy(timer)
            g_source_unref(timer)
        }
        if !outcome.done {
            _ = try? call(prompt, "org.freedesktop.Secret.Prompt", "Dismiss", [])
            return false
        }
        return !outcome.dismissed
    }

    /// `GetSecrets(items, session)`: the secrets of the unlocked items among `paths`, decoded into
    /// zeroising memory. Items the provider leaves out (locked) are absent from `secrets`; an entry
    /// that cannot be decoded (a bad IV or padding under the DH session) is left out too and named in
    /// `undecodable`, so that one bad entry never costs the rest of the batch.
    /// - Throws: ``CallError`` when the call fails or its reply is not `(a{o(oayays)})`.
    func secrets(of paths: [String]) throws(CallError)
        -> (secrets: [String: StoredSecret], undecodable: [String: String])
    {
        guard let session else { throw CallError(name: "(local)", message: "no session is open") }
        let reply = try call(
            Self.servicePath, Self.service, "GetSecrets", [Variant.objectPaths(paths), Variant.objectPath(sessionPath)])
        defer { g_variant_unref(reply) }
        guard Variant.isOfType(reply, "(a{o(oayays)})") else {
            throw CallError(name: "(local)", message: "GetSecrets answered an unexpected type")
        }
        var result: [String: StoredSecret] = [:]
        var undecodable: [String: String] = [:]
        Variant.withChild(reply, 0) { map in
            for index in 0..<Variant.childCount(map) {
                Variant.withChild(map, index) { entry in
                    let path = Variant.withChild(entry, 0, Variant.readString)
                    do throws(CallError) {
                        result[path] = try Variant.withChild(entry, 1) { (value) throws(CallError) in
                            try decode(value, session)
                        }
                    } catch {
                        undecodable[path] = error.message
                    }
                }
            }
        }
        return (result, undecodable)
    }

    /// `Item.GetSecret(session)`: one item's secret, decoded into zeroising memory.
    /// - Throws: the provider's error (`org.freedesktop.Secret.Error.IsLocked` for a locked item).
    func secret(of path: String) throws(CallError) -> StoredSecret {
        guard let session else { throw CallError(name: "(local)", message: "no session is open") }
        let reply = try call(path, Self.itemInterface, "GetSecret", [Variant.objectPath(sessionPath)])
        defer { g_variant_unref(reply) }
        guard Variant.isOfType(reply, "((oayays))") else {
            throw CallError(name: "(local)", message: "GetSecret answered an unexpected type")
        }
        let value = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(value) }
        return try decode(value, session)
    }

    /// Decodes a `(oayays)` secret.
    private func decode(_ value: OpaquePointer, _ session: TransportSession) throws(CallError) -> StoredSecret {
        let contentType = Variant.withChild(value, 3, Variant.readString)
        do {
            let bytes = try Variant.withChild(value, 1) { (parameters) throws(SessionCryptoError) in
                try Variant.withChild(value, 2) { (payload) throws(SessionCryptoError) in
                    try Variant.withBytes(parameters) { (parameterBytes) throws(SessionCryptoError) in
                        try Variant.withBytes(payload) { (valueBytes) throws(SessionCryptoError) in
                            try session.decode(parameters: parameterBytes, value: valueBytes)
                        }
                    }
                }
            }
            return StoredSecret(value: bytes, contentType: contentType)
        } catch {
            throw CallError(name: "(local)", message: "a secret could not be decoded: \(error)")
        }
    }
}
