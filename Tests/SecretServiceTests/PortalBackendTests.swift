import CGIO
import Foundation
import KeychainDBus
import Synchronization
import Testing

@testable import KeychainCore
@testable import SecretService

/// The Secret portal backend (`org.freedesktop.impl.portal.Secret`) over a private bus, called by a
/// stand-in for xdg-desktop-portal's frontend (``PortalFrontendStub``).
@Suite("keychain-secret-service as the Secret portal backend")
struct PortalBackendTests: SecretServiceSuite {
    static let app = "org.example.Notes"

    /// A memory-backed provider and a frontend stub on a private bus.
    static func withMemoryProvider(_ body: (PrivateBus, PortalFrontendStub) throws -> Void) throws {
        try PrivateBus.with { bus in
            let frontend = try PortalFrontendStub(bus)
            defer { frontend.close() }
            try body(bus, frontend)
        }
    }

    /// A keychain-backed provider (its own home) and a frontend stub.
    /// `prepare` sets the home up before the provider starts and returns the provider's extra environment.
    static func withKeychainProvider(
        prepare: (KeychainHome) throws -> [String: String] = { _ in [:] },
        _ body: (PrivateBus, PortalFrontendStub, KeychainHome) throws -> Void
    ) throws {
        let home = try KeychainHome()
        defer { home.remove() }
        let environment = try prepare(home)
        try PrivateBus.with(startProvider: false) { bus in
            try bus.startProvider(keychainHome: home.root, extraEnvironment: environment)
            let frontend = try PortalFrontendStub(bus)
            defer { frontend.close() }
            try body(bus, frontend, home)
        }
    }

    /// The portal items of the login keychain of `home`, read as the `security` tool would (every group).
    static func portalItems(_ home: KeychainHome) throws(KeychainFailure) -> [StoredItem] {
        let keystore = try Keystore(location: home.location("login"))
        let query = ItemQuery(
            itemClass: .genericPassword, filters: ["svce": .string(KeychainSecretStore.portalService)], scope: .all,
            synchronizable: .any)
        let found = Result { () throws(KeychainFailure) in try keystore.search(query, projection: .attributes) }
        if case .failure(let error) = found, error.status == .itemNotFound { return [] }
        return try found.get()
    }

    static func expectSuccess(
        _ result: Result<PortalFrontendStub.Answer, PrivateBus.DBusError>,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> PortalFrontendStub.Answer {
        switch result {
        case .success(let answer):
            #expect(answer.response == 0, sourceLocation: sourceLocation)
            return answer
        case .failure(let error):
            Issue.record("RetrieveSecret failed: \(error)", sourceLocation: sourceLocation)
            throw error
        }
    }

    /// A new pipe: `[reading end, writing end]`.
    static func makePipe() throws -> [Int32] {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw PrivateBus.DBusError(name: "(local)", message: "pipe failed") }
        return ends
    }

    static func errorName<T>(_ result: Result<T, PrivateBus.DBusError>) -> String? {
        if case .failure(let error) = result { return error.name }
        return nil
    }

    @Test("RetrieveSecret writes 64 bytes, the same on the second call and different for another app id")
    func sameSecretPerApp() throws {
        try Self.withMemoryProvider { _, frontend in
            let first = try Self.expectSuccess(frontend.retrieve(appID: Self.app))
            #expect(first.secret.count == 64)
            #expect(first.secret != [UInt8](repeating: 0, count: 64))
            let second = try Self.expectSuccess(frontend.retrieve(appID: Self.app))
            #expect(second.secret == first.secret)
            let other = try Self.expectSuccess(frontend.retrieve(appID: "org.example.Other"))
            #expect(other.secret.count == 64)
            #expect(other.secret != first.secret)
        }
    }

