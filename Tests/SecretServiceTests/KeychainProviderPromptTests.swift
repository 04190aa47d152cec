import CGIO
import Foundation
import KeychainCore
import KeychainDBus
import Testing

@testable import SecretService

/// CreateCollection and Collection.Delete prompts ask on a worker thread: the provider keeps serving
/// other clients meanwhile, and a prompt that ends first (Dismiss, its client leaving) drops the answer.
@Suite("keychain-secret-service prompts on a worker thread", .serialized)
struct KeychainProviderPromptTests: SecretServiceSuite {
    typealias Provider = KeychainProviderTests
    static let work = "/org/freedesktop/secrets/collection/Work"

    static func collections(_ bus: PrivateBus) throws -> [String] {
        let value = try bus.property(Self.service, Self.serviceInterface, "Collections")
        defer { g_variant_unref(value) }
        return Variant.readStrings(value)
    }

    /// `CreateCollection` of “Work” and its `Prompt`, on `connection`; returns the prompt's path.
    static func promptCreateWork(_ bus: PrivateBus, on connection: OpaquePointer) throws -> String {
        let reply = try bus.expectReply(
            Self.service, Self.serviceInterface, "CreateCollection",
            [
                Variant.variantMap([("org.freedesktop.Secret.Collection.Label", Variant.string("Work"))]),
                Variant.string(""),
            ],
            on: connection)
        let prompt = Variant.withChild(reply, 1, Variant.readString)
        g_variant_unref(reply)
        g_variant_unref(
            try bus.expectReply(prompt, Self.promptInterface, "Prompt", [Variant.string("")], on: connection))
        return prompt
    }

    /// Waits (a hang guard) until the gated pinentry has answered, then makes two round trips to the
    /// provider, so that the worker's answer has reached the provider's main loop.
    /// - Returns: whether the pinentry answered.
    @discardableResult
    /// Waits (a hang guard) until the gated pinentry shows its question. - Returns: whether it does.
    static func awaitAsking(_ gate: String) -> Bool {
        for _ in 0..<1_000 where !FileManager.default.fileExists(atPath: gate + ".asking") { usleep(10_000) }
        return FileManager.default.fileExists(atPath: gate + ".asking")
    }

    static func awaitAnswer(_ bus: PrivateBus, gate: String) throws -> Bool {
        for _ in 0..<1_000 where !FileManager.default.fileExists(atPath: gate + ".answered") { usleep(10_000) }
        // A grace for the worker to hand its answer over; a wrong result could only pass, never fail, by it.
        usleep(50_000)
        _ = try collections(bus)
        _ = try collections(bus)
        return FileManager.default.fileExists(atPath: gate + ".answered")
    }

    @Test("While a CreateCollection prompt waits for the user, another client's SearchItems and GetSecret are answered")
    func servesDuringCreateCollectionPrompt() throws {
        try Provider.with { bus, home in
            let gate = home.root + "/gate"
            try bus.startProvider(
                keychainHome: home.root,
                extraEnvironment: ["KEYCHAIN_PINENTRY": try home.gatedPinentry(password: "new pw", gate: gate)])
            let session = try bus.openPlainSession()
            let item = try bus.createItem(
                Self.login, label: "L", attributes: ["k": "v"], secret: "s1", session: session)
            let other = try bus.connect()
            defer {
                g_dbus_connection_close_sync(other, nil, nil)
                g_object_unref(UnsafeMutableRawPointer(other))
            }
            try bus.recordingCompleted { recorder in
                _ = try Self.promptCreateWork(bus, on: other)
                // The pinentry has not answered (its gate is closed): these are served during the prompt.
                #expect(try Provider.search(bus, ["k": "v"]).unlocked == [item])
                #expect(try Provider.secret(bus, item, session) == "s1")
                while g_main_context_iteration(nil, 0) != 0 {}
                #expect(recorder.completions.isEmpty)
                #expect(try !Self.collections(bus).contains(Self.work))
                #expect(!FileManager.default.fileExists(atPath: gate + ".answered"))
                // The user answers: the prompt completes with the new collection.
                #expect(FileManager.default.createFile(atPath: gate, contents: nil))
                let completed = bus.awaitCompleted(recorder)
                #expect(completed?.dismissed == false)
                #expect(completed?.result == "objectpath '\(Self.work)'")
            }
            #expect(try Self.collections(bus).contains(Self.work))
            let keystore = try Keystore(location: home.location("Work"), create: false)
            try keystore.lock()
            _ = try keystore.unlock(password: SecureBytes(copying: Array("new pw".utf8)))
        }
    }

