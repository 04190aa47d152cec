import Foundation
import KeychainCore
import Testing

@testable import SecretService

/// `keychain-secret-service session-agent` against a stand-in `org.freedesktop.login1` (python3-gi)
/// on a private bus given as the system bus (`DBUS_SYSTEM_BUS_ADDRESS`): tracker issue 25, item 2.
///
/// Serialized: an agent locks every keychain of the user that asks for it, wherever it is, so two
/// tests of this suite at once would lock each other's keychains. Other suites' keychains never ask
/// (lock-on-sleep is off by default), so an agent leaves them alone; its lines are matched by prefix
/// because they may also name keychains of this suite's earlier tests.
@Suite("The session agent locks keychains with logind's session events", .serialized)
struct SessionAgentTests {
    static let python = LibsecretClientTests.python
    static let session = "/org/freedesktop/login1/session/_31"
    static let prefix = "keychain-secret-service session-agent: "

    /// The stand-in: one session of this user (`/org/freedesktop/login1/session/_31`), `ListSessions`,
    /// `Inhibit` (a pipe's write end; `released` is printed when the holder lets go),
    /// the session's `User`, `State` and `LockedHint`. Commands on stdin, one per line: `lock` (the
    /// session's `Lock`), `lockedhint` (`PropertiesChanged` with `LockedHint` true), `sleep`/`wake`
    /// (`PrepareForSleep(true/false)`), `closing` (`State` becomes `closing`, without a signal, as
    /// logind does). Prints `ready`, `inhibit <arguments>`, `released`, `did <command>`.
    static let standIn = """
        import os, sys
        from gi.repository import Gio, GLib

        XML = '''
        <node>
          <interface name="org.freedesktop.login1.Manager">
            <method name="ListSessions"><arg type="a(susso)" direction="out"/></method>
            <method name="Inhibit">
              <arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="s" direction="in"/>
              <arg type="s" direction="in"/><arg type="h" direction="out"/>
            </method>
            <signal name="PrepareForSleep"><arg type="b"/></signal>
            <signal name="SessionNew"><arg type="s"/><arg type="o"/></signal>
            <signal name="SessionRemoved"><arg type="s"/><arg type="o"/></signal>
          </interface>
          <interface name="org.freedesktop.login1.Session">
            <property name="User" type="(uo)" access="read"/>
            <property name="State" type="s" access="read"/>
            <property name="LockedHint" type="b" access="read"/>
            <signal name="Lock"/>
            <signal name="Unlock"/>
          </interface>
        </node>
        '''
        node = Gio.DBusNodeInfo.new_for_xml(XML)
        manager = "/org/freedesktop/login1"
        session = "/org/freedesktop/login1/session/_31"
        uid = os.getuid()
        state = {"State": "active", "LockedHint": False}
        bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)

        def say(line):
            print(line, flush=True)

        def released(fd, condition):
            os.close(fd)
            say("released")
            return False

        def manager_call(connection, sender, path, interface, method, params, invocation):
            if method == "ListSessions":
                invocation.return_value(GLib.Variant("(a(susso))", ([("31", uid, "user", "seat0", session)],)))
            elif method == "Inhibit":
                read_end, write_end = os.pipe()
                GLib.io_add_watch(read_end, GLib.IO_HUP, released)
                invocation.return_value_with_unix_fd_list(
                    GLib.Variant("(h)", (0,)), Gio.UnixFDList.new_from_array([write_end]))
                say("inhibit " + ",".join(params.unpack()))

        def session_get(connection, sender, path, interface, name):
            if name == "User":
                return GLib.Variant("(uo)", (uid, "/org/freedesktop/login1/user/_%d" % uid))
            if name == "State":
                return GLib.Variant("s", state["State"])
            return GLib.Variant("b", state["LockedHint"])

        bus.register_object(manager, node.interfaces[0], manager_call, None, None)
        bus.register_object(session, node.interfaces[1], None, session_get, None)

        def emit(path, interface, name, params):
            bus.emit_signal(None, path, interface, name, params)

        def command(channel, condition):
            line = sys.stdin.readline().strip()
            if not line:
                loop.quit()
                return False
            if line == "lock":
                emit(session, "org.freedesktop.login1.Session", "Lock", None)
            elif line == "lockedhint":
                state["LockedHint"] = True
                emit(session, "org.freedesktop.DBus.Properties", "PropertiesChanged", GLib.Variant(
                    "(sa{sv}as)", ("org.freedesktop.login1.Session", {"LockedHint": GLib.Variant("b", True)}, [])))
            elif line in ("sleep", "wake"):
                emit(manager, "org.freedesktop.login1.Manager", "PrepareForSleep", GLib.Variant("(b)", (line == "sleep",)))
            elif line == "closing":
                state["State"] = "closing"
            say("did " + line)
            return True

        loop = GLib.MainLoop()
        Gio.bus_own_name_on_connection(bus, "org.freedesktop.login1", Gio.BusNameOwnerFlags.NONE,
            lambda *_: say("ready"), None)
        GLib.io_add_watch(sys.stdin.fileno(), GLib.IO_IN | GLib.IO_HUP, command)
        loop.run()
        """

