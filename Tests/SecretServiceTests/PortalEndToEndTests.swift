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
                appID: "org.example.Notes", ["store", "s3cret-notes"], environment: environment)
            #expect(store.lines == ["stored=True"])
            let keyring = data + "/keyrings/default.keyring"
            let contents = try #require(FileManager.default.contents(atPath: keyring))
            #expect(contents.starts(with: Array("GnomeKeyring\n\r\0\n".utf8)))
            #expect(!contents.contains(Array("s3cret-notes".utf8)))
            let lookup = try sandbox.run(appID: "org.example.Notes", ["lookup"], environment: environment)
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
}
