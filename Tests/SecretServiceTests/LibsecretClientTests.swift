import CGIO
import Foundation
import KeychainCore
import Testing

@testable import SecretService

/// libsecret itself (through python3-gi) as the client: what Seahorse, secret-tool and every GLib
/// program see of other clients' changes (issue 24, item 1).
@Suite("A libsecret client follows other clients' changes")
struct LibsecretClientTests: SecretServiceSuite {
    /// The Debian interpreter, which has `gi` (python3-gi) and the Secret typelib (gir1.2-secret-1).
    static let python = "/usr/bin/python3"

    /// Loads the service with its collections and the collection `argv[1]` with its items, then prints
    /// `items <sorted labels>` at start and on each `notify::items`; exits 0 when its stdin closes.
    static let client = """
        import sys
        import gi
        gi.require_version("Secret", "1")
        from gi.repository import GLib, Secret

        service = Secret.Service.get_sync(Secret.ServiceFlags.LOAD_COLLECTIONS, None)
        collection = [c for c in service.get_collections() if c.get_object_path() == sys.argv[1]][0]
        collection.load_items_sync(None)

        def show(*_):
            labels = sorted(item.get_label() for item in collection.get_items())
            print("items " + ",".join(labels), flush=True)

        collection.connect("notify::items", show)
        loop = GLib.MainLoop()
        GLib.io_add_watch(sys.stdin.fileno(), GLib.IO_IN | GLib.IO_HUP, lambda *_: loop.quit())
        show()
        loop.run()
        """

    @Test(
        "Regression: a loaded Secret.Collection sees another client's and another process's create and delete, and survives them"
    )
    func libsecretSeesCreateAndDelete() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            Issue.record("\(Self.python) is missing: scripts/setup installs python3-gi and gir1.2-secret-1")
            return
        }
        let home = try KeychainHome()
        defer { home.remove() }
        let keystore = try home.createKeychain("login", password: "pw")
        _ = try keystore.unlock(password: SecureBytes(copying: Array("pw".utf8)))
        try PrivateBus.with(startProvider: false) { bus in
            try bus.startProvider(keychainHome: home.root)
            let script = home.root + "/client.py"
            try Self.client.write(toFile: script, atomically: true, encoding: .utf8)
            let client = try LineClient(
                Self.python, [script, Self.login], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
            defer { client.finish() }
            #expect(client.awaitLine("items "))

            // Another D-Bus client (this test's connection) creates and deletes.
            let session = try bus.openPlainSession()
            let one = try bus.createItem(
                Self.login, label: "one", attributes: ["n": "1"], secret: "s", session: session)
            #expect(client.awaitLine("items one"))
            // Another process (SecItem, `security`): the provider finds it by polling.
            let secret = SecretItemSecret(value: SecureBytes(copying: Array("t".utf8)), contentType: "text/plain")
            let two = try keystore.createSecretItem(
                label: "two", attributes: ["n": "2"], secret: secret, replace: false)
            #expect(client.awaitLine("items one,two"))
            g_variant_unref(try bus.expectReply(one, Self.itemInterface, "Delete"))
            #expect(client.awaitLine("items two"))
            try keystore.deleteSecretItem(two.number)
            #expect(client.awaitLine("items "))

            let status = client.finish()
            #expect(status == .exited(0), "the libsecret client ended with \(status); its stderr: \(client.errors)")
        }
    }
}

/// A child process whose stdout this test reads line by line, with a hang guard on each wait.
final class LineClient {
    enum Ending: Equatable {
        case exited(Int32)
        case signalled(Int32)
    }

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errorOutput = Pipe()
    private let readsErrors: Bool
    private var buffer: [UInt8] = []
    private var ending: Ending?
    /// Lines read so far, for failure messages.
    private(set) var seen: [String] = []
    /// The child's stderr, once it has ended.
    private(set) var errors = ""

    /// - Parameter mergingErrors: read the child's stderr as lines too (a program that logs there).
    init(_ executable: String, _ arguments: [String], environment: [String: String], mergingErrors: Bool = false)
        throws
    {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = mergingErrors ? output : errorOutput
        readsErrors = !mergingErrors
        try process.run()
    }

    /// The child's process id.
    var pid: Int32 { process.processIdentifier }

    /// Writes `line` and a newline to the child's stdin.
    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Continues the child if it was stopped, sends it SIGTERM and waits for it; idempotent.
    @discardableResult
    func terminate() -> Ending {
        if ending == nil, process.isRunning {
            kill(process.processIdentifier, SIGCONT)
            kill(process.processIdentifier, SIGTERM)
        }
        return finish()
    }

    /// Reads lines until one equals `line` (with `prefix`, starts with it); `false` (recorded with what
    /// was seen) when the child ends or 20 s pass first (a hang guard: the provider polls for other
    /// processes' changes every second).
    func awaitLine(_ line: String, prefix: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let fd = output.fileHandleForReading.fileDescriptor
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let text = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                seen.append(text)
                if text == line || (prefix && text.hasPrefix(line)) { return true }
            }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 200) >= 0 else { break }
            guard poller.revents != 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(fd, &chunk, chunk.count)
            guard count > 0 else { break }
            buffer += chunk[..<count]
        }
        Issue.record("never saw \"\(line)\"; saw \(seen)", sourceLocation: sourceLocation)
        return false
    }

    /// Closes the child's stdin and waits for it to end; idempotent.
    @discardableResult
    func finish() -> Ending {
        if let ending { return ending }
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        if readsErrors {
            errors = String(decoding: errorOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
        let status = process.terminationStatus
        let ending: Ending = process.terminationReason == .uncaughtSignal ? .signalled(status) : .exited(status)
        self.ending = ending
        return ending
    }
}
