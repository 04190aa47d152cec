import Foundation
import KeychainCore
import Testing

@testable import SecretService

/// The Secret portal as a Flatpak app meets it: the real xdg-desktop-portal on a private bus with the
/// provider configured as its Secret backend (`portal/swift-keychain.portal`), and clients inside
/// `bwrap` with a `/.flatpak-info` (``PortalSandbox``).
@Suite(
    "The Secret portal through xdg-desktop-portal and bwrap", .serialized,
    .enabled(if: PortalSandbox.unavailableReason == nil, "\(PortalSandbox.unavailableReason ?? "")"))
struct PortalEndToEndTests {
    /// A keychain-backed provider in its own home, the frontend, and `body`.
    static func with(
        prepare: (KeychainHome) throws -> [String: String] = { _ in [:] },
        _ body: (PortalSandbox, KeychainHome) throws -> Void
    ) throws {
        let home = try KeychainHome()
        defer { home.remove() }
        let environment = try prepare(home)
        try PrivateBus.with(startProvider: false) { bus in
            try bus.startProvider(keychainHome: home.root, extraEnvironment: environment)
            let sandbox = try PortalSandbox(bus: bus)
            defer { sandbox.stop() }
            try body(sandbox, home)
        }
    }

    /// The `response=… bytes=… sha256=…` lines of a `retrieve` run, parsed.
    static func answers(_ lines: [String]) -> [(response: String, bytes: Int, digest: String)] {
        lines.compactMap { line in
            var fields: [String: String] = [:]
            for part in line.split(separator: " ") {
                let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
                if pair.count == 2 { fields[pair[0]] = pair[1] }
            }
            guard let response = fields["response"], let bytes = fields["bytes"].flatMap(Int.init),
                let digest = fields["sha256"]
            else { return nil }
            return (response, bytes, digest)
        }
    }

    @Test("A sandboxed app gets 64 bytes, the same on the second call, different for another app id")
    func retrieveThroughFrontend() throws {
        try Self.with { sandbox, home in
            let first = try sandbox.run(appID: "org.example.Notes", ["retrieve"])
            #expect(first.status == 0)
            let notes = Self.answers(first.lines)
            #expect(notes.count == 2)
            #expect(notes.allSatisfy { $0.response == "0" && $0.bytes == 64 })
            #expect(Set(notes.map(\.digest)).count == 1)
            let other = Self.answers(try sandbox.run(appID: "org.example.Other", ["retrieve"]).lines)
            #expect(other.count == 2 && other.allSatisfy { $0.response == "0" && $0.bytes == 64 })
            #expect(other.first?.digest != notes.first?.digest)
            // The app id came from the sandbox: the options' forged app_id made no secret of its own.
            let groups = try PortalBackendTests.portalItems(home).map(\.accessGroup).sorted()
            #expect(groups == ["flatpak:org.example.Notes", "flatpak:org.example.Other"])
        }
    }

    @Test("libsecret's file backend inside the sandbox stores a password and reads it back with the portal's secret")
    func libsecretFileBackend() throws {
        try Self.with { sandbox, _ in
            let data = sandbox.bus.directory.appendingPathComponent("app-data").path
            try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
            let environment = ["SECRET_BACKEND": "file", "XDG_DATA_HOME": data]
            let store = try sandbox.run(
                appID: "org.example.Notes", ["store", "s3cret-notes"], environment: environment, retryingOnHang: true)
            #expect(store.lines == ["stored=True"])
            let keyring = data + "/keyrings/default.keyring"
            let contents = try #require(FileManager.default.contents(atPath: keyring))
            #expect(contents.starts(with: Array("GnomeKeyring\n\r\0\n".utf8)))
            #expect(!contents.contains(Array("s3cret-notes".utf8)))
            let lookup = try sandbox.run(
                appID: "org.example.Notes", ["lookup"], environment: environment, retryingOnHang: true)
            #expect(lookup.lines == ["found=s3cret-notes"])
        }
    }

    @Test("A keychain locked since login whose unlock prompt is dismissed answers the app with response 1 (cancelled)")
    func lockedAndDismissed() throws {
        let prepare: (KeychainHome) throws -> [String: String] = { home in
            try home.createKeychain("login", password: "secret pw").withdrawAllClassKeys()
            return ["KEYCHAIN_PINENTRY": try home.scriptedPinentry(password: nil)]
        }
        try Self.with(prepare: prepare) { sandbox, home in
            let run = try sandbox.run(appID: "org.example.Notes", ["retrieve"])
            let answers = Self.answers(run.lines)
            #expect(answers.count == 2)
            #expect(answers.allSatisfy { $0.response == "1" && $0.bytes == 0 })
            #expect(try PortalBackendTests.portalItems(home).isEmpty)
        }
    }

