import CGIO
import Foundation
import KeychainCore
import KeychainDBus
import Testing

@testable import SecretService

/// Access lists on Secret Service items (issue 27, items 2 and 3): app A creates an item; app B (a
/// python3 client, another identity) is asked about; a sandboxed client sees only its own items.
@Suite("Access lists and sandboxed callers")
struct AccessListTests: SecretServiceSuite {
    /// A second application: python3 with GLib's GDBus, one connection per run. `get PATH` prints
    /// `OK <secret>` or `ERR <D-Bus error name>`; `search` prints the unlocked and locked paths of
    /// `SearchItems({})` on one line each; `unlock PATH` prints `UNLOCKED <paths>` for `Unlock([PATH])`
    /// and, when PATH is among them, reads it as `get` does on the same connection; `replace COLLECTION
    /// VALUE` calls `CreateItem` with `replace` for attributes `{service: mail}` and secret VALUE and
    /// prints `OK <item path>` or `ERR <D-Bus error name>`.
    static let client = """
        import sys
        from gi.repository import Gio, GLib
        address, command = sys.argv[1], sys.argv[2]
        flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
        bus = Gio.DBusConnection.new_for_address_sync(address, flags, None, None)
        def call(path, interface, method, args, reply):
            return bus.call_sync('org.freedesktop.secrets', path, interface, method, args,
                                 GLib.VariantType(reply), Gio.DBusCallFlags.NONE, 60000, None)
        service = '/org/freedesktop/secrets'
        if command == 'search':
            found = call(service, 'org.freedesktop.Secret.Service', 'SearchItems',
                         GLib.Variant('(a{ss})', ({},)), '(aoao)').unpack()
            print(' '.join(found[0])); print(' '.join(found[1]))
            sys.exit(0)
        session = call(service, 'org.freedesktop.Secret.Service', 'OpenSession',
                       GLib.Variant('(sv)', ('plain', GLib.Variant('s', ''))), '(vo)').unpack()[1]
        if command == 'replace':
            properties = {'org.freedesktop.Secret.Item.Label': GLib.Variant('s', 'Replaced'),
                          'org.freedesktop.Secret.Item.Attributes': GLib.Variant('a{ss}', {'service': 'mail'})}
            try:
                made = call(sys.argv[3], 'org.freedesktop.Secret.Collection', 'CreateItem',
                            GLib.Variant('(a{sv}(oayays)b)', (properties, (session, b'', sys.argv[4].encode(),
                                                                           'text/plain'), True)), '(oo)').unpack()
                print('OK ' + made[0])
            except GLib.Error as error:
                print('ERR ' + (Gio.DBusError.get_remote_error(error) or error.message))
            sys.exit(0)
        if command == 'unlock':
            unlocked = call(service, 'org.freedesktop.Secret.Service', 'Unlock',
                            GLib.Variant('(ao)', ([sys.argv[3]],)), '(aoo)').unpack()[0]
            print('UNLOCKED ' + ' '.join(unlocked))
            if sys.argv[3] not in unlocked:
                sys.exit(0)
        try:
            secret = call(sys.argv[3], 'org.freedesktop.Secret.Item', 'GetSecret',
                          GLib.Variant('(o)', (session,)), '((oayays))').unpack()[0]
            print('OK ' + bytes(secret[2]).decode())
        except GLib.Error as error:
            print('ERR ' + (Gio.DBusError.get_remote_error(error) or error.message))
            if command == 'get-why':
                # GLib puts 'GDBus.Error:<name>: ' before the remote message.
                print('WHY ' + error.message.split(': ', 1)[-1])

        """