    @Test(
        "A client that leaves during its CreateCollection prompt ends it (Completed(true)) and closes its pinentry; nothing is created"
    )
    func clientLeavesDuringCreateCollectionPrompt() throws {
        try Provider.with { bus, home in
            let gate = home.root + "/gate"
            try bus.startProvider(
                keychainHome: home.root,
                extraEnvironment: ["KEYCHAIN_PINENTRY": try home.gatedPinentry(password: "new pw", gate: gate)])
            let other = try bus.connect()
            try bus.recordingCompleted { recorder in
                let prompt = try Self.promptCreateWork(bus, on: other)
                #expect(Self.awaitAsking(gate))
                g_dbus_connection_close_sync(other, nil, nil)
                g_object_unref(UnsafeMutableRawPointer(other))
                let completed = bus.awaitCompleted(recorder)
                #expect(completed?.dismissed == true)
                #expect(completed?.result == "objectpath '/'")
                // The prompt is gone.
                #expect(
                    try !bus.introspect("/org/freedesktop/secrets/prompt").contains(
                        "node name=\"\(prompt.split(separator: "/").last!)\""))
            }
            // The ended prompt's pinentry is closed (SIGTERM), as gnome-keyring closes its dialog: it
            // never answers, even once the user would have.
            for _ in 0..<1_000 where !FileManager.default.fileExists(atPath: gate + ".closed") { usleep(10_000) }
            #expect(FileManager.default.fileExists(atPath: gate + ".closed"))
            #expect(FileManager.default.createFile(atPath: gate, contents: nil))
            usleep(200_000)  // what a still-running pinentry would need to notice the gate (it polls at 50 ms)
            #expect(!FileManager.default.fileExists(atPath: gate + ".answered"))
            #expect(try !Self.collections(bus).contains(Self.work))
            #expect(!FileManager.default.fileExists(atPath: home.location("Work").databasePath))
        }
    }

    @Test("Dismiss during a Collection.Delete prompt ends it (Completed(true)); a late right password deletes nothing")
    func dismissDuringDeletePrompt() throws {
        try Provider.with { bus, home in
            let keystore = try home.createKeychain("Work", password: "pw")
            let gate = home.root + "/gate"
            // A dialog that stays open despite the provider closing it, so that its late answer reaches
            // the worker and must be dropped.
            try bus.startProvider(
                keychainHome: home.root,
                extraEnvironment: [
                    "KEYCHAIN_PINENTRY": try home.gatedPinentry(password: "pw", gate: gate, ignoresTermination: true)
                ])
            try bus.recordingCompleted { recorder in
                let delete = try bus.expectReply(Self.work, Self.collectionInterface, "Delete")
                let prompt = Variant.withChild(delete, 0, Variant.readString)
                g_variant_unref(delete)
                g_variant_unref(try bus.expectReply(prompt, Self.promptInterface, "Prompt", [Variant.string("")]))
                // The dialog shows; still pending (the gate is closed), so Dismiss reaches it.
                #expect(Self.awaitAsking(gate))
                while g_main_context_iteration(nil, 0) != 0 {}
                #expect(recorder.completions.isEmpty)
                g_variant_unref(try bus.expectReply(prompt, Self.promptInterface, "Dismiss"))
                let completed = bus.awaitCompleted(recorder)
                #expect(completed?.dismissed == true)
                #expect(completed?.result == "@ao []")
                #expect(recorder.completions.count == 1)
            }
            #expect(FileManager.default.createFile(atPath: gate, contents: nil))
            // The pinentry of the ended prompt answers, and the worker checks the password by unlocking
            // the keychain (a hang guard waits for it); its answer must then delete nothing.
            #expect(try Self.awaitAnswer(bus, gate: gate))
            var unlocked = false
            for _ in 0..<1_000 {
                if try keystore.lockState() == .unlocked {
                    unlocked = true
                    break
                }
                usleep(10_000)
            }
            #expect(unlocked)
            _ = try Self.collections(bus)
            #expect(try Self.collections(bus).contains(Self.work))
            #expect(FileManager.default.fileExists(atPath: home.location("Work").databasePath))
            try keystore.lock()
        }
    }
}
