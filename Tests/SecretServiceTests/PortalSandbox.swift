import Foundation
import Testing

@testable import SecretService

/// The real Secret portal path on a private bus: xdg-desktop-portal (the frontend) configured with our
/// `.portal` file, the provider as its backend, and clients inside `bwrap` with a `/.flatpak-info`
/// naming an app id, which is how the frontend recognises a Flatpak app (it reads
/// `/proc/<pid>/root/.flatpak-info`; bubblewrap needs unprivileged user namespaces, which Debian's
/// kernel allows an ordinary user).
///
/// Not `Sendable`: one test's thread uses it. ``stop()`` ends the frontend; the bus's ``PrivateBus/stop()``
/// ends the rest.
final class PortalSandbox {
    static let frontendExecutable = "/usr/libexec/xdg-desktop-portal"
    static let bwrap = "/usr/bin/bwrap"
    static let python = "/usr/bin/python3"

    /// Why the real run cannot happen here, or `nil` when it can: the programs it needs, and whether
    /// `bwrap` can make a sandbox for this user.
    static let unavailableReason: String? = {
        for path in [frontendExecutable, bwrap, python] where !FileManager.default.isExecutableFile(atPath: path) {
            return "\(path) is missing (scripts/setup installs xdg-desktop-portal, bubblewrap and python3-gi)"
        }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: bwrap)
        probe.arguments = rootArguments + ["--unshare-all", "/usr/bin/true"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        do { try probe.run() } catch { return "bwrap cannot start: \(error)" }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
            ? nil : "bwrap cannot make a sandbox for this user (unprivileged user namespaces disabled?)"
    }()

    /// A read-only view of the host's programs, the minimal sandbox.
    static let rootArguments = [
        "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
        "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin", "--ro-bind", "/etc", "/etc",
        "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
    ]

    let bus: PrivateBus
    let frontend: Process
    let log: String

    /// Writes the `.portal` file (the one `make install` installs) and the client, and starts the
    /// frontend on `bus`, waiting until it owns `org.freedesktop.portal.Desktop`.
    init(bus: PrivateBus) throws {
        self.bus = bus
        let portals = bus.directory.appendingPathComponent("portals")
        try FileManager.default.createDirectory(at: portals, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Self.packageRoot + "/portal/swift-keychain.portal",
            toPath: portals.appendingPathComponent("swift-keychain.portal").path)
        try Self.client.write(to: bus.directory.appendingPathComponent("client.py"), atomically: true, encoding: .utf8)
        log = bus.directory.appendingPathComponent("xdg-desktop-portal.log").path
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        frontend = Process()
        frontend.executableURL = URL(fileURLWithPath: Self.frontendExecutable)
        frontend.arguments = ["--verbose"]
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        environment["XDG_DESKTOP_PORTAL_DIR"] = portals.path
        // A desktop no other portal names: our file is then the only candidate (its UseIn lists it).
        environment["XDG_CURRENT_DESKTOP"] = "swift-keychain-test"
        environment.removeValue(forKey: "DISPLAY")
        environment.removeValue(forKey: "WAYLAND_DISPLAY")
        frontend.environment = environment
        frontend.standardOutput = FileHandle.nullDevice
        frontend.standardError = FileHandle(forWritingAtPath: log)
        try frontend.run()
        try bus.waitForOwner(of: SecretPortal.frontendBusName)
    }

    /// Ends the frontend (SIGKILL: it inherits a signal mask with SIGTERM blocked from Foundation's Process).
    func stop() {
        if frontend.isRunning {
            kill(frontend.processIdentifier, SIGKILL)
            frontend.waitUntilExit()
        }
    }

    /// Runs the client inside a sandbox of app `appID`. - Returns: its output lines and exit status.
    ///
    /// With `retryingOnHang`, for libsecret's runs, a client still running after 10 s is killed and run
    /// again, up to three times (each noted on stderr). libsecret 0.20.5 (Debian 12) races the frontend:
    /// it sends `RetrieveSecret` without a `handle_token` and subscribes to the request's `Response` only
    /// once the call has returned, while xdg-desktop-portal 1.16 returns the call before it asks the
    /// backend, which answers within a few milliseconds. A `Response` that arrives before the
    /// subscription is dropped, and libsecret then waits forever with the 64 bytes unread in its pipe (seen
    /// with `dbus-monitor` on the test bus: the `Response` was sent to the client 2.5 ms after the call's
    /// return). Newer libsecret subscribes first, under a `handle_token`. Other runs get one 30 s attempt.
    func run(
        appID: String, _ arguments: [String], environment: [String: String] = [:], retryingOnHang: Bool = false
    ) throws -> (lines: [String], status: Int32) {
        let attempts = retryingOnHang ? 3 : 1
        for attempt in 1...attempts {
            let result = try runOnce(
                appID: appID, arguments, environment: environment, guardSeconds: retryingOnHang ? 10 : 30)
            if !result.hung { return (result.lines, result.status) }
            if attempt < attempts {
                FileHandle.standardError.write(
                    Data("PortalSandbox: \(arguments) hung (libsecret's portal race); running it again\n".utf8))
                continue
            }
            Issue.record("the sandboxed client \(arguments) did not finish in \(attempts) attempts and was killed")
            return (result.lines, result.status)
        }
        return ([], -1)
    }

