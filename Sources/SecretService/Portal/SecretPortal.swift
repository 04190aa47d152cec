internal import CGIO
internal import KeychainCore
internal import KeychainDBus

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

    let bus: BusConnection
    let store: any SecretStore
    let vault: any PortalSecretVault
    /// Called on every call; the daemon restarts its idle clock from it.
    package var activityHandler: (() -> Void)?
    /// Called when an unlock prompt could not be shown (no prompter): the provider logs why, once.
    package var noPrompterHandler: (() -> Void)?

    private let nodeInfo = BusNodeInfo(builtIn: SecretPortal.xml, "portal")
    /// The `Close` method of every Request object (set in ``start()``; it holds this backend `unowned`).
    private var requestHandler: BusInterfaceHandler?
    private var registration: BusRegistration?
    private var frontendLeaving: BusSignalSubscription?
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
        /// The call, answered when the request ends (a deferred reply).
        let call: MethodCall
        var registration: BusRegistration?
        var job: BackgroundPrompt?
        var unlockTried = false

        init(handle: String, owner: String, app: PortalAppID, token: String?, fd: Int32, call: MethodCall) {
            self.handle = handle
            self.owner = owner
            self.app = app
            self.token = token
            self.fd = fd
            self.call = call
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
        bus = BusConnection(connection)
        self.store = store
        self.vault = vault
    }

    deinit { stop() }

    /// Exports the backend object and starts watching the frontend leave. Call once, before the bus
    /// name is requested.
    /// - Throws: ``ProviderError/registration(_:)`` if GDBus refuses the path.
    package func start() throws(ProviderError) {
        guard registration == nil else { return }
        let secretHandler = BusInterfaceHandler(
            methodCall: { [unowned self] call in
                guard call.method == "RetrieveSecret" else {
                    return call.fail(
                        DBusFailure(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "No such method"))
                }
                self.retrieveSecret(call)
            },
            getProperty: { access in
                access.name == "version"
                    ? .success(Variant.uint32(SecretPortal.version))
                    : .failure(BusPropertyFailure(code: G_DBUS_ERROR_UNKNOWN_PROPERTY, message: "No such property"))
            })
        requestHandler = BusInterfaceHandler { [unowned self] call in self.closeRequest(call) }
        do {
            registration = try bus.registerObject(
                Self.objectPath, interface: nodeInfo.interface(Self.interface), handler: secretHandler)
        } catch {
            throw .registration(error.description)
        }
        frontendLeaving = bus.subscribeToClientsLeaving { [unowned self] name in self.clientLeft(name) }
    }

    /// Ends every pending call (as closed), unexports the object. Idempotent.
    package func stop() {
        for request in Array(requests.values) {
            request.job?.cancel()
            finish(request, .response(.cancelled, token: nil))
        }
        registration?.cancel()
        registration = nil
        frontendLeaving?.cancel()
        frontendLeaving = nil
    }

    /// Calls in progress (the provider is not idle while there are any).
    package var pendingRequestCount: Int { requests.count }

    // MARK: - RetrieveSecret

    private func retrieveSecret(_ call: MethodCall) {
        activityHandler?()
        let sender = call.sender
        let parameters = call.parameters
        guard isFrontend(sender) else {
            return call.fail(
                .accessDenied(
                    "\(Self.interface) answers only the portal frontend (the owner of \(Self.frontendBusName))"))
        }
        let handle = Variant.withChild(parameters, 0, Variant.readString)
        let rawApp = Variant.withChild(parameters, 1, Variant.readString)
        let index = Variant.withChild(parameters, 2) { g_variant_get_handle($0) }
        guard let app = PortalAppID(rawApp) else {
            let shown =
                rawApp.utf8.count > PortalAppID.maximumBytes ? "an id of \(rawApp.utf8.count) bytes" : "“\(rawApp)”"
            return call.fail(
                .invalidArgs("\(shown) is not an application id (dot-separated elements of A-Z, a-z, 0-9, _ and -)"))
        }
        let token: String?
        switch Variant.withChild(parameters, 3, { Self.tokenOption($0) }) {
        case .success(let value): token = value
        case .failure(let failure): return call.fail(failure)
        }
        guard requests[handle] == nil else {
            return call.fail(.invalidArgs("a request with handle \(handle) is in progress"))
        }
        let fd: Int32
        switch Self.takeDescriptor(call, index: index) {
        case .success(let value): fd = value
        case .failure(let failure): return call.fail(failure)
        }
        let request = PendingRequest(handle: handle, owner: sender, app: app, token: token, fd: fd, call: call)
        requests[handle] = request
        if let requestHandler {
            request.registration = try? bus.registerObject(
                handle, interface: nodeInfo.interface(Self.requestInterface), handler: requestHandler)
        }
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
        request.registration?.cancel()
        request.registration = nil
        close(request.fd)
        switch outcome {
        case .response(let response, let token):
            let results = Variant.variantMap(token.map { [("token", Variant.string($0))] } ?? [])
            request.call.reply([Variant.uint32(response.rawValue), results])
        case .failure(let failure):
            request.call.fail(failure)
        }
    }

    /// `Close` on a Request object: closes its prompt and ends the call cancelled.
    private func closeRequest(_ call: MethodCall) {
        activityHandler?()
        if let request = requests[call.path] {
            guard request.owner == call.sender else {
                return call.fail(.accessDenied("only the connection that made a request may close it"))
            }
            request.job?.cancel()
            finish(request, .response(.cancelled, token: nil))
        }
        call.reply([])
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
            bus.pointer, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
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
    static func takeDescriptor(_ call: MethodCall, index: Int32) -> Result<Int32, DBusFailure> {
        guard let fd = call.takeFileDescriptor(at: index) else {
            return .failure(.invalidArgs("the call carries no usable file descriptor at index \(index)"))
        }
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
}
