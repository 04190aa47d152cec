import CGIO
import Foundation
import KeychainCore
import KeychainDBus
import Testing

@testable import SecretService

/// Who a Secret Service client is (issue 27, item 1): the bus daemon's credentials, the process read
/// through a pidfd, and the identity string made from them.
@Suite("Caller identity")
struct CallerIdentityTests {
    /// Starts `sleep 60` and returns it running; the test terminates it.
    private func sleeper() throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sleep")
        process.arguments = ["60"]
        try process.run()
        return process
    }

    /// SIGKILL and reap: children of the test process inherit Foundation's blocked SIGTERM.
    private func stop(_ process: Process) {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Runs `body` with a connection's unique name on `bus` of a process started by `arguments`, which
    /// stays connected (`gdbus monitor`) until `body` returns.
    private func withConnectedProcess<R>(
        _ bus: PrivateBus, _ arguments: [String], _ body: (String, Process) throws -> R
    ) throws -> R {
        let before = Set(try names(bus))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            stop(process)
        }
        for _ in 0..<500 {
            if let name = try names(bus).first(where: { !before.contains($0) }) { return try body(name, process) }
            usleep(10_000)
        }
        Issue.record("the process never connected to the bus")
        throw CallerLookupError.credentials("timeout")
    }

    private func names(_ bus: PrivateBus) throws -> [String] {
        let reply = try bus.call(
            "/org/freedesktop/DBus", "org.freedesktop.DBus", "ListNames", destination: "org.freedesktop.DBus"
        ).get()
        defer { g_variant_unref(reply) }
        return Variant.withChild(reply, 0, Variant.readStrings).filter { $0.hasPrefix(":") }
    }

    private func uniqueName(_ connection: OpaquePointer) -> String {
        String(cString: g_dbus_connection_get_unique_name(connection))
    }

    @Test("A plain client is identified by its executable's path, with its SHA-256 when the user can write it")
    func plainClientByPathAndHash() throws {
        try PrivateBus.with(startProvider: false) { bus in
            let caller = try CallerRegistry().caller(uniqueName(bus.client!), on: bus.client!)
            let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
            #expect(caller.uid == getuid())
            #expect(caller.pid == getpid())
            // The test bundle lives in the build folder, which the user who built it can write: path and
            // content then (a bundle another user built is identified by its path alone).
            let folder = (executable as NSString).deletingLastPathComponent
            guard access(executable, W_OK) == 0 || access(folder, W_OK) == 0 else {
                #expect(caller.identity.string == "exe:\(executable)")
                return
            }
            let digest = try #require(
                { if case .executable(_, let sha256) = caller.identity.kind { sha256 } else { nil } }())
            #expect(caller.identity.kind == .executable(path: executable, sha256: digest))
            // The digest is the file's SHA-256, as coreutils computes it.
            let sum = Process()
            sum.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
            sum.arguments = [executable]
            let output = Pipe()
            sum.standardOutput = output
            try sum.run()
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            sum.waitUntilExit()
            #expect(printed.split(separator: " ").first.map(String.init) == digest)
            #expect(caller.identity.string == "exe:\(executable)@sha256:\(digest)")
            #expect(!caller.identity.isSandboxed && caller.identity.accessGroup == nil)
        }
    }

    @Test("A package-managed client is identified by its path alone when the user cannot write it or its folder")
    func packagedClientByPath() throws {
        try PrivateBus.with(startProvider: false) { bus in
            try withConnectedProcess(
                bus, ["/usr/bin/gdbus", "monitor", "--address", bus.address, "--dest", "org.freedesktop.DBus"]
            ) { name, _ in
                let caller = try CallerRegistry().caller(name, on: bus.client!)
                let writable = access("/usr/bin/gdbus", W_OK) == 0 || access("/usr/bin", W_OK) == 0
                if writable {
                    // Root can write /usr/bin, so the content is part of the identity there.
                    #expect(caller.identity.string.hasPrefix("exe:/usr/bin/gdbus@sha256:"))
                } else {
                    #expect(caller.identity.string == "exe:/usr/bin/gdbus")
                }
            }
        }
    }

    @Test("A client under bwrap with a /.flatpak-info naming an app id is identified as that Flatpak app")
    func flatpakClientUnderBwrap() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/bwrap") else {
            Issue.record("bubblewrap is missing: scripts/setup installs it")
            return
        }
        try PrivateBus.with(startProvider: false) { bus in
            let info = bus.directory.appendingPathComponent("flatpak-info")
            try "[Application]\nname=org.example.Notes\nruntime=runtime/org.example.Platform/x86_64/1\n"
                .write(to: info, atomically: true, encoding: .utf8)
            let sandbox = [
                "/usr/bin/bwrap", "--unshare-user", "--die-with-parent", "--ro-bind", "/usr", "/usr",
                "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin",
                "--proc", "/proc", "--dev", "/dev", "--bind", bus.directory.path, bus.directory.path,
                "--ro-bind", info.path, "/.flatpak-info",
                "/usr/bin/gdbus", "monitor", "--address", bus.address, "--dest", "org.freedesktop.DBus",
            ]
            try withConnectedProcess(bus, sandbox) { name, _ in
                let caller = try CallerRegistry().caller(name, on: bus.client!)
                #expect(caller.identity.kind == .flatpak(appID: "org.example.Notes"))
                #expect(caller.identity.string == "flatpak:org.example.Notes")
                #expect(caller.identity.isSandboxed)
                #expect(caller.identity.accessGroup == "flatpak:org.example.Notes")
                // The same without pidfd_open: the start-time fallback reads the same sandbox.
                let registry = CallerRegistry()
                registry.openPidfd = Self.noPidfdOpen
                #expect(try registry.caller(name, on: bus.client!).identity == caller.identity)
            }
        }
    }

    @Test("A connection of another Unix user is refused")
    func otherUserRefused() throws {
        _ = try PrivateBus.with(startProvider: false) { bus in
            // The registry of a provider running as another uid sees this connection as another user's.
            #expect(throws: CallerLookupError.otherUser(getuid())) {
                try CallerRegistry(uid: getuid() &+ 1).caller(uniqueName(bus.client!), on: bus.client!)
            }
        }
    }

    @Test("A name that has left the bus cannot be identified")
    func departedName() throws {
        _ = try PrivateBus.with(startProvider: false) { bus in
            #expect(throws: CallerLookupError.self) {
                try CallerRegistry().caller(":1.9999", on: bus.client!)
            }
        }
    }

    @Test("A pid reused after its process exited is not mistaken for the process the pidfd held")
    func exitedProcessNotMistaken() throws {
        let process = try sleeper()
        let pidfd = ProcessHandle.openPidfd(process.processIdentifier)
        #expect(pidfd >= 0)
        stop(process)
        // The pid is free now and may name a new process; the pidfd still names the old, exited one.
        #expect(ProcessHandle.pidfdTarget(pidfd) == .pid(-1))
        #expect(throws: CallerLookupError.processGone(process.processIdentifier)) {
            _ = try ProcessHandle(pid: process.processIdentifier, pidfd: pidfd)
        }
    }

    @Test("A pidfd of one process given with another process's pid is refused")
    func pidNamingAnotherProcessRefused() throws {
        let first = try sleeper(), second = try sleeper()
        defer {
            for process in [first, second] {
                stop(process)
            }
        }
        // As if the first process's pid had been reused by the second one between the bus's answer and
        // the lookup: the pidfd (the bus daemon's ProcessFD) says which process really connected.
        let pidfd = ProcessHandle.openPidfd(first.processIdentifier)
        #expect(throws: CallerLookupError.processGone(second.processIdentifier)) {
            _ = try ProcessHandle(pid: second.processIdentifier, pidfd: pidfd)
        }
        let handle = try ProcessHandle(pid: second.processIdentifier)
        #expect(handle.link("exe") == URL(fileURLWithPath: "/bin/sleep").resolvingSymlinksInPath().path)
    }

    @Test("A pidfd's fdinfo without a Pid: line (Linux 5.3 and 5.4) is told apart from one with it")
    func fdinfoWithoutPidLine() {
        // The lines of Linux 5.4's pidfd fdinfo, and 5.5's with the Pid: line it added.
        let old = "pos:\t0\nflags:\t02000002\nmnt_id:\t15\n"
        #expect(ProcessHandle.pidfdTarget(fdinfo: Array(old.utf8)) == .noPidLine)
        #expect(ProcessHandle.pidfdTarget(fdinfo: Array((old + "Pid:\t4242\n").utf8)) == .pid(4242))
        #expect(ProcessHandle.pidfdTarget(fdinfo: Array((old + "Pid:\t-1\n").utf8)) == .pid(-1))
        #expect(ProcessHandle.pidfdTarget(fdinfo: Array((old + "Pid:\tfour\n").utf8)) == .unreadable)
        #expect(ProcessHandle.pidfdTarget(fdinfo: []) == .noPidLine)
    }

    /// A pidfd opener failing as `pidfd_open` does on a kernel before 5.3 or under valgrind 3.19.
    private static let noPidfdOpen: ProcessHandle.PidfdOpener = { _ in (-1, ENOSYS) }

    @Test("Without pidfd_open (ENOSYS) a client is identified through its start time, as with a pidfd")
    func noPidfdOpenSameIdentity() throws {
        try PrivateBus.with(startProvider: false) { bus in
            let name = uniqueName(bus.client!)
            let withPidfd = try CallerRegistry().caller(name, on: bus.client!)
            let registry = CallerRegistry()
            registry.openPidfd = Self.noPidfdOpen
            let withoutPidfd = try registry.caller(name, on: bus.client!)
            #expect(withoutPidfd.pid == getpid())
            #expect(withoutPidfd.identity == withPidfd.identity)
            #expect(withoutPidfd.identity.string.hasPrefix("exe:"))
        }
    }

    @Test(
        "Only ENOSYS and EPERM of pidfd_open take the start-time fallback; other errors refuse the caller",
        arguments: [(ENOSYS, true), (EPERM, true), (EINVAL, false), (EMFILE, false)] as [(Int32, Bool)])
    func pidfdOpenFailures(error: Int32, fallsBack: Bool) throws {
        let process = try sleeper()
        defer {
            stop(process)
        }
        let pid = process.processIdentifier
        if fallsBack {
            let handle = try ProcessHandle(pid: pid, openPidfd: { _ in (-1, error) })
            #expect(handle.heldByStartTime)
            #expect(handle.link("exe") == URL(fileURLWithPath: "/bin/sleep").resolvingSymlinksInPath().path)
        } else {
            #expect(throws: CallerLookupError.system("pidfd_open(\(pid))", error)) {
                _ = try ProcessHandle(pid: pid, openPidfd: { _ in (-1, error) })
            }
        }
    }

    @Test("Without pidfd_open a process that exits after it was opened is refused as gone")
    func noPidfdOpenExitedProcessRefused() throws {
        let process = try sleeper()
        let handle = try ProcessHandle(pid: process.processIdentifier, openPidfd: Self.noPidfdOpen)
        try handle.verify()
        stop(process)
        // Reaped: its /proc directory reads fail, and its pid names no process or a newer one.
        #expect(throws: CallerLookupError.processGone(process.processIdentifier)) { try handle.verify() }
        #expect(throws: CallerLookupError.processGone(process.processIdentifier)) {
            _ = try ProcessHandle(pid: process.processIdentifier, openPidfd: Self.noPidfdOpen)
        }
    }

    @Test("Without pidfd_open a pid whose start time changed is refused as reused")
    func noPidfdOpenStartTimeChangedRefused() throws {
        let first = try sleeper()
        defer {
            stop(first)
        }
        let handle = try ProcessHandle(pid: first.processIdentifier, openPidfd: Self.noPidfdOpen)
        try handle.verify()
        // A start time other than the one read when the handle was opened: as if the pid had been reused
        // by a newer process between the bus's answer and the end of the lookup.
        let started = try #require(ProcessHandle.startTime(open("/proc/\(first.processIdentifier)/stat", O_RDONLY)))
        #expect(throws: CallerLookupError.processGone(first.processIdentifier)) {
            try handle.verify(startedAt: started &+ 1)
        }
        try handle.verify(startedAt: started)
    }

    @Test(
        "The start time is field 22 of /proc/<pid>/stat, counted after the command name's last parenthesis",
        arguments: [
            (
                "1234 (sleep) S 1 1234 1234 0 -1 4194304 90 0 0 0 0 0 0 0 20 0 1 0 987654 5623808 224 18446744073709551615",
                987654
            ),
            ("42 (a) b (c) ) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 31337 0 0\n", 31337),
            ("42 (short) S 1 2 3", nil), ("no parenthesis", nil),
        ] as [(String, UInt64?)])
    func startTimeField(stat: String, startTime: UInt64?) {
        #expect(ProcessHandle.startTime(stat: Array(stat.utf8)) == startTime)
    }

    @Test("The systemd unit is the last .service or .scope of the cgroup v2 path")
    func systemdUnit() {
        let cgroup =
            "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome.Terminal.slice/vte-spawn-1.scope\n"
        #expect(ProcessIdentifier.systemdUnit(Array(cgroup.utf8)) == "vte-spawn-1.scope")
        #expect(ProcessIdentifier.systemdUnit(Array("0::/system.slice/cron.service\n".utf8)) == "cron.service")
        #expect(ProcessIdentifier.systemdUnit(Array("0::/\n".utf8)) == nil)
        #expect(ProcessIdentifier.systemdUnit(Array("1:name=systemd:/x.scope\n".utf8)) == nil)
    }

    @Test(
        "A Snap is named by its AppArmor label only",
        arguments: [
            ("snap.firefox.firefox (enforce)", "firefox"), ("snap.signal-desktop.hook.configure", "signal-desktop"),
            ("unconfined", nil), ("snap-update-ns.firefox (enforce)", nil), ("snap..x", nil),
        ] as [(String, String?)])
    func snapName(label: String, name: String?) {
        #expect(ProcessIdentifier.snapName(label) == name)
    }

    @Test(
        "A .flatpak-info without a valid application id names no app",
        arguments: [
            ("[Application]\nname=org.example.App\n", "org.example.App"),
            ("[Runtime]\nname=org.example.Platform\n", nil),
            ("[Application]\nname=noDots\n", nil), ("[Application]\nname=org.1bad.App\n", nil),
            ("[Application]\nname=org.example/../App\n", nil), ("", nil),
        ] as [(String, String?)])
    func flatpakAppID(info: String, appID: String?) {
        #expect(ProcessIdentifier.flatpakAppID(Array(info.utf8)) == appID)
    }

    @Test("Interpreters are recognised with or without a version, and the script path is a hint")
    func interpreters() {
        #expect(ProcessIdentifier.isInterpreter("/usr/bin/python3.11"))
        #expect(ProcessIdentifier.isInterpreter("/usr/bin/bash"))
        #expect(!ProcessIdentifier.isInterpreter("/usr/bin/gdbus"))
        let identity = CallerIdentity(
            kind: .executable(path: "/usr/bin/python3.11", sha256: nil), script: "/home/u/sync.py")
        #expect(identity.string == "exe:/usr/bin/python3.11 script:/home/u/sync.py")
    }

    @Test("A python script's identity names the interpreter and the script")
    func pythonScriptHint() throws {
        try PrivateBus.with(startProvider: false) { bus in
            let script = bus.directory.appendingPathComponent("client.py")
            let ready = bus.directory.appendingPathComponent("ready").path
            // The script marks when it runs: a process read in the middle of its exec has no arguments yet.
            try "import time\nopen('\(ready)', 'w').close()\ntime.sleep(60)\n".write(
                to: script, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = ["-u", script.path]
            process.currentDirectoryURL = bus.directory
            try process.run()
            defer {
                stop(process)
            }
            for _ in 0..<500 where !FileManager.default.fileExists(atPath: ready) { usleep(10_000) }  // a hang guard
            let handle = try ProcessHandle(pid: process.processIdentifier)
            let identity = try ProcessIdentifier.identify(handle, securityLabel: nil, digests: ExecutableDigest())
            #expect(identity.script == script.path)
            #expect(identity.string.hasSuffix(" script:\(script.path)"))
        }
    }
}