    static let inhibitLine =
        "inhibit sleep,swift-keychain,Locks the keychains that ask for it before the system sleeps,delay"

    /// A home with `login` (lock-on-sleep set) and `other` (not set), both unlocked, a private bus as
    /// the system bus, and the stand-in on it when `standIn`; `body` gets them and starts the agent.
    func withAgent(
        standIn: Bool = true, _ body: (KeychainHome, Keystore, Keystore, PrivateBus, LineClient?) throws -> Void
    ) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            Issue.record("\(Self.python) is missing: scripts/setup installs python3-gi")
            return
        }
        let home = try KeychainHome()
        defer { home.remove() }
        let login = try home.createKeychain("login", password: "pw")
        let other = try home.createKeychain("other", password: "pw")
        try login.setLocksOnSleep(true)
        for store in [login, other] { _ = try store.unlock(password: SecureBytes(copying: Array("pw".utf8))) }
        defer { for store in [login, other] { try? store.lock() } }
        try PrivateBus.with(startProvider: false) { bus in
            var logind: LineClient?
            if standIn {
                let script = home.root + "/login1.py"
                try Self.standIn.write(toFile: script, atomically: true, encoding: .utf8)
                logind = try LineClient(
                    Self.python, [script], environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
                #expect(logind!.awaitLine("ready"))
            }
            defer { logind?.finish() }
            try body(home, login, other, bus, logind)
        }
    }

    func startAgent(_ home: KeychainHome, _ bus: PrivateBus, crashPoint: String? = nil) throws -> LineClient {
        var environment = home.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
        if let crashPoint { environment["KEYCHAIN_CRASH_POINT"] = crashPoint }
        return try LineClient(
            PrivateBus.providerExecutable, ["session-agent"], environment: environment, mergingErrors: true)
    }

    func locked(_ path: String) -> String { "locked \(path)" }

    @Test("The session's Lock signal locks the keychain set to lock on sleep, and only that one")
    func lockSignal() throws {
        try withAgent { home, login, other, bus, logind in
            let agent = try startAgent(home, bus)
            defer { agent.terminate() }
            #expect(
                agent.awaitLine(
                    Self.prefix + "watching logind: 1 session(s) of uid \(getuid()); holding a sleep delay inhibitor"))
            logind!.send("lock")
            #expect(
                agent.awaitLine(
                    Self.prefix + "screen locked of session \(Self.session): \(locked(login.location.databasePath))",
                    prefix: true))
            #expect(try login.lockState() == .locked)
            #expect(try other.lockState() == .unlocked)
            #expect(try login.classKeyEpoch(.afterFirstUnlock) != nil, "AfterFirstUnlock stays, as on iOS")
        }
    }

    @Test("LockedHint turning true (a screen locker) locks the keychain")
    func lockedHint() throws {
        try withAgent { home, login, _, bus, logind in
            let agent = try startAgent(home, bus)
            defer { agent.terminate() }
            #expect(
                agent.awaitLine(
                    Self.prefix + "watching logind: 1 session(s) of uid \(getuid()); holding a sleep delay inhibitor"))
            logind!.send("lockedhint")
            #expect(
                agent.awaitLine(
                    Self.prefix
                        + "screen locked (LockedHint) of session \(Self.session): \(locked(login.location.databasePath))",
                    prefix: true))
            #expect(try login.lockState() == .locked)
        }
    }

    @Test("PrepareForSleep(true) locks before the delay inhibitor is released, and waking takes a new one")
    func sleepInhibitor() throws {
        try withAgent { home, login, other, bus, logind in
            // Killed right after letting the inhibitor go (CrashPoint): the lock must already be done.
            let first = try startAgent(home, bus, crashPoint: CrashPoint.sleepInhibitorReleased)
            defer { first.terminate() }
            #expect(logind!.awaitLine(Self.inhibitLine))
            #expect(
                first.awaitLine(
                    Self.prefix + "watching logind: 1 session(s) of uid \(getuid()); holding a sleep delay inhibitor"))
            logind!.send("sleep")
            #expect(logind!.awaitLine("released"))
            #expect(first.finish() == .signalled(SIGKILL))
            #expect(try login.lockState() == .locked)
            #expect(try other.lockState() == .unlocked)

            _ = try login.unlock(password: SecureBytes(copying: Array("pw".utf8)))
            let second = try startAgent(home, bus)
            defer { second.terminate() }
            #expect(logind!.awaitLine(Self.inhibitLine))
            #expect(
                second.awaitLine(
                    Self.prefix + "watching logind: 1 session(s) of uid \(getuid()); holding a sleep delay inhibitor"))
            logind!.send("sleep")
            #expect(logind!.awaitLine("released"))
            #expect(
                second.awaitLine(Self.prefix + "before sleep: \(locked(login.location.databasePath))", prefix: true))
            logind!.send("wake")
            #expect(logind!.awaitLine(Self.inhibitLine))
        }
    }

    @Test("The last session's State turning closing (read, as logind sends no signal for it) locks the keychain")
    func sessionClosing() throws {
        try withAgent { home, login, _, bus, logind in
            let agent = try startAgent(home, bus)
            defer { agent.terminate() }
            #expect(
                agent.awaitLine(
                    Self.prefix + "watching logind: 1 session(s) of uid \(getuid()); holding a sleep delay inhibitor"))
            logind!.send("closing")
            #expect(
                agent.awaitLine(
                    Self.prefix + "session \(Self.session) is closing, the last of uid \(getuid()): "
                        + locked(login.location.databasePath), prefix: true))
            #expect(try login.lockState() == .locked)
        }
    }

    @Test(
        "SIGTERM (systemd stopping the unit at the last logout) locks the keychain that asks before the agent exits 0")
    func sigtermLocks() throws {
        try withAgent { home, login, other, bus, _ in
            let agent = try startAgent(home, bus)
            defer { agent.terminate() }
            #expect(
                agent.awaitLine(
                    Self.prefix + "watching logind: 1 session(s) of uid \(getuid()); holding a sleep delay inhibitor"))
            #expect(try login.lockState() == .unlocked)
            #expect(agent.terminate() == .exited(0))
            #expect(
                agent.awaitLine(
                    Self.prefix + "stopping (SIGTERM or SIGINT): " + locked(login.location.databasePath), prefix: true))
            #expect(try login.lockState() == .locked)
            #expect(try other.lockState() == .unlocked, "only the keychain set with -l locks")
        }
    }

    @Test("Without logind on the bus the agent says so once, locks nothing, and starts watching when logind appears")
    func noLogind() throws {
        try withAgent(standIn: false) { home, login, other, bus, _ in
            let agent = try startAgent(home, bus)
            defer { agent.terminate() }
            #expect(
                agent.awaitLine(
                    Self.prefix
                        + "logind (org.freedesktop.login1) is not on the system bus: keychains will not lock at "
                        + "screen lock, sleep or logout, only by their inactivity timeout (security set-keychain-settings -t); "
                        + "waiting for it"))
            #expect(try login.lockState() == .unlocked)
            #expect(try other.lockState() == .unlocked)
            let script = home.root + "/login1.py"
            try Self.standIn.write(toFile: script, atomically: true, encoding: .utf8)
            let logind = try LineClient(Self.python, [script], environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
            defer { logind.finish() }
            #expect(
                agent.awaitLine(
                    Self.prefix + "watching logind: 1 session(s) of uid \(getuid()); holding a sleep delay inhibitor"))
            #expect(agent.terminate() == .exited(0))
        }
    }

    @Test("Without a system bus the agent says so and exits 0")
    func noSystemBus() throws {
        let home = try KeychainHome()
        defer { home.remove() }
        let agent = try LineClient(
            PrivateBus.providerExecutable, ["session-agent"],
            environment: home.environment.merging(["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(home.root)/no-bus"]) {
                _, new in new
            }, mergingErrors: true)
        #expect(
            agent.awaitLine(
                Self.prefix
                    + "no system bus (Could not connect: No such file or directory): keychains will not lock at "
                    + "screen lock, sleep or logout, only by their inactivity timeout (security set-keychain-settings -t)"
            ))
        #expect(agent.finish() == .exited(0))
    }

    @Test("An unknown option is a usage error (exit 1)")
    func unknownOption() throws {
        let agent = try LineClient(
            PrivateBus.providerExecutable, ["session-agent", "--bogus"], environment: [:],
            mergingErrors: true)
        #expect(agent.awaitLine(Self.prefix + "unknown option --bogus"))
        #expect(agent.finish() == .exited(1))
    }
}
