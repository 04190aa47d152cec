internal import CGIO
internal import KeychainCore
internal import KeychainDBus

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// The session agent (tracker issue 25, item 2): watches systemd-logind on the system bus and locks
/// the keychains whose settings ask for it (``LockOnSleep``, `security set-keychain-settings -l`)
///
/// - when one of the user's sessions locks its screen (the session's `Lock` signal, or its
///   `LockedHint` becoming true, which screen lockers set);
/// - before the machine sleeps (the manager's `PrepareForSleep(true)`), holding a **delay
///   inhibitor** (`Inhibit("sleep", …, "delay")`) that it closes only after locking, so that the lock
///   happens before suspend; a new inhibitor is taken at `PrepareForSleep(false)`;
/// - when the user's last session ends: a session's `State` turning `closing` (read every second:
///   logind sends no change signal for it) or the session going away (`SessionRemoved`), once no
///   other session of the user remains open.
///
/// What locks is the WhenUnlocked class keys; AfterFirstUnlock stays, as on iOS. Where logind is not
/// on the bus (containers, some window managers), the agent says so once and waits for it: the
/// keychains then lock only by their inactivity timeout (`set-keychain-settings -t`).
///
/// Runs on the main thread's GLib main context only; the name watch (``BusNameWatch``), the signal
/// subscriptions and the poll timer (``MainLoopTimer``) reach it through `unowned` captures that it
/// outlives (``stop()`` and its `deinit` end them). Not `Sendable`.
final class SessionAgent {
    static let logind = "org.freedesktop.login1"
    static let managerPath = "/org/freedesktop/login1"
    static let managerInterface = "org.freedesktop.login1.Manager"
    static let sessionInterface = "org.freedesktop.login1.Session"
    static let propertiesInterface = "org.freedesktop.DBus.Properties"
    /// How often the sessions' `State` is read while logind is there, in milliseconds.
    static let statePollMilliseconds: UInt32 = 1_000

    let bus: BusConnection
    var connection: OpaquePointer { bus.pointer }
    let uid: UInt32
    let log: (String) -> Void
    /// The user's sessions (object paths) and whether each is closing.
    private(set) var sessions: [String: Bool] = [:]
    /// The delay inhibitor's descriptor, -1 when none is held.
    private(set) var inhibitor: Int32 = -1
    private var subscriptions: [BusSignalSubscription] = []
    private var nameWatch: BusNameWatch?
    private var poll: MainLoopTimer?
    /// Whether "the user's sessions ended" was acted on (reset when a session opens).
    private var loggedOut = false

    /// - Parameters:
    ///   - connection: the system bus (referenced for the agent's life).
    ///   - log: where each line goes (standard error, the journal under systemd).
    init(connection: OpaquePointer, uid: UInt32 = getuid(), log: @escaping (String) -> Void) {
        bus = BusConnection(connection)
        self.uid = uid
        self.log = log
    }

    deinit { stop() }

    /// Starts watching for logind; the work begins when its name appears.
    func start() {
        nameWatch = bus.watchName(
            Self.logind, appeared: { [unowned self] _ in self.logindAppeared() },
            vanished: { [unowned self] in self.logindVanished() })
    }

    /// Removes every subscription and timer and releases the inhibitor; idempotent.
    func stop() {
        nameWatch?.cancel()
        nameWatch = nil
        unsubscribe()
        releaseInhibitor()
    }

    // MARK: - logind comes and goes

    private func logindAppeared() {
        unsubscribe()
        subscribe()
        sessions = [:]
        loggedOut = false
        for path in listSessions() { sessions[path] = sessionState(path) == "closing" }
        takeInhibitor()
        poll = MainLoopTimer(milliseconds: Self.statePollMilliseconds) { [unowned self] in self.pollStates() }
        log(
            "watching logind: \(sessions.count) session(s) of uid \(uid); "
                + (inhibitor >= 0 ? "holding a sleep delay inhibitor" : "no sleep inhibitor (see above)"))
    }

    private func logindVanished() {
        unsubscribe()
        releaseInhibitor()
        sessions = [:]
        log(
            "logind (\(Self.logind)) is not on the system bus: keychains will not lock at screen lock, sleep or "
                + "logout, only by their inactivity timeout (security set-keychain-settings -t); waiting for it")
    }

    // MARK: - Events

