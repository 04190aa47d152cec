import CGIO
import Foundation
import KeychainDBus
import Testing

@testable import SecretService

/// A private session bus (its own `dbus-daemon`, config and socket in a temporary folder) with a
/// `keychain-secret-service` on it and one client connection. ``stop()`` ends both processes and
/// removes the folder; ``with(_:)`` always calls it.
///
/// Not `Sendable`: a test uses it from its own thread only (GDBus connections and `Process` objects).
final class PrivateBus {
    let directory: URL
    let address: String
    private let daemon: Process
    private(set) var provider: Process?
    private(set) var client: OpaquePointer?

    /// The built provider: next to the test bundle in the build folder.
    static let providerExecutable: String = {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" {
            url.deleteLastPathComponent()
            let candidate = url.path + "/keychain-secret-service"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return FileManager.default.currentDirectoryPath + "/.build/debug/keychain-secret-service"
    }()

    /// Runs `body` with a fresh bus and provider, then stops both.
    static func with<R>(startProvider: Bool = true, _ body: (PrivateBus) throws -> R) throws -> R {
        let bus = try PrivateBus()
        defer { bus.stop() }
        if startProvider { try bus.startProvider() }
        return try body(bus)
    }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("kss-bus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        address = "unix:path=\(directory.path)/bus"
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>\(address)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        let configPath = directory.appendingPathComponent("bus.conf").path
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--config-file=\(configPath)", "--nofork", "--print-address=1"]
        let output = Pipe()
        daemon.standardOutput = output
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        // The daemon prints its address once it listens.
        _ = output.fileHandleForReading.availableData
        var error: UnsafeMutablePointer<GError>?
        client = g_dbus_connection_new_for_address_sync(
            address,
            GDBusConnectionFlags(
                rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                    | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue), nil, nil, &error)
        if let error { g_error_free(error) }
    }

    /// Opens another client connection to this bus (another application); the caller closes it with
    /// `g_dbus_connection_close_sync` and releases it with `g_object_unref`.
    func connect() throws -> OpaquePointer {
        var error: UnsafeMutablePointer<GError>?
        let connection = g_dbus_connection_new_for_address_sync(
            address,
            GDBusConnectionFlags(
                rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                    | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue), nil, nil, &error)
        if let error {
            defer { g_error_free(error) }
            throw DBusError(name: "(local)", message: String(cString: error.pointee.message))
        }
        return connection!
    }

    /// Starts a provider process on this bus and waits until it owns `org.freedesktop.secrets`.
    /// - Parameter wrapper: a program that runs the provider (its path, then `arguments`) with `exec`.
    func startProvider(
        arguments: [String] = ["--idle-exit", "0"], keychainHome: String? = nil,
        extraEnvironment: [String: String] = [:],
        stderr: Pipe? = nil, wrapper: String? = nil
    ) throws {
        provider = try Self.launchProvider(
            address: address, arguments: arguments, stderr: stderr, keychainHome: keychainHome,
            extraEnvironment: extraEnvironment, wrapper: wrapper)
        try waitForOwner()
    }

    /// Stops the provider (SIGTERM) and waits for it to exit; the bus stays.
    func stopProvider() {
        if let provider, provider.isRunning {
            provider.terminate()
            provider.waitUntilExit()
        }
        provider = nil
    }

