import Foundation
import KeychainCore
import Testing

@testable import SecretService

/// The provider takes the graphical session's variables from the systemd user manager before a
/// prompt (tracker issue 24, item 4): a provider activated before the desktop exported `DISPLAY`
/// otherwise started a pinentry that could show nothing, and Seahorse's "Unlock" did nothing.
@Suite("the provider's activation environment", .serialized)
struct ActivationEnvironmentTests: SecretServiceSuite {
    typealias Provider = KeychainProviderTests
    static let python = LibsecretClientTests.python

    /// A stand-in systemd user manager on the session bus whose `Environment` holds `DISPLAY=:42` and
    /// `WAYLAND_DISPLAY=wayland-42`, as after `dbus-update-activation-environment --systemd`.
    static let standIn = """
        from gi.repository import Gio, GLib
        XML = '''
        <node><interface name="org.freedesktop.systemd1.Manager">
          <property name="Environment" type="as" access="read"/>
        </interface></node>
        '''
        node = Gio.DBusNodeInfo.new_for_xml(XML)
        bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        def get(connection, sender, path, interface, name):
            return GLib.Variant("as", ["HOME=/nowhere", "DISPLAY=:42", "WAYLAND_DISPLAY=wayland-42", "XAUTHORITY="])
        bus.register_object("/org/freedesktop/systemd1", node.interfaces[0], None, get, None)
        loop = GLib.MainLoop()
        Gio.bus_own_name_on_connection(bus, "org.freedesktop.systemd1", Gio.BusNameOwnerFlags.NONE,
            lambda *_: print("ready", flush=True), None)
        GLib.io_add_watch(0, GLib.IO_IN | GLib.IO_HUP, lambda *_: loop.quit())
        loop.run()
        """

    @Test(
        "A provider started without DISPLAY takes DISPLAY and WAYLAND_DISPLAY from the systemd user manager for its pinentry"
    )
    func pinentryGetsSessionDisplay() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            Issue.record("\(Self.python) is missing: scripts/setup installs python3-gi")
            return
        }
        try Provider.with { bus, home in
            let keystore = try home.createKeychain("login", password: "pw")
            let script = home.root + "/systemd1.py"
            try Self.standIn.write(toFile: script, atomically: true, encoding: .utf8)
            let systemd = try LineClient(Self.python, [script], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
            defer { systemd.finish() }
            #expect(systemd.awaitLine("ready"))
            let seen = home.root + "/display.txt"
            let pinentry = home.root + "/pinentry-display.sh"
            try KeychainHome.installScript(
                """
                #!/bin/sh
                echo "DISPLAY=${DISPLAY-unset} WAYLAND_DISPLAY=${WAYLAND_DISPLAY-unset}" > '\(seen)'
                echo 'OK Pleased to meet you'
                while read -r line; do
                  case "$line" in
                    GETPIN*) printf 'D %s\\nOK\\n' 'pw' ;;
                    BYE*) echo OK; exit 0 ;;
                    *) echo OK ;;
                  esac
                done

                """, at: pinentry)
            try bus.startProvider(
                arguments: ["--idle-exit", "0"], keychainHome: home.root,
                extraEnvironment: ["KEYCHAIN_PINENTRY": pinentry, "DISPLAY": "", "WAYLAND_DISPLAY": ""])
            let completion = try Provider.unlockThroughPrompt(bus)
            #expect(completion?.dismissed == false)
            #expect(try String(contentsOfFile: seen, encoding: .utf8) == "DISPLAY=:42 WAYLAND_DISPLAY=wayland-42\n")
            #expect(try keystore.lockState() == .unlocked)
            try keystore.lock()
        }
    }
}
