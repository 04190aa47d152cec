internal import CGIO
internal import KeychainCore

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// The Secret portal backend: `org.freedesktop.impl.portal.Secret` on `/org/freedesktop/portal/desktop`,
/// served by `keychain-secret-service` on its bus name, so that xdg-desktop-portal hands a sandboxed
/// app a master secret of its own (which libsecret's file backend inside the sandbox turns into the key
/// of the app's keyring file) on every desktop, not only GNOME.
///
/// `RetrieveSecret(o handle, s app_id, h fd, a{sv} options) → (u response, a{sv} results)`
/// (xdg-desktop-portal, `org.freedesktop.impl.portal.Secret.xml`, version 1):
/// - Only the portal frontend may call it: the caller must be the current owner of
///   `org.freedesktop.portal.Desktop` (asked of the bus for each call); any other connection gets
///   `org.freedesktop.DBus.Error.AccessDenied`. The app id is the frontend's argument, read by the
///   frontend from the sandbox; anything the app put in `options` (an `app_id` key included) is ignored.
/// - The master secret (``PortalSecretVault``) is made on the app's first call and returned on every
///   later one; it is written to `fd` (64 bytes), then the call answers `(0, {"token": <its token>})`.
/// - `options["token"]` (a string: the `token` of an earlier answer): the call returns that secret, or
///   fails when the app has no secret of that name, without making a new one. An empty token counts as
///   none. Every other option is ignored.
/// - A locked keychain (a master secret is AfterFirstUnlock: locked only until the first unlock of the
///   session): the store's unlock prompt is shown; dismissed, or no prompter can be shown → `(1, {})`.
/// - While the call runs, an `org.freedesktop.impl.portal.Request` object is exported at `handle`; its
///   `Close` ends the call with `(1, {})` and closes any prompt. It goes when the call ends.
/// - Bad input gets a D-Bus error and stores nothing: an app id that is not one (``PortalAppID``),
///   `org.freedesktop.DBus.Error.InvalidArgs`; a `fd` index the message does not carry or an fd not open
///   for writing (checked before any secret is made), `InvalidArgs`; a `token` that is not a string,
///   `InvalidArgs`; a second call with the `handle` of a pending one, `InvalidArgs`; a write that fails
///   (the reading end closed: `EPIPE`; nobody reads within 5 seconds), `org.freedesktop.DBus.Error.Failed`
///   naming the cause (the secret stays stored, once: the next call returns the same one).
///
/// Threading: every callback runs on the GLib main context that was the thread default when
/// ``start()`` ran, as the Secret Service provider's do; not `Sendable`.
package final class SecretPortal {
    /// The object path of every portal backend.
    package static let objectPath = "/org/freedesktop/portal/desktop"
    /// The backend interface.
    package static let interface = "org.freedesktop.impl.portal.Secret"
    /// The interface of the object at a call's `handle`.
    package static let requestInterface = "org.freedesktop.impl.portal.Request"
    /// The portal frontend's bus name: the only caller accepted.
    package static let frontendBusName = "org.freedesktop.portal.Desktop"
    /// The interface version served (the `version` property).
    package static let version: UInt32 = 1
    /// How long a write to the caller's fd may wait for room, in milliseconds.
    static let writeTimeoutMilliseconds: Int32 = 5_000

    /// The portal API's `response` codes (xdg-desktop-portal, `org.freedesktop.portal.Request`).
    package enum Response: UInt32, Sendable {
        /// Success: the secret was written to the fd.
        case success = 0
        /// The user cancelled (dismissed the unlock prompt), or the request was closed.
        case cancelled = 1
        /// The interaction ended some other way.
        case other = 2
    }

    static let xml = """
        <node>
          <interface name="org.freedesktop.impl.portal.Secret">
            <method name="RetrieveSecret">
              <arg type="o" name="handle" direction="in"/>
              <arg type="s" name="app_id" direction="in"/>
              <arg type="h" name="fd" direction="in"/>
              <arg type="a{sv}" name="options" direction="in"/>
              <arg type="u" name="response" direction="out"/>
              <arg type="a{sv}" name="results" direction="out"/>
            </method>
            <property name="version" type="u" access="read"/>
          </interface>
          <interface name="org.freedesktop.impl.portal.Request">
            <method name="Close"/>
          </interface>
        </node>
        """

    let connection: OpaquePointer
    let store: any SecretStore
    let vault: any PortalSecretVault
    /// Called on every call; the daemon restarts its idle clock from it.
    package var activityHandler: (() -> Void)?
    /// Called when an unlock prompt could not be shown (no prompter): the provider logs why, once.
    package var noPrompterHandler: (() -> Void)?

    private let nodeInfo: UnsafeMutablePointer<GDBusNodeInfo>
    private let secretVTable: UnsafeMutablePointer<GDBusInterfaceVTable>
    private let requestVTable: UnsafeMutablePointer<GDBusInterfaceVTable>
    private var registration: guint = 0
    private var signalSubscription: guint = 0
    /// Calls in progress, by `handle`.
    var requests: [String: PendingRequest] = [:]

    /// One `RetrieveSecret` in progress; answered exactly once, by ``SecretPortal/finish(_:_:)``.
    final class PendingRequest {
        let handle: String
        /// The frontend connection's unique name.
        let owner: String
        let app: PortalAppID
        let token: String?
        /// The caller's fd (a duplicate this process owns), closed when the call ends.
        let fd: Int32
        let invocation: OpaquePointer
        var registration: guint = 0
        var job: BackgroundPrompt?
        var unlockTried = false

        init(handle: String, owner: String, app: PortalAppID, token: String?, fd: Int32, invocation: OpaquePointer) {
            self.handle = handle
            self.owner = owner
            self.app = app
            self.token = token
            self.fd = fd
            self.invocation = invocation
        }
    }

    /// How a call ends.
    enum Outcome {
        case response(Response, token: String?)
        case failure(DBusFailure)
    }

    /// Prepares the backend for `connection` (which it references).
    /// - Parameters:
    ///   - connection: the provider's bus connection.
    ///   - store: the provider's store, whose unlock prompt a locked vault uses.
    ///   - vault: where master secrets are kept.
    package init(connection: OpaquePointer, store: any SecretStore, vault: any PortalSecretVault) {
        self.connection = connection
        g_object_ref(UnsafeMutableRawPointer(connection))
        self.store = store
        self.vault = vault
        var error: UnsafeMutablePointer<GError>?
        guard let info = g_dbus_node_info_new_for_xml(Self.xml, &error) else {
            fatalError("the built-in portal introspection XML does not parse")
        }
        nodeInfo = info
        secretVTable = .allocate(capacity: 1)
        secretVTable.initialize(to: Self.makeSecretVTable())
        requestVTable = .allocate(capacity: 1)
        requestVTable.initialize(to: Self.makeRequestVTable())
    }

    deinit {
        stop()
        g_dbus_node_info_unref(nodeInfo)
        secretVTable.deallocate()
        requestVTable.deallocate()
        g_object_unref(UnsafeMutableRawPointer(connection))
    }

    /// Exports the backend object and starts watching the frontend leave. Call once, before the bus
    /// name is requested.
    /// - Throws: ``ProviderError/registration(_:)`` if GDBus refuses the path.
    package func start() throws(ProviderError) {
        guard registration == 0 else { return }
        var error: UnsafeMutablePointer<GError>?
        registration = g_dbus_connection_register_object(
            connection, Self.objectPath, g_dbus_node_info_lookup_interface(nodeInfo, Self.interface), secretVTable,
            Unmanaged.passUnretained(self).toOpaque(), nil, &error)
        if registration == 0 {
            throw .registration("\(Self.objectPath): \(SecretServiceDaemon.consume(error))")
        }
        signalSubscription = g_dbus_connection_signal_subscribe(
            connection, "org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged", "/org/freedesktop/DBus",
            nil, G_DBUS_SIGNAL_FLAGS_NONE,
            { _, _, _, _, _, parameters, userData in
                guard let parameters, let userData, Variant.isOfType(parameters, "(sss)") else { return }
                let name = Variant.withChild(parameters, 0, Variant.readString)
                let newOwner = Variant.withChild(parameters, 2, Variant.readString)
                guard newOwner.isEmpty, name.hasPrefix(":") else { return }
                Unmanaged<SecretPortal>.fromOpaque(userData).takeUnretainedValue().clientLeft(name)
            }, Unmanaged.passUnretained(self).toOpaque(), nil)
    }

    /// Ends every pending call (as closed), unexports the object. Idempotent.
    package func stop() {
        for request in Array(requests.values) {
            request.job?.cancel()
            finish(request, .response(.cancelled, token: nil))
        }
        if registration != 0 { g_dbus_connection_unregister_object(connection, registration) }
        registration = 0
        if signalSubscription != 0 { g_dbus_connection_signal_unsubscribe(connection, signalSubscription) }
        signalSubscription = 0
    }

    /// Calls in progress (the provider is not idle while there are any).
    package var pendingRequestCount: Int { requests.count }

    // MARK: - RetrieveSecret

    private func retrieveSecret(_ invocation: OpaquePointer, sender: String, parameters: OpaquePointer) {
        activityHandler?()
        guard isFrontend(sender) else {
            return Self.fail(
                invocation,
                .accessDenied(
                    "\(Self.interface) answers only the portal frontend (the owner of \(Self.frontendBusName))"))
        }
        let handle = Variant.withChild(parameters, 0, Variant.readString)
        let rawApp = Variant.withChild(parameters, 1, Variant.readString)
        let index = Variant.withChild(parameters, 2) { g_variant_get_handle($0) }
        guard let app = PortalAppID(rawApp) else {
            let shown =
                rawApp.utf8.count > PortalAppID.maximumBytes ? "an id of \(rawApp.utf8.count) bytes" : "“\(rawApp)”"
            return Self.fail(
                invocation,
                .invalidArgs("\(shown) is not an application id (dot-separated elements of A-Z, a-z, 0-9, _ and -)"))
        }
        let token: String?
        switch Variant.withChild(parameters, 3, { Self.tokenOption($0) }) {
        case .success(let value): token = value
        case .failure(let failure): return Self.fail(invocation, failure)
        }
        guard requests[handle] == nil else {
            return Self.fail(invocation, .invalidArgs("a request with handle \(handle) is in progress"))
        }
        let fd: Int32
        switch Self.takeDescriptor(invocation, index: index) {
        case .success(let value): fd = value
        case .failure(let failure): return Self.fail(invocation, failure)
        }
        let request = PendingRequest(
            handle: handle, owner: sender, app: app, token: token, fd: fd, invocation: invocation)
        requests[handle] = request
        request.registration = g_dbus_connection_register_object(
            connection, handle, g_dbus_node_info_lookup_interface(nodeInfo, Self.requestInterface), requestVTable,
            Unmanaged.passUnretained(self).toOpaque(), nil, nil)
        proceed(request)
    }

    /// Gets (or makes) the secret and writes it; asks to unlock once when the keychain is locked.
    private func proceed(_ request: PendingRequest) {
        do {
            let master = try vault.masterSecret(for: request.app, token: request.token)
            if let problem = Self.write(master.secret, to: request.fd) {
                finish(request, .failure(.failed("cannot give \(request.app) its secret: \(problem)")))
            } else {
                finish(request, .response(.success, token: master.token))
            }
        } catch .isLocked where !request.unlockTried {
            unlock(request)
        } catch .isLocked {
            finish(request, .response(.cancelled, token: nil))
        } catch {
            finish(request, .failure(DBusFailure(error, path: Self.objectPath)))
        }
    }

    /// Unlocks the vault's collection through the store's prompt (on a worker thread when the store
    /// can), then tries again; a dismissed prompt, or none that can be shown, ends the call cancelled.
    private func unlock(_ request: PendingRequest) {
        request.unlockTried = true
        guard let id = vault.portalCollection else { return finish(request, .response(.cancelled, token: nil)) }
        guard let work = store.backgroundUnlock(id) else {
            let unlocked = (try? store.unlockFromPrompt(id)) ?? false
            return unlocked ? proceed(request) : finish(request, .response(.cancelled, token: nil))
        }
        let job = BackgroundPrompt(work: [work])
        job.owner = request.owner
        job.onResults = { [unowned self, unowned request] answers in
            request.job = nil
            switch answers.first ?? nil {
            case true?: self.proceed(request)
            case false?: self.finish(request, .response(.cancelled, token: nil))
            case nil:
                self.noPrompterHandler?()
                self.finish(request, .response(.cancelled, token: nil))
            }
        }
        request.job = job
        job.start()
    }

    /// Answers the call, closes the fd and unexports its Request object.
    func finish(_ request: PendingRequest, _ outcome: Outcome) {
        guard requests.removeValue(forKey: request.handle) != nil else { return }
        if request.registration != 0 { g_dbus_connection_unregister_object(connection, request.registration) }
        request.registration = 0
        close(request.fd)
        switch outcome {
        case .response(let response, let token):
            let results = Variant.variantMap(token.map { [("token", Variant.string($0))] } ?? [])
            g_dbus_method_invocation_return_value(
                request.invocation, Variant.tuple([Variant.uint32(response.rawValue), results]))
        case .failure(let failure):
            Self.fail(request.invocation, failure)
        }
    }

    /// `Close` on a Request object: closes its prompt and ends the call cancelled.
    private func closeRequest(_ invocation: OpaquePointer, sender: String, path: String) {
        activityHandler?()
        if let request = requests[path] {
            guard request.owner == sender else {
                return Self.fail(invocation, .accessDenied("only the connection that made a request may close it"))
            }
            request.job?.cancel()
            finish(request, .response(.cancelled, token: nil))
        }
        g_dbus_method_invocation_return_value(invocation, nil)
    }

    /// The frontend left the bus: its calls end (their answers go nowhere) and their prompts close.
    private func clientLeft(_ name: String) {
        for request in Array(requests.values) where request.owner == name {
            request.job?.cancel()
            finish(request, .response(.cancelled, token: nil))
        }
    }

    // MARK: - Caller and arguments

    /// Whether `sender` owns `org.freedesktop.portal.Desktop` now (`GetNameOwner`).
    private func isFrontend(_ sender: String) -> Bool {
        let reply = g_dbus_connection_call_sync(
            connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
            Variant.tuple([Variant.string(Self.frontendBusName)]), nil, G_DBUS_CALL_FLAGS_NONE, 5_000, nil, nil)
        guard let reply else { return false }
        defer { g_variant_unref(reply) }
        guard Variant.isOfType(reply, "(s)") else { return false }
        return Variant.withChild(reply, 0, Variant.readString) == sender
    }

    /// The `token` option: `nil` when absent or empty; a failure when it is not a string.
    static func tokenOption(_ options: OpaquePointer) -> Result<String?, DBusFailure> {
        guard let value = g_variant_lookup_value(options, "token", nil) else { return .success(nil) }
        defer { g_variant_unref(value) }
        guard Variant.isOfType(value, "s") else { return .failure(.invalidArgs("the token option must be a string")) }
        let token = Variant.readString(value)
        return .success(token.isEmpty ? nil : token)
    }

    /// Takes a duplicate of the message's fd at `index`, checked to be open for writing.
    static func takeDescriptor(_ invocation: OpaquePointer, index: Int32) -> Result<Int32, DBusFailure> {
        let message = g_dbus_method_invocation_get_message(invocation)
        guard let list = g_dbus_message_get_unix_fd_list(message), index >= 0,
            index < g_unix_fd_list_get_length(list)
        else { return .failure(.invalidArgs("the call carries no file descriptor at index \(index)")) }
        let fd = g_unix_fd_list_get(list, index, nil)
        guard fd >= 0 else { return .failure(.invalidArgs("the call's file descriptor cannot be used")) }
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, flags & O_ACCMODE != O_RDONLY else {
            close(fd)
            return .failure(.invalidArgs("the file descriptor is not open for writing"))
        }
        return .success(fd)
    }

    /// Writes `secret` to `fd`. - Returns: `nil` once every byte is written, otherwise the cause.
    static func write(_ secret: SecureBytes, to fd: Int32) -> String? {
        secret.withUnsafeBytes { bytes -> String? in
            var offset = 0
            while offset < bytes.count {
                var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                let ready = poll(&poller, 1, writeTimeoutMilliseconds)
                if ready < 0, errno == EINTR { continue }
                if ready == 0 {
                    return "nobody read the file descriptor within \(writeTimeoutMilliseconds / 1000) seconds"
                }
                let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    let code = errno
                    if code == EINTR || code == EAGAIN { continue }
                    if code == EPIPE { return "the file descriptor's reading end is closed (EPIPE)" }
                    return "cannot write to the file descriptor: \(String(cString: strerror(code)))"
                }
                offset += written
            }
            return nil
        }
    }

    static func fail(_ invocation: OpaquePointer, _ failure: DBusFailure) {
        g_dbus_method_invocation_return_dbus_error(invocation, failure.name, failure.message)
    }

    // MARK: - C callbacks

    private static func makeSecretVTable() -> GDBusInterfaceVTable {
        var table = GDBusInterfaceVTable()
        table.method_call = { _, sender, _, _, method, parameters, invocation, userData in
            guard let userData, let invocation, let parameters else { return }
            let portal = Unmanaged<SecretPortal>.fromOpaque(userData).takeUnretainedValue()
            guard String(cString: method!) == "RetrieveSecret" else {
                return SecretPortal.fail(
                    invocation, DBusFailure(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "No such method")
                )
            }
            portal.retrieveSecret(invocation, sender: sender.map { String(cString: $0) } ?? "", parameters: parameters)
        }
        table.get_property = { _, _, _, _, name, error, _ in
            if String(cString: name!) == "version" { return g_variant_new_uint32(SecretPortal.version) }
            g_set_error_literal(
                error, g_dbus_error_quark(), gint(G_DBUS_ERROR_UNKNOWN_PROPERTY.rawValue), "No such property")
            return nil
        }
        return table
    }

    private static func makeRequestVTable() -> GDBusInterfaceVTable {
        var table = GDBusInterfaceVTable()
        table.method_call = { _, sender, path, _, _, _, invocation, userData in
            guard let userData, let invocation else { return }
            Unmanaged<SecretPortal>.fromOpaque(userData).takeUnretainedValue()
                .closeRequest(
                    invocation, sender: sender.map { String(cString: $0) } ?? "", path: String(cString: path!))
        }
        return table
    }
}