    /// A pinentry that answers each CONFIRM with the next of `answers` (`once`: OK; `always`:
    /// GPG_ERR_NOT_CONFIRMED; `deny`: GPG_ERR_CANCELED), appending each SETDESC's text and each
    /// CONFIRM to `log`.
    static func confirmingPinentry(_ home: KeychainHome, _ answers: [String], log: String) throws -> String {
        let list = home.root + "/answers-\(UUID().uuidString)"
        try (answers.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let path = home.root + "/pinentry-\(UUID().uuidString).sh"
        let script = """
            #!/bin/sh
            echo 'OK Pleased to meet you'
            while read -r line; do
              case "$line" in
                SETDESC*) echo "$line" >> '\(log)'; echo OK ;;
                CONFIRM*) echo CONFIRM >> '\(log)'
                  answer=$(head -n 1 '\(list)'); sed -i 1d '\(list)'
                  case "$answer" in
                    once) echo OK ;;
                    always) echo 'ERR 83886194 Not confirmed' ;;
                    *) echo 'ERR 83886179 Operation cancelled' ;;
                  esac ;;
                BYE*) echo OK; exit 0 ;;
                *) echo OK ;;
              esac
            done

            """
        try KeychainHome.installScript(script, at: path)
        return path
    }

    /// Runs the python client (optionally inside `sandbox`, a bwrap command line) and returns its output lines.
    static func runClient(_ bus: PrivateBus, _ home: KeychainHome, _ arguments: [String], sandbox: [String] = [])
        throws -> [String]
    {
        let script = home.root + "/client.py"
        if !FileManager.default.fileExists(atPath: script) {
            try client.write(toFile: script, atomically: true, encoding: .utf8)
        }
        let process = Process()
        let command = sandbox + ["/usr/bin/python3", script, bus.address] + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init).filter { !$0.isEmpty }
    }

    static func log(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// A bwrap command line whose sandbox has a `/.flatpak-info` naming `appID` and reaches the bus.
    static func flatpakSandbox(_ bus: PrivateBus, _ home: KeychainHome, appID: String) throws -> [String] {
        let info = home.root + "/flatpak-info-\(appID)"
        try "[Application]\nname=\(appID)\n".write(toFile: info, atomically: true, encoding: .utf8)
        return [
            "/usr/bin/bwrap", "--unshare-user", "--die-with-parent", "--ro-bind", "/usr", "/usr",
            "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin",
            "--proc", "/proc", "--dev", "/dev", "--bind", bus.directory.path, bus.directory.path,
            "--ro-bind", home.root, home.root, "--ro-bind", info, "/.flatpak-info",
        ]
    }

    @Test("App B's read of app A's item asks: Deny refuses, Allow lets one read through, Always Allow is remembered")
    func otherApplicationAsks() throws {
        try KeychainProviderTests.with { bus, home in
            let log = home.root + "/pinentry.log"
            let pinentry = try Self.confirmingPinentry(home, ["deny", "once", "always"], log: log)
            try bus.startProvider(keychainHome: home.root, extraEnvironment: ["KEYCHAIN_PINENTRY": pinentry])
            let session = try bus.openPlainSession()
            let item = try bus.createItem(
                Self.login, label: "Mail password", attributes: ["service": "mail"], secret: "hunter2", session: session
            )
            // App A, the creator, reads without being asked.
            #expect(try KeychainProviderTests.secret(bus, item, session) == "hunter2")
            #expect(Self.log(log).isEmpty)

            #expect(try Self.runClient(bus, home, ["get", item]) == ["ERR org.freedesktop.DBus.Error.AccessDenied"])
            let asked = Self.log(log)
            #expect(asked.count == 2)
            // Named by its script's file name (no desktop entry runs it), the identity on a second line.
            let text =
                ("client.py wants to use your confidential information stored in "
                    + "\"Mail password\" in your keychain.%0AProgram: \(try Self.pythonIdentity(bus, home))")
            #expect(asked.first == "SETDESC " + text)

            #expect(try Self.runClient(bus, home, ["get", item]) == ["OK hunter2"])
            #expect(Self.log(log).filter { $0 == "CONFIRM" }.count == 2)
            // Allowed once: the next read asks again, and Always Allow is stored on the item.
            #expect(try Self.runClient(bus, home, ["get", item]) == ["OK hunter2"])
            #expect(Self.log(log).filter { $0 == "CONFIRM" }.count == 3)
            #expect(try Self.runClient(bus, home, ["get", item]) == ["OK hunter2"])
            #expect(Self.log(log).filter { $0 == "CONFIRM" }.count == 3)
            let stored = try Keystore(location: home.location("login"), create: false).secretItem(1)?.access
            #expect(stored?.allowed == [try Self.pythonIdentity(bus, home)])
            #expect(stored?.owner.hasPrefix("exe:") == true)
        }
    }

    @Test(
        "With no pinentry to ask, app B's read is refused with a reason that says nobody was asked, and how to stop asking"
    )
    func noPrompterRefusalSaysWhy() throws {
        try KeychainProviderTests.with { bus, home in
            let missing = home.root + "/no-such-pinentry"
            try bus.startProvider(keychainHome: home.root, extraEnvironment: ["KEYCHAIN_PINENTRY": missing])
            let session = try bus.openPlainSession()
            let item = try bus.createItem(
                Self.login, label: "Mail password", attributes: ["service": "mail"], secret: "hunter2", session: session
            )
            let identity = try Self.pythonIdentity(bus, home)
            let refused = try Self.runClient(bus, home, ["get-why", item])
            #expect(
                refused == [
                    "ERR org.freedesktop.DBus.Error.AccessDenied",
                    "WHY \(identity) may not use \"Mail password\": no pinentry could ask the user (is a display or "
                        + "terminal reachable?); security set-keychain-settings --access-policy open stops asking",
                ])
        }
    }