    private func runOnce(appID: String, _ arguments: [String], environment: [String: String], guardSeconds: Int)
        throws -> (lines: [String], status: Int32, hung: Bool)
    {
        let info = bus.directory.appendingPathComponent("flatpak-info-\(appID)").path
        try "[Application]\nname=\(appID)\n".write(toFile: info, atomically: true, encoding: .utf8)
        var sandbox =
            Self.rootArguments + [
                "--bind", bus.directory.path, bus.directory.path, "--ro-bind", info, "/.flatpak-info", "--unshare-all",
                "--die-with-parent", "--setenv", "DBUS_SESSION_BUS_ADDRESS", bus.address,
            ]
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) { sandbox += ["--setenv", name, value] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.bwrap)
        process.arguments = sandbox + [Self.python, bus.directory.appendingPathComponent("client.py").path] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // A hang guard, not a timing assertion: a client still running after `guardSeconds` is killed
        // (bwrap's --die-with-parent ends what runs inside), so that the test fails instead of hanging the
        // suite.
        let pid = process.processIdentifier
        let finished = ErrorLog()
        let ticks = guardSeconds * 10
        let watchdog = Thread {
            for _ in 0..<ticks {
                if !finished.entries.isEmpty { return }
                usleep(100_000)
            }
            if finished.entries.isEmpty { kill(pid, SIGKILL) }
        }
        watchdog.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        finished.append("exited")
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        return (lines, process.terminationStatus, process.terminationReason == .uncaughtSignal)
    }

    /// The package's folder (this file is `Tests/SecretServiceTests/PortalSandbox.swift`).
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The sandboxed client: `retrieve` calls `org.freedesktop.portal.Secret.RetrieveSecret` twice and
    /// prints each answer (`response=… bytes=… sha256=…`: the secret's digest, never the secret);
    /// `store`/`lookup` use libsecret (its file backend, in a sandbox, keys its keyring file with the
    /// portal's secret).
    static let client = """
        import hashlib, os, select, sys
        import gi
        gi.require_version("Gio", "2.0")
        from gi.repository import Gio, GLib

        bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        sender = bus.get_unique_name()[1:].replace(".", "_")

        def retrieve(number):
            read_end, write_end = os.pipe()
            fds = Gio.UnixFDList.new()
            index = fds.append(write_end)
            os.close(write_end)
            handle_token = "t%d" % number
            path = "/org/freedesktop/portal/desktop/request/%s/%s" % (sender, handle_token)
            loop = GLib.MainLoop()
            answer = {}
            def on_response(connection, name, obj, interface, signal, parameters):
                answer["response"], answer["results"] = parameters.unpack()
                loop.quit()
            bus.signal_subscribe("org.freedesktop.portal.Desktop", "org.freedesktop.portal.Request", "Response",
                                 path, None, Gio.DBusSignalFlags.NONE, on_response)
            options = {"handle_token": GLib.Variant("s", handle_token),
                       "app_id": GLib.Variant("s", "org.example.Forged")}
            bus.call_with_unix_fd_list_sync("org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop",
                                            "org.freedesktop.portal.Secret", "RetrieveSecret",
                                            GLib.Variant("(ha{sv})", (index, options)), GLib.VariantType("(o)"),
                                            Gio.DBusCallFlags.NONE, 60000, fds, None)
            GLib.timeout_add_seconds(60, loop.quit)
            loop.run()
            data = b""
            while answer.get("response") == 0 and len(data) < 64 and select.select([read_end], [], [], 5)[0]:
                chunk = os.read(read_end, 64 - len(data))
                if not chunk:
                    break
                data += chunk
            os.close(read_end)
            return answer.get("response"), data

        mode = sys.argv[1]
        if mode == "retrieve":
            for number in (1, 2):
                response, data = retrieve(number)
                print("response=%s bytes=%d sha256=%s" % (response, len(data), hashlib.sha256(data).hexdigest()),
                      flush=True)
        else:
            gi.require_version("Secret", "1")
            from gi.repository import Secret
            schema = Secret.Schema.new("org.example.Notes.Account", Secret.SchemaFlags.NONE,
                                       {"user": Secret.SchemaAttributeType.STRING})
            if mode == "store":
                stored = Secret.password_store_sync(schema, {"user": "alice"}, Secret.COLLECTION_DEFAULT, "Notes",
                                                    sys.argv[2], None)
                print("stored=%s" % stored, flush=True)
            else:
                print("found=%s" % Secret.password_lookup_sync(schema, {"user": "alice"}, None), flush=True)
        """
}
