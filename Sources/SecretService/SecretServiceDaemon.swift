internal import CGIO
internal import KeychainCore
internal import KeychainDBus

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// The `keychain-secret-service` program: connects to the session bus, exports the Secret Service,
/// owns `org.freedesktop.secrets`, and runs GLib's main loop until it is idle, signalled or replaced.
///
/// Usage: `keychain-secret-service [--replace] [--idle-exit SECONDS] [--store keychain|memory] [--bus-name NAME]`
/// - `--replace`: take the name from the provider that owns it (if that one allows replacement).
///   Without it, when another provider owns the name, the program names that owner and exits with 2.
/// - `--idle-exit SECONDS` (default ``defaultIdleExitSeconds``; `0`: never): exit after this many
///   seconds with no calls, no open sessions, no pending prompts and no in-memory data that would
///   be lost (items of the `session` collection, collections made in memory).
///
/// - `--store keychain` (the default): collections are the keychain files in `$XDG_DATA_HOME/keychains`
///   (``KeychainSecretStore``), plus the in-memory `session` collection. `--store memory` (or
///   `KEYCHAIN_SECRET_SERVICE_STORE=memory`) serves everything from memory (``MemorySecretStore``).
/// - `--bus-name NAME` (default ``busName``): own another well-known name. Clients find a Secret
///   Service only under `org.freedesktop.secrets`; this is for client test suites that run against a
///   provider under another name (SecretStorage's mock-server tests, `scripts/secret-service-conformance`).
///
/// Exit statuses: 0 after an idle exit, SIGTERM/SIGINT or losing the name to a `--replace`;
/// 1 on a usage or bus error; 2 when another provider owns the name.
package enum SecretServiceDaemon {
    /// The documented idle time before an exit, in seconds.
    package static let defaultIdleExitSeconds: UInt32 = 300
    /// The bus name of the Secret Service.
    package static let busName = "org.freedesktop.secrets"
    /// This program's file name, as `/proc/<pid>/exe` names it.
    package static let programName = "keychain-secret-service"
    /// The release this program belongs to, as `--version` prints it (the project's version, as the
    /// credential helpers report it).
    package static let version = ProjectVersion.current
    /// How to stop gnome-keyring's user service, which D-Bus or systemd would otherwise start again.
    static let gnomeKeyringStop =
        "systemctl --user stop gnome-keyring-daemon.service gnome-keyring-daemon.socket"

    static let usage = """
        usage: keychain-secret-service [--replace] [--idle-exit SECONDS] [--store keychain|memory] [--bus-name NAME]
               keychain-secret-service migrate [options]   (see keychain-secret-service migrate --help)
               keychain-secret-service session-agent       (locks keychains with the session; see its --help)

        Serves the freedesktop Secret Service (org.freedesktop.secrets) on the session bus.
          --replace            take the name over from the provider that owns it now
          --idle-exit SECONDS  exit after SECONDS idle with nothing in memory to lose
                               (default \(defaultIdleExitSeconds); 0 never exits)
          --store keychain     collections are the keychains in $XDG_DATA_HOME/keychains (default)
          --store memory       keep everything in memory (tests; also KEYCHAIN_SECRET_SERVICE_STORE=memory)
          --bus-name NAME      own NAME instead of org.freedesktop.secrets (client test suites only)
          -h, --help           show this help
          --version            print the program's name and version

        """

    /// Runs the program. - Returns: the exit status.
    package static func main(arguments: [String]) -> Int32 {
        var replace = false
        var name = busName
        var idleExit = defaultIdleExitSeconds
        var memoryOnly = ProcessEnvironment.current()["KEYCHAIN_SECRET_SERVICE_STORE"] == "memory"
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            switch argument {
            case "-h", "--help":
                print(usage, terminator: "")
                return 0
            case "--version":
                print("\(programName) \(version)")
                return 0
            case "--replace": replace = true
            case "--idle-exit":
                guard let value = rest.popFirst().flatMap(UInt32.init) else {
                    printError("keychain-secret-service: --idle-exit needs a number of seconds")
                    return 1
                }
                idleExit = value
            case "--bus-name":
                guard let value = rest.popFirst(), g_dbus_is_name(value) != 0, g_dbus_is_unique_name(value) == 0
                else {
                    printError("keychain-secret-service: --bus-name needs a well-known bus name")
                    return 1
                }
                name = value
            case "--store":
                switch rest.popFirst() {
                case "keychain": memoryOnly = false
                case "memory": memoryOnly = true
                default:
                    printError("keychain-secret-service: --store takes keychain or memory")
                    return 1
                }
            default:
                printError("keychain-secret-service: unknown option \(argument)\n\(usage)")
                return 1
            }
        }
        unblockTerminationSignals()
        // A portal caller's fd whose reading end is closed fails the write with EPIPE instead of killing the provider.
        signal(SIGPIPE, SIG_IGN)
        // A message of megabytes (a big secret, or a refused one) must not stay resident for the rest of
        // the session: buffers of 256 KiB or more get mappings of their own, unmapped when freed (issue 29).
        cgio_malloc_map_buffers_from(Self.mappedBufferBytes)
        var error: UnsafeMutablePointer<GError>?
        guard let connection = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            printError("keychain-secret-service: \(ProviderError.connection(consume(error)))")
            return 1
        }
        defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
        // An unlock made here is seen by every process of the user or does not happen (issue 24, item 3).
        ClassKeyStore.keepsRefusedUnlocksInProcess = false
        let store: any SecretStore = memoryOnly ? MemorySecretStore() : KeychainSecretStore()
        let daemon = RunningDaemon(connection: connection, name: name, idleExit: idleExit, store: store)
        return daemon.run(replace: replace)
    }

    /// The size from which malloc gives a buffer a mapping of its own (`M_MMAP_THRESHOLD`): the largest
    /// usual message (a search of many items) is well below it, and every larger one is returned to the
    /// kernel as soon as it is freed.
    static let mappedBufferBytes: Int32 = 256 << 10

    /// Unblocks SIGTERM, SIGINT and SIGHUP, which a parent may have left blocked in the inherited
    /// signal mask (Foundation's `Process` does), before any thread starts.
    static func unblockTerminationSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&set, signal) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// What to do about the provider that owns the name, by who it is (its program name, from
    /// ``SecretServiceClient/programName(pid:)``):
    /// - this program: "keychain-secret-service is already running, pid N; use --replace …";
    /// - gnome-keyring (`gnome-keyring-daemon`): its systemd user units to stop (it owns the name without
    ///   allowing replacement, so `--replace` cannot take it);
    /// - any other: stop it, or `--replace`.
    /// With `replace`, the owner refused to hand the name over: it has to be stopped first.
    static func ownerHint(program: String, pid: UInt32?, replace: Bool) -> String {
        let pidText = pid.map { ", pid \($0)" } ?? ""
        if SecretServiceClient.isOwnProvider(program) {
            return replace
                ? "\(programName) is already running\(pidText) and does not allow replacement; stop it first"
                : "\(programName) is already running\(pidText); use --replace to take over from it"
        }
        if program.hasPrefix("gnome-keyring") {
            let stop = "stop it (\(gnomeKeyringStop))"
            return replace ? "it does not allow replacement; \(stop) first" : stop
        }
        return replace ? "it does not allow replacement; stop it first" : "stop it or run \(programName) --replace"
    }

    static func printError(_ message: String) {
        let line = Array((message + "\n").utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }

    /// The message of a `GError`, which it frees (``BusConnection/consume(_:)``).
    static func consume(_ error: UnsafeMutablePointer<GError>?) -> String { BusConnection.consume(error) }
}