    @Test(
        "Unlock of app A's item by app B asks: Deny leaves it out, Allow lets that connection read it, Always Allow is remembered"
    )
    func unlockOfAnotherApplicationsItemAsks() throws {
        try KeychainProviderTests.with { bus, home in
            let log = home.root + "/pinentry.log"
            let pinentry = try Self.confirmingPinentry(home, ["deny", "once", "always"], log: log)
            try bus.startProvider(keychainHome: home.root, extraEnvironment: ["KEYCHAIN_PINENTRY": pinentry])
            let session = try bus.openPlainSession()
            let item = try bus.createItem(
                Self.login, label: "Mail password", attributes: ["service": "mail"], secret: "hunter2", session: session
            )
            #expect(try Self.runClient(bus, home, ["unlock", item]) == ["UNLOCKED "])
            let text =
                ("client.py wants to use your confidential information stored in "
                    + "\"Mail password\" in your keychain.%0AProgram: \(try Self.pythonIdentity(bus, home))")
            #expect(Self.log(log) == ["SETDESC " + text, "CONFIRM"])
            // Allow: unlocked, and the same connection's GetSecret is not asked again.
            #expect(try Self.runClient(bus, home, ["unlock", item]) == ["UNLOCKED \(item)", "OK hunter2"])
            #expect(Self.log(log).filter { $0 == "CONFIRM" }.count == 2)
            // A new connection is asked again; Always Allow is stored, and then nothing asks.
            #expect(try Self.runClient(bus, home, ["unlock", item]) == ["UNLOCKED \(item)", "OK hunter2"])
            #expect(Self.log(log).filter { $0 == "CONFIRM" }.count == 3)
            #expect(try Self.runClient(bus, home, ["unlock", item]) == ["UNLOCKED \(item)", "OK hunter2"])
            #expect(Self.log(log).filter { $0 == "CONFIRM" }.count == 3)
            // The creator's own Unlock never asks.
            let unlocked = try bus.expectReply(
                "/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "Unlock", [Variant.objectPaths([item])])
            defer { g_variant_unref(unlocked) }
            #expect(Variant.withChild(unlocked, 0, Variant.readStrings) == [item])
            #expect(Self.log(log).filter { $0 == "CONFIRM" }.count == 3)
        }
    }

    @Test("CreateItem with replace over app A's item by app B asks: Deny keeps the item, Always Allow replaces it")
    func replacingAnotherApplicationsItemAsks() throws {
        try KeychainProviderTests.with { bus, home in
            let log = home.root + "/pinentry.log"
            let pinentry = try Self.confirmingPinentry(home, ["deny", "always"], log: log)
            try bus.startProvider(keychainHome: home.root, extraEnvironment: ["KEYCHAIN_PINENTRY": pinentry])
            let session = try bus.openPlainSession()
            let item = try bus.createItem(
                Self.login, label: "Mail password", attributes: ["service": "mail"], secret: "hunter2", session: session
            )
            #expect(
                try Self.runClient(bus, home, ["replace", Self.login, "stolen"]) == [
                    "ERR org.freedesktop.DBus.Error.AccessDenied"
                ])
            #expect(
                Self.log(log).first?.hasSuffix(
                    "stored in \"Mail password\" in your keychain.%0AProgram: \(try Self.pythonIdentity(bus, home))")
                    == true)
            #expect(try KeychainProviderTests.secret(bus, item, session) == "hunter2")
            #expect(try Self.runClient(bus, home, ["replace", Self.login, "changed"]) == ["OK \(item)"])
            #expect(try KeychainProviderTests.secret(bus, item, session) == "changed")
            #expect(Self.log(log).filter { $0 == "CONFIRM" }.count == 2)
            // The replaced item keeps its owner (app A, this process), with app B added by Always Allow.
            let stored = try Keystore(location: home.location("login"), create: false).secretItem(1)?.access
            let python = try Self.pythonIdentity(bus, home)
            #expect(stored?.owner.hasPrefix("exe:") == true && stored?.owner != python)
            #expect(stored?.allowed == [python])
        }
    }

    @Test(
        "CreateItem seals the owner in its one write: a kill inside it leaves no item at all, and a new item has its owner"
    )
    func ownerSealedInCreateTransaction() throws {
        let home = try KeychainHome()
        defer { home.remove() }
        try home.createKeychain("login", password: nil)
        try PrivateBus.with(startProvider: false) { bus in
            try bus.startProvider(
                keychainHome: home.root, extraEnvironment: ["KEYCHAIN_CRASH_POINT": CrashPoint.secretItemWritten])
            let killed = try bus.openPlainSession()
            #expect(KeychainProviderCrashTests.tryCreate(bus, 0, killed) == nil)
            bus.provider?.waitUntilExit()
            #expect(bus.provider?.terminationReason == .uncaughtSignal)
            let keystore = try Keystore(location: home.location("login"), create: false)
            #expect(try keystore.verifySecretItems() == 0)
            _ = try keystore.verifyIntegrity()

            try bus.startProvider(keychainHome: home.root)
            let session = try bus.openPlainSession()
            let path = try #require(KeychainProviderCrashTests.tryCreate(bus, 1, session))
            let number = try #require(Int64(path.split(separator: "/").last ?? ""))
            let owner = try #require(try keystore.secretItem(number)?.access?.owner)
            #expect(owner.hasPrefix("exe:"))
            bus.stopProvider()
        }
    }

    /// The identity the provider gives the python client (its interpreter and script).
    static func pythonIdentity(_ bus: PrivateBus, _ home: KeychainHome) throws -> String {
        let python = URL(fileURLWithPath: "/usr/bin/python3").resolvingSymlinksInPath().path
        let folder = (python as NSString).deletingLastPathComponent
        let identity = CallerIdentity(
            kind: .executable(path: python, sha256: nil), script: home.root + "/client.py")
        guard access(python, W_OK) == 0 || access(folder, W_OK) == 0 else { return identity.string }
        // Root can write /usr/bin: the interpreter's content is part of its identity then.
        let fd = open(python, O_RDONLY)
        let digest = try #require(ExecutableDigest().sha256(of: fd))
        return CallerIdentity(kind: .executable(path: python, sha256: digest), script: home.root + "/client.py")
            .string
    }

    @Test("A keychain with the open policy never asks unsandboxed applications")
    func openPolicyDoesNotAsk() throws {
        try KeychainProviderTests.with { bus, home in
            let log = home.root + "/pinentry.log"
            let pinentry = try Self.confirmingPinentry(home, [], log: log)
            let login = try home.createKeychain("login", password: nil)
            try login.setSecretAccessPolicy(.open)
            try bus.startProvider(keychainHome: home.root, extraEnvironment: ["KEYCHAIN_PINENTRY": pinentry])
            let session = try bus.openPlainSession()
            let item = try bus.createItem(
                Self.login, label: "Token", attributes: ["service": "ci"], secret: "t0k3n", session: session)
            #expect(try Self.runClient(bus, home, ["get", item]) == ["OK t0k3n"])
            #expect(Self.log(log).isEmpty)
        }
    }

    @Test(
        "A sandboxed app's SearchItems does not list host items, its own items are listed, and reading a host item asks"
    )
    func sandboxedAppConfined() throws {
        try KeychainProviderTests.with { bus, home in
            let log = home.root + "/pinentry.log"
            let pinentry = try Self.confirmingPinentry(home, ["deny"], log: log)
            let login = try home.createKeychain("login", password: nil)
            // Even under the open policy, a sandboxed app is confined.
            try login.setSecretAccessPolicy(.open)
            try bus.startProvider(keychainHome: home.root, extraEnvironment: ["KEYCHAIN_PINENTRY": pinentry])
            let session = try bus.openPlainSession()
            let host = try bus.createItem(
                Self.login, label: "Host secret", attributes: ["service": "host"], secret: "h", session: session)
            let sandbox = try Self.flatpakSandbox(bus, home, appID: "org.example.Notes")
            #expect(try Self.runClient(bus, home, ["search"], sandbox: sandbox).isEmpty)
            #expect(
                try Self.runClient(bus, home, ["get", host], sandbox: sandbox) == [
                    "ERR org.freedesktop.DBus.Error.AccessDenied"
                ])
            #expect(
                Self.log(log).first?.contains("flatpak%3Aorg.example.Notes") == true
                    || Self.log(log).first?.contains("flatpak:org.example.Notes") == true)
            // An item the app owns is listed to it, and not to another app.
            let keychain = try Keystore(location: home.location("login"), create: false)
            let own = try keychain.createSecretItem(
                label: "Notes sync", attributes: ["service": "notes"],
                secret: SecretItemSecret(value: SecureBytes(copying: Array("n".utf8)), contentType: "text/plain"),
                replace: false)
            try keychain.setSecretItemAccess(own.number, SecretItemAccess(owner: "flatpak:org.example.Notes"))
            let ownPath = Self.login + "/\(own.number)"
            for _ in 0..<100 where try KeychainProviderTests.search(bus, ["service": "notes"]).unlocked.isEmpty {
                usleep(20_000)  // the provider notices another writer's item (a hang guard)
            }
            #expect(try Self.runClient(bus, home, ["search"], sandbox: sandbox) == [ownPath])
            #expect(try Self.runClient(bus, home, ["get", ownPath], sandbox: sandbox) == ["OK n"])
            let other = try Self.flatpakSandbox(bus, home, appID: "org.example.Other")
            #expect(try Self.runClient(bus, home, ["search"], sandbox: other).isEmpty)
            // The host sees both.
            #expect(try KeychainProviderTests.search(bus, [:]).unlocked == [host, ownPath])
        }
    }

    @Test("An access list edited in the keychain file is detected: the item's metadata no longer authenticates")
    func tamperedAccessListDetected() throws {
        let home = try KeychainHome()
        defer { home.remove() }
        let keychain = try home.createKeychain("login", password: nil)
        let created = try keychain.createSecretItem(
            label: "Bank", attributes: ["service": "bank"],
            secret: SecretItemSecret(value: SecureBytes(copying: Array("pin".utf8)), contentType: "text/plain"),
            replace: false)
        try keychain.setSecretItemAccess(created.number, SecretItemAccess(owner: "exe:/usr/bin/bank"))
        #expect(try keychain.secretItem(created.number)?.access == SecretItemAccess(owner: "exe:/usr/bin/bank"))
        // An attacker holding the file flips a byte of the sealed metadata (where the list lives).
        let sql = Process()
        sql.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        sql.arguments = [
            home.location("login").databasePath,
            "UPDATE ss_items SET metadata = substr(metadata, 1, length(metadata) - 20) || "
                + "char((unicode(substr(metadata, length(metadata) - 19, 1)) + 1) % 256) || "
                + "substr(metadata, length(metadata) - 18) WHERE id = \(created.number)",
        ]
        try sql.run()
        sql.waitUntilExit()
        #expect(sql.terminationStatus == 0)
        let reopened = try Keystore(location: home.location("login"), create: false)
        #expect(throws: KeychainFailure.self) { _ = try reopened.secretItem(created.number) }
        #expect(throws: KeychainFailure.self) { _ = try reopened.verifySecretItems() }
    }

    @Test("Access rules: owners and listed apps read, others ask under confirm, sandboxed apps never adopt")
    func accessRules() {
        let app = CallerIdentity(kind: .executable(path: "/usr/bin/app", sha256: nil))
        let flatpak = CallerIdentity(kind: .flatpak(appID: "org.example.App"))
        let unknown = CallerIdentity(kind: .unidentified)
        let owned = SecretItemAccess(owner: "exe:/usr/bin/other")
        let confirm = { SecretAccessPolicy.confirm }, open = { SecretAccessPolicy.open }
        #expect(AccessRule.verdict(nil, policy: confirm, caller: app) == .adopt)
        #expect(AccessRule.verdict(nil, policy: confirm, caller: flatpak) == .ask)
        #expect(AccessRule.verdict(nil, policy: confirm, caller: unknown) == .ask)
        #expect(AccessRule.verdict(nil, policy: open, caller: unknown) == .allow)
        #expect(AccessRule.verdict(owned, policy: confirm, caller: app) == .ask)
        #expect(AccessRule.verdict(owned, policy: open, caller: app) == .allow)
        #expect(AccessRule.verdict(owned, policy: open, caller: flatpak) == .ask)
        #expect(
            AccessRule.verdict(SecretItemAccess(owner: "x", anyApplication: true), policy: confirm, caller: app)
                == .allow)
        #expect(
            AccessRule.verdict(SecretItemAccess(owner: "x", anyApplication: true), policy: confirm, caller: flatpak)
                == .ask)
        #expect(
            AccessRule.verdict(SecretItemAccess(owner: "x", allowed: [app.string]), policy: confirm, caller: app)
                == .allow)
        #expect(AccessRule.lists(owned, to: app) && !AccessRule.lists(owned, to: flatpak))
        #expect(AccessRule.lists(SecretItemAccess(owner: flatpak.string), to: flatpak))
    }

    @Test("An access list survives its item's other writes and is listed, revoked and emptied")
    func accessListEdits() throws {
        var access = SecretItemAccess(owner: "exe:/a", allowed: ["exe:/c", "exe:/b", "exe:/c", "exe:/a"])
        #expect(access.allowed == ["exe:/b", "exe:/c"])
        #expect(access.revoke("exe:/b") && !access.revoke("exe:/b"))
        #expect(access.revoke("exe:/a") && access.owner.isEmpty && !access.permits("exe:/a"))
        let home = try KeychainHome()
        defer { home.remove() }
        let keychain = try home.createKeychain("login", password: nil)
        #expect(try keychain.secretAccessPolicy() == .confirm)
        let created = try keychain.createSecretItem(
            label: "L", attributes: ["k": "v"],
            secret: SecretItemSecret(value: SecureBytes(copying: [1]), contentType: ""), replace: false)
        try keychain.setSecretItemAccess(created.number, SecretItemAccess(owner: "exe:/a", allowed: ["exe:/b"]))
        try keychain.updateSecretItem(created.number, label: "L2", attributes: ["k": "w"])
        try keychain.setSecretItemSecret(
            created.number, SecretItemSecret(value: SecureBytes(copying: [2]), contentType: ""))
        let item = try #require(try keychain.secretItem(created.number))
        #expect(item.label == "L2" && item.access == SecretItemAccess(owner: "exe:/a", allowed: ["exe:/b"]))
        #expect(try keychain.verifySecretItems() == 1)
    }

    @Test(
        "A client that leaves the bus while it is being asked about ends the question: its pinentry closes, the provider serves on"
    )
    func clientLeavesMidQuestion() throws {
        try KeychainProviderTests.with { bus, home in
            let gate = home.root + "/gate"
            let pinentry = home.root + "/pinentry-gated.sh"
            try KeychainHome.installScript(
                """
                #!/bin/sh
                trap ": > '\(gate).closed'; exit 0" TERM
                echo 'OK Pleased to meet you'
                while read -r line; do
                  case "$line" in
                    CONFIRM*)
                      : > '\(gate).asking'
                      while [ ! -e '\(gate)' ]; do kill -0 $PPID 2>/dev/null || exit 0; sleep 0.05; done
                      echo OK ;;
                    BYE*) echo OK; exit 0 ;;
                    *) echo OK ;;
                  esac
                done

                """, at: pinentry)
            try bus.startProvider(keychainHome: home.root, extraEnvironment: ["KEYCHAIN_PINENTRY": pinentry])
            let session = try bus.openPlainSession()
            let item = try bus.createItem(
                Self.login, label: "Mail password", attributes: ["service": "mail"], secret: "hunter2", session: session
            )
            let script = home.root + "/client.py"
            try Self.client.write(toFile: script, atomically: true, encoding: .utf8)
            let client = Process()
            client.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            client.arguments = [script, bus.address, "get", item]
            client.standardOutput = FileHandle.nullDevice
            client.standardError = FileHandle.nullDevice
            try client.run()
            var asking = false
            for _ in 0..<500 where !asking {  // a hang guard
                asking = FileManager.default.fileExists(atPath: gate + ".asking")
                if !asking { usleep(20_000) }
            }
            #expect(asking)
            kill(client.processIdentifier, SIGKILL)
            client.waitUntilExit()
            var closed = false
            for _ in 0..<500 where !closed {
                closed = FileManager.default.fileExists(atPath: gate + ".closed")
                if !closed { usleep(20_000) }
            }
            #expect(closed)
            // The provider was never blocked, and still serves its other clients.
            #expect(try KeychainProviderTests.secret(bus, item, session) == "hunter2")
        }
    }
}