    /// Starts a provider. Without `keychainHome` it serves memory only (`KEYCHAIN_SECRET_SERVICE_STORE=memory`);
    /// with one, its keychains, device key and preferences live under that folder (never the user's).
    static func launchProvider(
        address: String, arguments: [String], stderr: Pipe? = nil, keychainHome: String? = nil,
        extraEnvironment: [String: String] = [:], wrapper: String? = nil
    ) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: wrapper ?? providerExecutable)
        process.arguments = wrapper == nil ? arguments : [providerExecutable] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        if let keychainHome {
            environment.merge(KeychainHome.environment(keychainHome)) { _, new in new }
            environment["KEYCHAIN_SECRET_SERVICE_STORE"] = "keychain"
        } else {
            environment["KEYCHAIN_SECRET_SERVICE_STORE"] = "memory"
        }
        environment.merge(extraEnvironment) { _, new in new }
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = stderr ?? FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Polls `NameHasOwner` (a hang guard, not a timing assertion).
    func waitForOwner(of name: String = "org.freedesktop.secrets") throws {
        for _ in 0..<500 {
            if case .success(let reply) = call(
                "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
                [Variant.string(name)], destination: "org.freedesktop.DBus"),
                Variant.withChild(reply, 0, Variant.readBoolean)
            {
                g_variant_unref(reply)
                return
            }
            usleep(10_000)
        }
        Issue.record("the provider never owned \(name)")
    }

    func stop() {
        if let client {
            g_dbus_connection_close_sync(client, nil, nil)
            g_object_unref(UnsafeMutableRawPointer(client))
            self.client = nil
        }
        if let provider, provider.isRunning {
            provider.terminate()
            provider.waitUntilExit()
        }
        // SIGKILL: the daemon inherits a signal mask with SIGTERM blocked from Foundation's Process.
        kill(daemon.processIdentifier, SIGKILL)
        daemon.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A D-Bus error reply's name and message.
    struct DBusError: Error, CustomStringConvertible {
        let name: String
        let message: String
        var description: String { "\(name): \(message)" }
    }

    /// Calls a method synchronously on `connection` (the client's by default).
    func call(
        _ path: String, _ interface: String, _ method: String, _ arguments: [OpaquePointer]? = [],
        destination: String = "org.freedesktop.secrets", on connection: OpaquePointer? = nil
    ) -> Result<OpaquePointer, DBusError> {
        var error: UnsafeMutablePointer<GError>?
        let reply = g_dbus_connection_call_sync(
            connection ?? client, destination, path, interface, method, arguments.map { Variant.tuple($0) }, nil,
            G_DBUS_CALL_FLAGS_NONE, 10_000, nil, &error)
        if let reply { return .success(reply) }
        let remote = error.flatMap { g_dbus_error_get_remote_error($0) }
        let name = remote.map { String(cString: $0) } ?? "(local)"
        g_free(remote)
        let message = error.map { String(cString: $0.pointee.message) } ?? ""
        if let error { g_error_free(error) }
        return .failure(DBusError(name: name, message: message))
    }

    /// Calls and unpacks: returns the reply (caller unrefs) or records the error and throws it.
    @discardableResult
    func expectReply(
        _ path: String, _ interface: String, _ method: String, _ arguments: [OpaquePointer] = [],
        on connection: OpaquePointer? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> OpaquePointer {
        switch call(path, interface, method, arguments, on: connection) {
        case .success(let reply): return reply
        case .failure(let error):
            Issue.record("\(method) on \(path) failed: \(error)", sourceLocation: sourceLocation)
            throw error
        }
    }

    /// The error name a call gets; `nil` if it succeeds.
    func errorName(
        _ path: String, _ interface: String, _ method: String, _ arguments: [OpaquePointer]? = []
    ) -> String? {
        switch call(path, interface, method, arguments) {
        case .success(let reply):
            g_variant_unref(reply)
            return nil
        case .failure(let error): return error.name
        }
    }

    /// `org.freedesktop.DBus.Properties.Get`, unboxed (caller unrefs).
    func property(_ path: String, _ interface: String, _ name: String) throws -> OpaquePointer {
        let reply = try expectReply(
            path, "org.freedesktop.DBus.Properties", "Get", [Variant.string(interface), Variant.string(name)])
        defer { g_variant_unref(reply) }
        return Variant.withChild(reply, 0) { g_variant_get_variant($0)! }
    }

    /// Opens a `plain` session; returns its path.
    func openPlainSession(on connection: OpaquePointer? = nil) throws -> String {
        let reply = try expectReply(
            "/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "OpenSession",
            [Variant.string("plain"), Variant.boxed(Variant.string(""))], on: connection)
        defer { g_variant_unref(reply) }
        return Variant.withChild(reply, 1, Variant.readString)
    }

    /// A `(oayays)` secret: session path, parameters, value, content type (the spec's Secret struct).
    static func secretValue(
        _ session: String, _ value: [UInt8], parameters: [UInt8] = [], contentType: String = "text/plain"
    ) -> OpaquePointer {
        Variant.tuple([
            Variant.objectPath(session), Variant.bytes(parameters), Variant.bytes(value), Variant.string(contentType),
        ])
    }

    /// `CreateItem` on `collection` with a `plain` secret; returns the item's path.
    func createItem(
        _ collection: String, label: String, attributes: [String: String], secret: String, session: String,
        replace: Bool = false
    ) throws -> String {
        let properties = Variant.variantMap([
            ("org.freedesktop.Secret.Item.Label", Variant.string(label)),
            ("org.freedesktop.Secret.Item.Attributes", Variant.stringMap(attributes)),
        ])
        let reply = try expectReply(
            collection, "org.freedesktop.Secret.Collection", "CreateItem",
            [properties, Self.secretValue(session, Array(secret.utf8)), Variant.boolean(replace)])
        defer { g_variant_unref(reply) }
        #expect(Variant.withChild(reply, 1, Variant.readString) == "/")
        return Variant.withChild(reply, 0, Variant.readString)
    }

    /// Introspection XML of `path`.
    func introspect(_ path: String) throws -> String {
        let reply = try expectReply(path, "org.freedesktop.DBus.Introspectable", "Introspect")
        defer { g_variant_unref(reply) }
        return Variant.withChild(reply, 0, Variant.readString)
    }
}