    @Test(
        "The results carry a token; a call with it gets the same secret, one with an unknown token gets an error and no new secret"
    )
    func tokenOption() throws {
        try Self.withMemoryProvider { _, frontend in
            let first = try Self.expectSuccess(frontend.retrieve(appID: Self.app))
            let token = try #require(first.token)
            #expect(token.utf8.count == 32)
            let again = try Self.expectSuccess(
                frontend.retrieve(appID: Self.app, options: Variant.variantMap([("token", Variant.string(token))])))
            #expect(again.secret == first.secret)
            #expect(again.token == token)
            // An empty token (what some clients send by default) counts as none.
            let empty = try Self.expectSuccess(
                frontend.retrieve(appID: Self.app, options: Variant.variantMap([("token", Variant.string(""))])))
            #expect(empty.secret == first.secret)
            let unknown = frontend.retrieve(
                appID: Self.app,
                options: Variant.variantMap([("token", Variant.string(String(repeating: "0", count: 32)))]))
            #expect(Self.errorName(unknown) == Self.invalidArgs)
            // An app without a secret that presents a token gets none made for it.
            let fresh = frontend.retrieve(
                appID: "org.example.Fresh", options: Variant.variantMap([("token", Variant.string(token))]))
            #expect(Self.errorName(fresh) == Self.invalidArgs)
            let wrongType = frontend.retrieve(
                appID: Self.app, options: Variant.variantMap([("token", Variant.uint32(7))]))
            #expect(Self.errorName(wrongType) == Self.invalidArgs)
            #expect(try Self.expectSuccess(frontend.retrieve(appID: Self.app)).secret == first.secret)
        }
    }

    @Test("Regression: a forged app_id in the options is ignored; the secret is the one of the frontend's app id")
    func forgedAppIDInOptionsIgnored() throws {
        try Self.withMemoryProvider { _, frontend in
            let victim = try Self.expectSuccess(frontend.retrieve(appID: "org.example.Bank"))
            let forged = try Self.expectSuccess(
                frontend.retrieve(
                    appID: Self.app,
                    options: Variant.variantMap([
                        ("app_id", Variant.string("org.example.Bank")), ("handle_token", Variant.string("x")),
                    ])))
            #expect(forged.secret.count == 64)
            #expect(forged.secret != victim.secret)
            #expect(try Self.expectSuccess(frontend.retrieve(appID: Self.app)).secret == forged.secret)
        }
    }

    @Test("A caller that does not own org.freedesktop.portal.Desktop is refused with AccessDenied")
    func onlyTheFrontend() throws {
        try PrivateBus.with { bus in
            let app = try PortalFrontendStub(bus, owning: false)
            defer { app.close() }
            let result = app.retrieve(appID: Self.app)
            #expect(Self.errorName(result) == "org.freedesktop.DBus.Error.AccessDenied")
            // Once a frontend owns the name, the same app id gets a secret: the refusal stored nothing.
            let frontend = try PortalFrontendStub(bus)
            defer { frontend.close() }
            #expect(try Self.expectSuccess(frontend.retrieve(appID: Self.app)).secret.count == 64)
        }
    }

    @Test("A huge options dict is accepted and its unknown keys ignored")
    func hugeOptions() throws {
        try Self.withMemoryProvider { _, frontend in
            let entries = (0..<20_000).map { ("key\($0)", Variant.string(String(repeating: "v", count: 32))) }
            let answer = try Self.expectSuccess(
                frontend.retrieve(appID: Self.app, options: Variant.variantMap(entries)))
            #expect(answer.secret.count == 64)
        }
    }

    @Test(
        "Bad app ids are refused with InvalidArgs",
        arguments: ["", "a..b", ".a", "a.", "a/b", "a b", String(repeating: "a", count: 256)])
    func badAppIDs(_ appID: String) throws {
        try Self.withMemoryProvider { _, frontend in
            #expect(Self.errorName(frontend.retrieve(appID: appID)) == Self.invalidArgs)
        }
    }