    /// Locks the keychains that ask for it and logs what happened, naming `reason`.
    func lockKeychains(_ reason: String) {
        let report = LockOnSleep.lockKeychains()
        var parts: [String] = []
        if !report.locked.isEmpty { parts.append("locked \(report.locked.joined(separator: ", "))") }
        if !report.alreadyLocked.isEmpty {
            parts.append("already locked \(report.alreadyLocked.joined(separator: ", "))")
        }
        if !report.failed.isEmpty { parts.append("could not lock \(report.failed.joined(separator: "; "))") }
        if parts.isEmpty {
            parts.append("no keychain asks to lock (security set-keychain-settings -l KEYCHAIN turns it on)")
        }
        log("\(reason): " + parts.joined(separator: "; "))
    }

    private func prepareForSleep(_ starting: Bool) {
        if starting {
            lockKeychains("before sleep")
            releaseInhibitor()
            CrashPoint.reach(CrashPoint.sleepInhibitorReleased)
        } else {
            takeInhibitor()
        }
    }

    private func sessionLocked(_ path: String, _ how: String) {
        guard sessions[path] != nil else { return }
        lockKeychains("\(how) of session \(path)")
    }

    private func sessionPropertiesChanged(_ path: String, _ changed: [String: OpaquePointer]) {
        guard sessions[path] != nil else { return }
        if let hint = changed["LockedHint"], Variant.isOfType(hint, "b"), Variant.readBoolean(hint) {
            sessionLocked(path, "screen locked (LockedHint)")
        }
        if let state = changed["State"], Variant.isOfType(state, "s") {
            sessionStateIs(path, Variant.readString(state))
        }
    }

    private func sessionStateIs(_ path: String, _ state: String) {
        guard let wasClosing = sessions[path] else { return }
        let closing = state == "closing"
        sessions[path] = closing
        if closing && !wasClosing { sessionsMayHaveEnded("session \(path) is closing") }
    }

    private func sessionNew(_ path: String) {
        guard sessions[path] == nil, sessionUser(path) == uid else { return }
        sessions[path] = sessionState(path) == "closing"
        loggedOut = false
    }

    private func sessionRemoved(_ path: String) {
        guard sessions.removeValue(forKey: path) != nil else { return }
        sessionsMayHaveEnded("session \(path) ended")
    }

    /// Locks once when every session of the user has closed or gone (the logout).
    private func sessionsMayHaveEnded(_ reason: String) {
        guard !loggedOut, !sessions.values.contains(false) else { return }
        loggedOut = true
        lockKeychains("\(reason), the last of uid \(uid)")
    }

    private func pollStates() {
        for path in sessions.keys.sorted() {
            if let state = sessionState(path) { sessionStateIs(path, state) }
        }
    }

    // MARK: - The inhibitor

    private func takeInhibitor() {
        guard inhibitor < 0 else { return }
        let arguments = Variant.tuple([
            Variant.string("sleep"), Variant.string("swift-keychain"),
            Variant.string("Locks the keychains that ask for it before the system sleeps"), Variant.string("delay"),
        ])
        var outList: UnsafeMutablePointer<GUnixFDList>?
        var error: UnsafeMutablePointer<GError>?
        let reply = Variant.withType("(h)") { replyType in
            g_dbus_connection_call_with_unix_fd_list_sync(
                connection, Self.logind, Self.managerPath, Self.managerInterface, "Inhibit", arguments, replyType,
                G_DBUS_CALL_FLAGS_NO_AUTO_START, 5_000, nil, &outList, nil, &error)
        }
        defer { if let outList { g_object_unref(UnsafeMutableRawPointer(outList)) } }
        guard let reply else {
            log(
                "cannot take a sleep delay inhibitor: \(SecretServiceDaemon.consume(error)); keychains may lock after the system wakes"
            )
            return
        }
        defer { g_variant_unref(reply) }
        let index = Variant.withChild(reply, 0) { g_variant_get_handle($0) }
        guard let outList else {
            log("logind's Inhibit answered no descriptor")
            return
        }
        let fd = g_unix_fd_list_get(outList, index, &error)
        guard fd >= 0 else {
            log("logind's Inhibit descriptor cannot be read: \(SecretServiceDaemon.consume(error))")
            return
        }
        inhibitor = fd
    }

    private func releaseInhibitor() {
        guard inhibitor >= 0 else { return }
        close(inhibitor)
        inhibitor = -1
    }

    // MARK: - Calls and subscriptions