/// The state of one run: the loop, the provider, and the signal handlers and timers (which capture it
/// `unowned` and end with it). Used only on the main thread.
private final class RunningDaemon {
    let connection: OpaquePointer
    /// The well-known name owned: `org.freedesktop.secrets` unless `--bus-name` says otherwise.
    let name: String
    let loop: OpaquePointer
    let provider: SecretServiceProvider
    /// The Secret portal backend, on the same connection (its master secrets in the store's login keychain).
    let portal: SecretPortal
    let idleExit: UInt32
    var lastActivity = g_get_monotonic_time()
    var status: Int32 = 0
    var signals: [MainLoopSignal] = []
    var timers: [MainLoopTimer] = []
    var nameLost: BusSignalSubscription?

    init(connection: OpaquePointer, name: String, idleExit: UInt32, store: any SecretStore) {
        self.connection = connection
        self.name = name
        self.idleExit = idleExit
        loop = g_main_loop_new(nil, 0)
        provider = SecretServiceProvider(connection: connection, store: store)
        let vault: any PortalSecretVault = (store as? KeychainSecretStore) ?? MemoryPortalVault()
        portal = SecretPortal(connection: connection, store: store, vault: vault)
    }

    deinit {
        for signal in signals { signal.cancel() }
        for timer in timers { timer.cancel() }
        nameLost?.cancel()
        portal.stop()
        provider.stop()
        g_main_loop_unref(loop)
    }