    @Test("A read-only fd, a missing fd and an fd index out of range are refused with InvalidArgs")
    func badDescriptors() throws {
        try Self.withMemoryProvider { _, frontend in
            let ends = try Self.makePipe()
            defer {
                close(ends[0])
                close(ends[1])
            }
            // The reading end of a pipe: open for reading only.
            #expect(Self.errorName(frontend.call(appID: Self.app, fd: ends[0])) == Self.invalidArgs)
            let readOnly = open("/dev/null", O_RDONLY)
            defer { close(readOnly) }
            #expect(Self.errorName(frontend.call(appID: Self.app, fd: readOnly)) == Self.invalidArgs)
            #expect(Self.errorName(frontend.call(appID: Self.app, fd: nil)) == Self.invalidArgs)
            #expect(Self.errorName(frontend.call(appID: Self.app, fd: ends[1], index: 3)) == Self.invalidArgs)
        }
    }

    @Test(
        "Regression: an fd whose reading end is closed (EPIPE) fails the call; the provider lives and the secret was stored once"
    )
    func closedReadingEnd() throws {
        try Self.withKeychainProvider { bus, frontend, home in
            let ends = try Self.makePipe()
            close(ends[0])
            let result = frontend.call(appID: Self.app, fd: ends[1])
            close(ends[1])
            #expect(Self.errorName(result) == "org.freedesktop.DBus.Error.Failed")
            if case .failure(let error) = result { #expect(error.message.contains("EPIPE")) }
            #expect(bus.provider?.isRunning == true)
            let first = try Self.expectSuccess(frontend.retrieve(appID: Self.app))
            let second = try Self.expectSuccess(frontend.retrieve(appID: Self.app))
            #expect(first.secret.count == 64 && second.secret == first.secret)
            #expect(try Self.portalItems(home).count == 1)
        }
    }

    @Test(
        "In the keychain store the secret is an AfterFirstUnlock item of the app's access group in the login keychain, kept across restarts"
    )
    func keychainItem() throws {
        try Self.withKeychainProvider { bus, frontend, home in
            let first = try Self.expectSuccess(frontend.retrieve(appID: Self.app))
            let items = try Self.portalItems(home)
            #expect(items.count == 1)
            let item = try #require(items.first)
            #expect(item.accessGroup == "flatpak:\(Self.app)")
            #expect(item.protection == .afterFirstUnlock)
            #expect(item.attributes[.account] == .string(Self.app))
            #expect(item.attributes[.generic] == .data(Array((first.token ?? "").utf8)))
            _ = try Self.expectSuccess(frontend.retrieve(appID: "snap.notes"))
            #expect(try Self.portalItems(home).map(\.accessGroup).sorted() == ["flatpak:\(Self.app)", "snap:notes"])
            bus.stopProvider()
            try bus.startProvider(keychainHome: home.root)
            let after = try Self.expectSuccess(frontend.retrieve(appID: Self.app))
            #expect(after.secret == first.secret)
            #expect(after.token == first.token)
        }
    }

    @Test(
        "A keychain locked since login is unlocked through the prompt; dismissed, the call answers 1 (cancelled) and stores nothing"
    )
    func lockedKeychain() throws {
        let prepare: (KeychainHome) throws -> [String: String] = { home in
            let keystore = try home.createKeychain("login", password: "secret pw")
            // As at a new login: not even the AfterFirstUnlock keys are available.
            try keystore.withdrawAllClassKeys()
            return ["KEYCHAIN_PINENTRY": try home.scriptedPinentry(password: nil)]
        }
        try Self.withKeychainProvider(prepare: prepare) { bus, frontend, home in
            let dismissed = frontend.retrieve(appID: Self.app)
            if case .success(let answer) = dismissed {
                #expect(answer.response == 1)
                #expect(answer.secret.isEmpty)
                #expect(answer.token == nil)
            } else {
                Issue.record("RetrieveSecret failed: \(dismissed)")
            }
            bus.stopProvider()
            try bus.startProvider(
                keychainHome: home.root,
                extraEnvironment: ["KEYCHAIN_PINENTRY": try home.scriptedPinentry(password: "secret pw")])
            let unlocked = try Self.expectSuccess(frontend.retrieve(appID: Self.app))
            #expect(unlocked.secret.count == 64)
            #expect(try Self.portalItems(home).count == 1)
        }
    }

    @Test("Close on the request's handle ends a call waiting for the unlock prompt with 1 (cancelled)")
    func closeRequest() throws {
        let prepare: (KeychainHome) throws -> [String: String] = { home in
            try home.createKeychain("login", password: "secret pw").withdrawAllClassKeys()
            return ["KEYCHAIN_PINENTRY": try home.scriptedPinentry(password: "secret pw", delay: 60)]
        }
        try Self.withKeychainProvider(prepare: prepare) { bus, frontend, home in
            let handle = frontend.newHandle()
            let closer = try bus.connect()
            defer {
                g_dbus_connection_close_sync(closer, nil, nil)
                g_object_unref(UnsafeMutableRawPointer(closer))
            }
            // While the call waits for the pinentry, another connection's Close is refused; the
            // frontend's ends the call.
            let errors = ErrorLog()
            let frontendAddress = Int(bitPattern: UnsafeRawPointer(frontend.connection))
            let closerAddress = Int(bitPattern: UnsafeRawPointer(closer))
            let thread = Thread {
                for _ in 0..<1_000 {
                    if Self.sendClose(handle, on: closerAddress) == "org.freedesktop.DBus.Error.AccessDenied" {
                        errors.append("org.freedesktop.DBus.Error.AccessDenied")
                        errors.append(Self.sendClose(handle, on: frontendAddress) ?? "closed")
                        return
                    }
                    usleep(10_000)
                }
            }
            thread.start()
            let answer = try #require(try? frontend.retrieve(appID: Self.app, handle: handle).get())
            #expect(answer.response == 1)
            #expect(answer.secret.isEmpty)
            for _ in 0..<500 where errors.entries.count < 2 { usleep(10_000) }
            #expect(errors.entries == ["org.freedesktop.DBus.Error.AccessDenied", "closed"])
            // The handle is gone with the call.
            #expect(bus.errorName(handle, SecretPortal.requestInterface, "Close") != nil)
            #expect(try Self.portalItems(home).isEmpty)
        }
    }

    /// `Close` on `handle` from the connection at `address` (a thread's view of it); the error name, or `nil`.
    static func sendClose(_ handle: String, on address: Int) -> String? {
        var error: UnsafeMutablePointer<GError>?
        let reply = g_dbus_connection_call_sync(
            OpaquePointer(bitPattern: address), "org.freedesktop.secrets", handle, SecretPortal.requestInterface,
            "Close", nil, nil, G_DBUS_CALL_FLAGS_NONE, 10_000, nil, &error)
        if let reply {
            g_variant_unref(reply)
            return nil
        }
        let remote = error.flatMap { g_dbus_error_get_remote_error($0) }
        defer { g_free(remote) }
        if let error { g_error_free(error) }
        return remote.map { String(cString: $0) } ?? "(local)"
    }

    @Test("The backend object reports version 1")
    func version() throws {
        try Self.withMemoryProvider { bus, _ in
            let reply = try bus.expectReply(
                SecretPortal.objectPath, "org.freedesktop.DBus.Properties", "Get",
                [Variant.string(SecretPortal.interface), Variant.string("version")])
            defer { g_variant_unref(reply) }
            let version = Variant.withChild(reply, 0) { boxed in
                let value = g_variant_get_variant(boxed)!
                defer { g_variant_unref(value) }
                return g_variant_get_uint32(value)
            }
            #expect(version == 1)
        }
    }
}

/// Lines a helper thread records for the test's thread.
final class ErrorLog: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var entries: [String] { lines.withLock { $0 } }
}