    private func subscribe() {
        func on(
            _ interface: String, _ member: String, _ path: String?, _ arg0: String?,
            _ body: @escaping (BusSignal) -> Void
        ) {
            subscriptions.append(
                bus.subscribe(sender: Self.logind, interface: interface, member: member, path: path, arg0: arg0, body))
        }
        on(Self.managerInterface, "PrepareForSleep", Self.managerPath, nil) { [unowned self] signal in
            guard Variant.isOfType(signal.parameters, "(b)") else { return }
            self.prepareForSleep(Variant.withChild(signal.parameters, 0, Variant.readBoolean))
        }
        on(Self.managerInterface, "SessionNew", Self.managerPath, nil) { [unowned self] signal in
            guard Variant.isOfType(signal.parameters, "(so)") else { return }
            self.sessionNew(Variant.withChild(signal.parameters, 1, Variant.readString))
        }
        on(Self.managerInterface, "SessionRemoved", Self.managerPath, nil) { [unowned self] signal in
            guard Variant.isOfType(signal.parameters, "(so)") else { return }
            self.sessionRemoved(Variant.withChild(signal.parameters, 1, Variant.readString))
        }
        on(Self.sessionInterface, "Lock", nil, nil) { [unowned self] signal in
            self.sessionLocked(signal.path, "screen locked")
        }
        on(Self.propertiesInterface, "PropertiesChanged", nil, Self.sessionInterface) { [unowned self] signal in
            guard Variant.isOfType(signal.parameters, "(sa{sv}as)") else { return }
            let changed = Variant.withChild(signal.parameters, 1, Variant.readVariantMap)
            defer { Variant.release(changed) }
            self.sessionPropertiesChanged(signal.path, changed)
        }
    }

    private func unsubscribe() {
        for subscription in subscriptions { subscription.cancel() }
        subscriptions = []
        poll?.cancel()
        poll = nil
    }

    /// A synchronous call to logind (5 s at most); `nil` after logging a failure.
    private func call(
        _ path: String, _ interface: String, _ method: String, _ arguments: [OpaquePointer], quiet: Bool = false
    )
        -> OpaquePointer?
    {
        var error: UnsafeMutablePointer<GError>?
        let reply = g_dbus_connection_call_sync(
            connection, Self.logind, path, interface, method, Variant.tuple(arguments), nil,
            G_DBUS_CALL_FLAGS_NO_AUTO_START, 5_000, nil, &error)
        if reply == nil {
            let message = SecretServiceDaemon.consume(error)
            if !quiet { log("\(interface).\(method) on \(path) failed: \(message)") }
        }
        return reply
    }

    /// The object paths of the user's sessions (`ListSessions`, `a(susso)`: id, uid, user, seat, path).
    private func listSessions() -> [String] {
        guard let reply = call(Self.managerPath, Self.managerInterface, "ListSessions", []) else { return [] }
        defer { g_variant_unref(reply) }
        guard Variant.isOfType(reply, "(a(susso))") else { return [] }
        return Variant.withChild(reply, 0) { list in
            (0..<Variant.childCount(list)).compactMap { index in
                Variant.withChild(list, index) { entry in
                    Variant.withChild(entry, 1) { g_variant_get_uint32($0) } == uid
                        ? Variant.withChild(entry, 4, Variant.readString) : nil
                }
            }
        }
    }

    /// A session's property, unboxed (caller unrefs); `nil` when it cannot be read (a session that went away).
    private func sessionProperty(_ path: String, _ name: String) -> OpaquePointer? {
        guard
            let reply = call(
                path, Self.propertiesInterface, "Get", [Variant.string(Self.sessionInterface), Variant.string(name)],
                quiet: true)
        else { return nil }
        defer { g_variant_unref(reply) }
        return Variant.withChild(reply, 0) { g_variant_get_variant($0) }
    }

    private func sessionState(_ path: String) -> String? {
        guard let value = sessionProperty(path, "State") else { return nil }
        defer { g_variant_unref(value) }
        return Variant.isOfType(value, "s") ? Variant.readString(value) : nil
    }

    private func sessionUser(_ path: String) -> UInt32? {
        guard let value = sessionProperty(path, "User") else { return nil }
        defer { g_variant_unref(value) }
        return Variant.isOfType(value, "(uo)") ? Variant.withChild(value, 0) { g_variant_get_uint32($0) } : nil
    }
}