    /// Runs the built `security portal-migrate` with `home`'s keychains. - Returns: status, stdout, stderr.
    static func portalMigrate(_ arguments: [String], home: KeychainHome) throws -> (
        status: Int32, output: String, error: String
    ) {
        let security = URL(fileURLWithPath: PrivateBus.providerExecutable).deletingLastPathComponent()
            .appendingPathComponent("security").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: security)
        process.arguments = ["portal-migrate"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment.merge(home.environment) { _, new in new }
        environment["HOME"] = home.root
        process.environment = environment
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    @Test(
        "security portal-migrate moves the named host items into the app's keyring file, where libsecret in the sandbox finds them"
    )
    func portalMigrateMovesItems() throws {
        try Self.with { sandbox, home in
            let bus = sandbox.bus
            let session = try bus.openPlainSession()
            let moved = try bus.createItem(
                KeychainProviderTests.login, label: "Notes (alice)",
                attributes: ["xdg:schema": "org.example.Notes.Account", "user": "alice"], secret: "old-notes-secret",
                session: session)
            let stays = try bus.createItem(
                KeychainProviderTests.login, label: "Mail",
                attributes: ["xdg:schema": "org.example.Mail", "user": "alice"],
                secret: "mail-secret", session: session)
            let data = bus.directory.appendingPathComponent("app-data").path
            let keyring = data + "/keyrings/default.keyring"
            let dry = try Self.portalMigrate(
                ["-n", "-s", "org.example.Notes.Account", "-o", keyring, "org.example.Notes"], home: home)
            #expect(dry.status == 0)
            #expect(dry.output == "1 item would move to \(keyring)\n")
            #expect(!FileManager.default.fileExists(atPath: keyring))
            let run = try Self.portalMigrate(
                ["-s", "org.example.Notes.Account", "-o", keyring, "org.example.Notes"], home: home)
            #expect(run.status == 0, "\(run.error)")
            #expect(run.output == "moved 1 item to \(keyring)\n")
            #expect(!run.output.contains("old-notes-secret") && !run.error.contains("old-notes-secret"))
            let contents = try #require(FileManager.default.contents(atPath: keyring))
            #expect(!contents.contains(Array("old-notes-secret".utf8)))
            #expect(!contents.contains(Array("alice".utf8)))
            // The app, through the portal, reads the moved item with libsecret's own file backend.
            let lookup = try sandbox.run(
                appID: "org.example.Notes", ["lookup"], environment: ["SECRET_BACKEND": "file", "XDG_DATA_HOME": data],
                retryingOnHang: true)
            #expect(lookup.lines == ["found=old-notes-secret"])
            // It left the keychain; the other item stayed.
            for _ in 0..<300 where (try? KeychainProviderTests.search(bus, ["user": "alice"]).unlocked.count) != 1 {
                usleep(10_000)
            }
            #expect(try KeychainProviderTests.search(bus, ["user": "alice"]).unlocked == [stays])
            #expect(moved != stays)
        }
    }

    @Test(
        "security portal-migrate refuses no selection, a bad app id, no match, and a keyring file made with another app's secret, and deletes nothing"
    )
    func portalMigrateBadInput() throws {
        try Self.with { sandbox, home in
            let bus = sandbox.bus
            let session = try bus.openPlainSession()
            _ = try bus.createItem(
                KeychainProviderTests.login, label: "Notes",
                attributes: ["xdg:schema": "org.example.Notes.Account", "user": "alice"],
                secret: "old-notes-secret", session: session)
            let data = bus.directory.appendingPathComponent("other-data").path
            let keyring = data + "/keyrings/default.keyring"
            let none = try Self.portalMigrate(["-o", keyring, "org.example.Notes"], home: home)
            #expect(none.status == 1 && none.error.contains("-s schema"))
            let badApp = try Self.portalMigrate(["-s", "x", "not an app"], home: home)
            #expect(badApp.status == 1 && badApp.error.contains("is not an application id"))
            let noMatch = try Self.portalMigrate(["-a", "user=bob", "-o", keyring, "org.example.Notes"], home: home)
            #expect(noMatch.status == 1 && noMatch.error.contains("no item"))
            // Another app's keyring file: its items do not verify under this app's secret.
            let environment = ["SECRET_BACKEND": "file", "XDG_DATA_HOME": data]
            #expect(
                try sandbox.run(
                    appID: "org.example.Other", ["store", "x"], environment: environment, retryingOnHang: true
                ).lines == [
                    "stored=True"
                ])
            let before = FileManager.default.contents(atPath: keyring)
            let wrong = try Self.portalMigrate(["-a", "user=alice", "-o", keyring, "org.example.Notes"], home: home)
            #expect(wrong.status == 1 && wrong.error.contains("another master secret"))
            #expect(FileManager.default.contents(atPath: keyring) == before)
            #expect(try KeychainProviderTests.search(bus, ["user": "alice"]).unlocked.count == 1)
        }
    }
}