    func run(replace: Bool) -> Int32 {
        do {
            try provider.start()
            try portal.start()
        } catch {
            SecretServiceDaemon.printError("keychain-secret-service: \(error)")
            return 1
        }
        provider.activityHandler = { [unowned self] in self.lastActivity = g_get_monotonic_time() }
        portal.activityHandler = provider.activityHandler
        portal.noPrompterHandler = { [unowned self] in self.provider.logNoPrompter(nil) }
        nameLost = provider.bus.subscribe(
            sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameLost",
            path: "/org/freedesktop/DBus", arg0: name
        ) { [unowned self] _ in
            SecretServiceDaemon.printError("keychain-secret-service: another provider took \(self.name); exiting")
            g_main_loop_quit(self.loop)
        }
        switch requestName(replace: replace) {
        case .success: break
        case .failure(let error):
            SecretServiceDaemon.printError("keychain-secret-service: \(error)")
            if case .nameTaken = error { return 2 }
            return 1
        }
        signals = [SIGTERM, SIGINT].map { signal in
            MainLoopSignal(signal) { [unowned self] in g_main_loop_quit(self.loop) }
        }
        if let seconds = provider.store.externalChangePollSeconds {
            timers.append(
                MainLoopTimer(seconds: max(seconds, 1)) { [unowned self] in self.provider.store.pollExternalChanges() })
        }
        if idleExit > 0 {
            timers.append(MainLoopTimer(seconds: min(idleExit, 5)) { [unowned self] in _ = self.checkIdle() })
        }
        g_main_loop_run(loop)
        g_dbus_connection_flush_sync(connection, nil, nil)
        return status
    }

    /// Quits the loop when idle long enough with nothing to lose; returns whether it did.
    func checkIdle() -> Bool {
        let idleMicroseconds = g_get_monotonic_time() - lastActivity
        guard provider.openSessionCount == 0, provider.pendingPromptCount == 0, portal.pendingRequestCount == 0,
            !provider.store.holdsUnsavedData,
            idleMicroseconds >= Int64(idleExit) * 1_000_000
        else { return false }
        g_main_loop_quit(loop)
        return true
    }

    /// `RequestName` with `DO_NOT_QUEUE` and `ALLOW_REPLACEMENT` (plus `REPLACE_EXISTING` with `--replace`).
    func requestName(replace: Bool) -> Result<Void, ProviderError> {
        let flags: UInt32 = 0x1 | 0x4 | (replace ? 0x2 : 0)
        let bus = SecretServiceClient(connection: connection, busName: name)
        let reply: OpaquePointer
        do {
            reply = try bus.busCall("RequestName", [Variant.string(name), Variant.uint32(flags)])
        } catch {
            return .failure(.connection("RequestName failed: \(error)"))
        }
        defer { g_variant_unref(reply) }
        guard Variant.isOfType(reply, "(u)") else {
            return .failure(.connection("RequestName answered an unexpected type"))
        }
        let code = Variant.withChild(reply, 0) { g_variant_get_uint32($0) }
        if code == 1 || code == 4 { return .success(()) }  // primary owner / already owner
        return .failure(.nameTaken(describeOwner(replace: replace)))
    }

    /// "org.freedesktop.secrets is owned by gnome-keyring-daemon (pid 123), :1.4; …", with the hint
    /// for that owner (``SecretServiceDaemon/ownerHint(program:pid:replace:)``).
    func describeOwner(replace: Bool) -> String {
        var owner = "another connection"
        var found: (unique: String, pid: UInt32?, program: String)?
        let client = SecretServiceClient(connection: connection, busName: name, timeoutMilliseconds: 5_000)
        if let result = (try? client.owner()) ?? nil {
            found = result
            owner = result.unique
            if let pid = result.pid {
                let program = result.program.isEmpty ? "pid \(pid)" : "\(result.program) (pid \(pid))"
                owner = "\(program), \(result.unique)"
            }
        }
        let hint = SecretServiceDaemon.ownerHint(program: found?.program ?? "", pid: found?.pid, replace: replace)
        return "\(name) is owned by \(owner); \(hint)"
    }

}
