import CGIO
import Foundation
import KeychainCore
import KeychainDBus
import Testing

@testable import SecretService

/// The provider over keychain files (KeychainSecretStore), on a private bus.
@Suite("keychain-secret-service over keychains")
struct KeychainProviderTests: SecretServiceSuite {

    static func with(_ body: (PrivateBus, KeychainHome) throws -> Void) throws {
        let home = try KeychainHome()
        defer { home.remove() }
        try PrivateBus.with(startProvider: false) { bus in try body(bus, home) }
    }

    static func search(_ bus: PrivateBus, _ attributes: [String: String]) throws -> (
        unlocked: [String], locked: [String]
    ) {
        let reply = try bus.expectReply(service, serviceInterface, "SearchItems", [Variant.stringMap(attributes)])
        defer { g_variant_unref(reply) }
        return (Variant.withChild(reply, 0, Variant.readStrings), Variant.withChild(reply, 1, Variant.readStrings))
    }

    static func secret(_ bus: PrivateBus, _ item: String, _ session: String) throws -> String {
        let reply = try bus.expectReply(item, itemInterface, "GetSecret", [Variant.objectPath(session)])
        defer { g_variant_unref(reply) }
        return Variant.withChild(reply, 0) { secret in
            Variant.withChild(secret, 2) { Variant.withBytes($0) { String(decoding: $0, as: UTF8.self) } }
        }
    }

    static func string(_ bus: PrivateBus, _ path: String, _ interface: String, _ name: String) throws -> String {
        let value = try bus.property(path, interface, name)
        defer { g_variant_unref(value) }
        return Variant.readString(value)
    }

    static func locked(_ bus: PrivateBus, _ path: String) throws -> Bool {
        let value = try bus.property(path, collectionInterface, "Locked")
        defer { g_variant_unref(value) }
        return Variant.readBoolean(value)
    }

    @Test(
        "The login keychain is the login, default collection; items are created, found, replaced (exact set) and deleted"
    )
    func itemsInLoginKeychain() throws {
        try Self.with { bus, home in
            try bus.startProvider(keychainHome: home.root)
            let alias = try bus.expectReply(
                Self.service, Self.serviceInterface, "ReadAlias", [Variant.string("default")])
            #expect(Variant.withChild(alias, 0, Variant.readString) == Self.login)
            g_variant_unref(alias)
            let session = try bus.openPlainSession()
            let specific = try bus.createItem(
                "/org/freedesktop/secrets/aliases/default", label: "specific", attributes: ["app": "x", "user": "u"],
                secret: "keep", session: session)
            #expect(specific == Self.login + "/1")
            let general = try bus.createItem(
                Self.login, label: "general", attributes: ["app": "x"], secret: "one", session: session, replace: true)
            #expect(general == Self.login + "/2")
            let replaced = try bus.createItem(
                Self.login, label: "general!", attributes: ["app": "x"], secret: "two", session: session, replace: true)
            #expect(replaced == general)
            #expect(try Self.search(bus, ["app": "x"]).unlocked == [specific, general])
            #expect(try Self.search(bus, ["user": "u"]).unlocked == [specific])
            #expect(try Self.secret(bus, specific, session) == "keep")
            #expect(try Self.secret(bus, general, session) == "two")
            #expect(try Self.string(bus, general, Self.itemInterface, "Label") == "general!")
            g_variant_unref(try bus.expectReply(specific, Self.itemInterface, "Delete"))
            #expect(try Self.search(bus, [:]).unlocked == [general])
            #expect(bus.errorName(specific, Self.itemInterface, "GetSecret", [Variant.objectPath(session)]) != nil)
            // The item is in the keychain file, where the engine finds it.
            let keystore = try Keystore(location: home.location("login"), create: false)
            #expect(try keystore.secretItems(matching: ["app": "x"]).map(\.label) == ["general!"])
            #expect(try keystore.verifyIntegrity() == 1)
        }
    }

    @Test(
        "GetSecrets returns the secrets it can open: a corrupted item row and unknown paths are left out, not the batch"
    )
    func getSecretsSkipsCorruptedItem() throws {
        try Self.with { bus, home in
            try bus.startProvider(keychainHome: home.root)
            let session = try bus.openPlainSession()
            let items = try ["one", "two", "three"].map { name in
                try bus.createItem(Self.login, label: name, attributes: ["n": name], secret: name, session: session)
            }
            // Another writer (or the disk) damages the second item's sealed secret.
            try home.sqlite("login", "UPDATE ss_items SET secret = zeroblob(length(secret)) WHERE id = 2")
            #expect(items[1] == Self.login + "/2")
            // The damaged item is still listed (its metadata opens) but its secret does not.
            #expect(bus.errorName(items[1], Self.itemInterface, "GetSecret", [Variant.objectPath(session)]) != nil)
            let reply = try bus.expectReply(
                Self.service, Self.serviceInterface, "GetSecrets",
                [
                    Variant.objectPaths(items + [Self.login + "/99", "/org/freedesktop/secrets/nothing"]),
                    Variant.objectPath(session),
                ])
            defer { g_variant_unref(reply) }
            var secrets: [String: String] = [:]
            Variant.withChild(reply, 0) { map in
                for index in 0..<Variant.childCount(map) {
                    Variant.withChild(map, index) { entry in
                        let path = Variant.withChild(entry, 0, Variant.readString)
                        secrets[path] = Variant.withChild(entry, 1) { secret in
                            Variant.withChild(secret, 2) {
                                Variant.withBytes($0) { String(decoding: $0, as: UTF8.self) }
                            }
                        }
                    }
                }
            }
            #expect(secrets == [items[0]: "one", items[2]: "three"])
        }
    }

    @Test(
        "The migration client's GetSecrets keeps the entries it can decode and names the others, never failing the batch"
    )
    func clientSkipsUndecodableSecrets() throws {
        try Self.with { bus, home in
            try bus.startProvider(keychainHome: home.root)
            let plain = try bus.openPlainSession()
            let item = try bus.createItem(Self.login, label: "a", attributes: ["n": "a"], secret: "a", session: plain)
            let client = SecretServiceClient(connection: try #require(bus.client), busName: "org.freedesktop.secrets")
            try client.openSession()
            #expect(client.sessionIsEncrypted)
            let good = try client.secrets(of: [item, Self.login + "/99"])
            #expect(good.undecodable.isEmpty)
            #expect(good.secrets[item]?.value.withUnsafeBytes { Array($0) } == Array("a".utf8))
            // The client decodes as DH what the provider sends in the plain session (no IV): undecodable.
            client.session = TransportSession(
                id: plain, owner: "", algorithm: .dhAES(key: SecureBytes.random(count: 16)))
            client.sessionPath = plain
            let bad = try client.secrets(of: [item])
            #expect(bad.secrets.isEmpty)
            #expect(Array(bad.undecodable.keys) == [item])
        }
    }

    @Test("Object paths stay the same across a provider restart; items written by another process are announced")
    func pathsSurviveRestart() throws {
        try Self.with { bus, home in
            try bus.startProvider(keychainHome: home.root)
            var session = try bus.openPlainSession()
            let path = try bus.createItem(
                Self.login, label: "kept", attributes: ["k": "v"], secret: "s", session: session)
            bus.provider?.terminate()
            bus.provider?.waitUntilExit()
            try bus.startProvider(keychainHome: home.root)
            session = try bus.openPlainSession()
            #expect(try Self.search(bus, ["k": "v"]).unlocked == [path])
            #expect(try Self.secret(bus, path, session) == "s")
            // Another process (here the engine in the test process) adds an item: the provider serves it.
            let keystore = try Keystore(location: home.location("login"), create: false)
            let other = try keystore.createSecretItem(
                label: "other", attributes: ["k": "w"],
                secret: SecretItemSecret(value: SecureBytes(copying: Array("o".utf8)), contentType: "text/plain"),
                replace: false)
            #expect(try Self.search(bus, ["k": "w"]).unlocked == [Self.login + "/\(other.number)"])
        }
    }

    @Test("A locked keychain: metadata readable, secrets and writes IsLocked, searches list its items as locked")
    func lockedCollection() throws {
        try Self.with { bus, home in
            let keystore = try home.createKeychain("login", password: "pw")
            _ = try keystore.unlock(password: SecureBytes(copying: Array("pw".utf8)))
            _ = try keystore.createSecretItem(
                label: "Locked item", attributes: ["a": "b"],
                secret: SecretItemSecret(value: SecureBytes(copying: Array("hidden".utf8)), contentType: "text/plain"),
                replace: false, now: 1234)
            try keystore.lock()
            try bus.startProvider(keychainHome: home.root)
            let item = Self.login + "/1"
            let session = try bus.openPlainSession()
            #expect(try Self.locked(bus, Self.login))
            #expect(try Self.string(bus, item, Self.itemInterface, "Label") == "Locked item")
            let attributes = try bus.property(item, Self.itemInterface, "Attributes")
            #expect(Variant.readStringMap(attributes) == ["a": "b"])
            g_variant_unref(attributes)
            let created = try bus.property(item, Self.itemInterface, "Created")
            #expect(g_variant_get_uint64(created) == 1234)
            g_variant_unref(created)
            let modified = try bus.property(item, Self.itemInterface, "Modified")
            #expect(g_variant_get_uint64(modified) == 1234)
            g_variant_unref(modified)
            let found = try Self.search(bus, ["a": "b"])
            #expect(found.unlocked.isEmpty && found.locked == [item])
            #expect(
                bus.errorName(item, Self.itemInterface, "GetSecret", [Variant.objectPath(session)]) == Self.isLocked)
            #expect(
                bus.errorName(item, Self.itemInterface, "SetSecret", [PrivateBus.secretValue(session, Array("x".utf8))])
                    == Self.isLocked)
            #expect(bus.errorName(item, Self.itemInterface, "Delete") == Self.isLocked)
            #expect(
                bus.errorName(
                    Self.login, Self.collectionInterface, "CreateItem",
                    [Variant.variantMap([]), PrivateBus.secretValue(session, Array("x".utf8)), Variant.boolean(false)])
                    == Self.isLocked)
            let secrets = try bus.expectReply(
                Self.service, Self.serviceInterface, "GetSecrets",
                [Variant.objectPaths([item]), Variant.objectPath(session)])
            #expect(Variant.withChild(secrets, 0, Variant.childCount) == 0)
            g_variant_unref(secrets)
            // `security unlock-keychain` in a terminal (the same kernel keyring): Unlock answers at once.
            try #require(
                try home.security(["unlock-keychain", home.location("login").databasePath], stdin: "pw\n").status == 0)
            let unlock = try bus.expectReply(
                Self.service, Self.serviceInterface, "Unlock", [Variant.objectPaths([Self.login])])
            #expect(Variant.withChild(unlock, 0, Variant.readStrings) == [Self.login])
            #expect(Variant.withChild(unlock, 1, Variant.readString) == "/")
            g_variant_unref(unlock)
            #expect(try Self.secret(bus, item, session) == "hidden")
            try keystore.lock()
        }
    }

    @Test("Unlock of a locked keychain asks the password through pinentry when the client runs the prompt")
    func unlockThroughPinentry() throws {
        try Self.with { bus, home in
            let keystore = try home.createKeychain("login", password: "secret pw")
            try bus.startProvider(
                keychainHome: home.root,
                extraEnvironment: ["KEYCHAIN_PINENTRY": try home.scriptedPinentry(password: "secret pw")])
            #expect(try Self.locked(bus, Self.login))
            let unlock = try bus.expectReply(
                Self.service, Self.serviceInterface, "Unlock", [Variant.objectPaths([Self.login])])
            let prompt = Variant.withChild(unlock, 1, Variant.readString)
            g_variant_unref(unlock)
            #expect(prompt.hasPrefix("/org/freedesktop/secrets/prompt/"))
            g_variant_unref(
                try bus.expectReply(prompt, "org.freedesktop.Secret.Prompt", "Prompt", [Variant.string("")]))
            // The prompt completes after its reply: wait for the unlock (a hang guard, not a timing assertion).
            var unlocked = false
            for _ in 0..<500 where !unlocked {
                unlocked = try !Self.locked(bus, Self.login)
                if !unlocked { usleep(10_000) }
            }
            #expect(unlocked)
            #expect(try keystore.lockState() == .unlocked)
            try keystore.lock()
        }
    }

    @Test("No label, attribute name or value, or secret appears in plain text in the keychain's files")
    func nothingInPlainText() throws {
        try Self.with { bus, home in
            try bus.startProvider(keychainHome: home.root)
            let session = try bus.openPlainSession()
            let words = ["LabelZebra42", "attrNameQuokka", "attrValueNarwhal", "secretValueOcelot"]
            _ = try bus.createItem(
                Self.login, label: words[0], attributes: [words[1]: words[2], "xdg:schema": "org.example.Plain"],
                secret: words[3], session: session)
            bus.provider?.terminate()
            bus.provider?.waitUntilExit()
            let bytes = home.fileBytes("login")
            #expect(!bytes.isEmpty)
            for word in words + ["org.example.Plain"] {
                let needle = Array(word.utf8)
                let found =
                    bytes.count >= needle.count
                    && (0...(bytes.count - needle.count)).contains {
                        bytes[$0..<($0 + needle.count)].elementsEqual(needle)
                    }
                #expect(!found, "\(word) is in the keychain files")
            }
        }
    }

    @Test("Items in keychain files are not lost by an exit: the provider still exits when idle, and serves them after")
    func idleExitWithKeychainItems() throws {
        try Self.with { bus, home in
            try bus.startProvider(arguments: ["--idle-exit", "1"], keychainHome: home.root)
            let session = try bus.openPlainSession()
            let path = try bus.createItem(
                Self.login, label: "kept", attributes: ["k": "v"], secret: "s", session: session)
            g_variant_unref(try bus.expectReply(session, "org.freedesktop.Secret.Session", "Close"))
            let provider = try #require(bus.provider)
            provider.waitUntilExit()
            #expect(provider.terminationStatus == 0)
            try bus.startProvider(keychainHome: home.root)
            #expect(try Self.search(bus, ["k": "v"]).unlocked == [path])
        }
    }

    @Test(
        "CreateCollection makes a keychain with the password pinentry gives; Collection.Delete deletes it after its prompt"
    )
    func createAndDeleteKeychainCollection() throws {
        try Self.with { bus, home in
            try bus.startProvider(
                keychainHome: home.root,
                extraEnvironment: ["KEYCHAIN_PINENTRY": try home.scriptedPinentry(password: "new pw")])
            let reply = try bus.expectReply(
                Self.service, Self.serviceInterface, "CreateCollection",
                [
                    Variant.variantMap([("org.freedesktop.Secret.Collection.Label", Variant.string("Work"))]),
                    Variant.string(""),
                ])
            #expect(Variant.withChild(reply, 0, Variant.readString) == "/")
            let prompt = Variant.withChild(reply, 1, Variant.readString)
            g_variant_unref(reply)
            g_variant_unref(
                try bus.expectReply(prompt, "org.freedesktop.Secret.Prompt", "Prompt", [Variant.string("")]))
            let work = "/org/freedesktop/secrets/collection/Work"
            func collections() throws -> [String] {
                let value = try bus.property(Self.service, Self.serviceInterface, "Collections")
                defer { g_variant_unref(value) }
                return Variant.readStrings(value)
            }
            // Hang guards while the prompt completes after its reply, not timing assertions.
            for _ in 0..<500 where try !collections().contains(work) { usleep(10_000) }
            #expect(try collections().contains(work))
            #expect(try !Self.locked(bus, work))
            let keystore = try Keystore(location: home.location("Work"), create: false)
            #expect(try keystore.lockState() == .unlocked)
            try keystore.lock()
            _ = try keystore.unlock(password: SecureBytes(copying: Array("new pw".utf8)))
            // `security default-keychain -s` and `list-keychains -s` name it; deleting it forgets it there, as
            // `security delete-keychain` does, so commands naming no keychain do not point at a deleted file.
            let conf = home.root + "/config/swift-keychain/keychains.conf"
            let login = home.location("login").databasePath, workPath = home.location("Work").databasePath
            try KeychainPreferences(defaultKeychain: workPath, searchList: [login, workPath]).save(path: conf)
            let delete = try bus.expectReply(work, Self.collectionInterface, "Delete")
            let deletePrompt = Variant.withChild(delete, 0, Variant.readString)
            g_variant_unref(delete)
            #expect(deletePrompt.hasPrefix("/org/freedesktop/secrets/prompt/"))
            #expect(FileManager.default.fileExists(atPath: home.location("Work").databasePath))
            g_variant_unref(
                try bus.expectReply(deletePrompt, "org.freedesktop.Secret.Prompt", "Prompt", [Variant.string("")]))
            for _ in 0..<500 where try collections().contains(work) { usleep(10_000) }
            #expect(try !collections().contains(work))
            #expect(!FileManager.default.fileExists(atPath: home.location("Work").databasePath))
            #expect(
                KeychainPreferences.load(path: conf) == KeychainPreferences(defaultKeychain: nil, searchList: [login]))
        }
    }

    @Test(
        "CreateCollection asks the new password twice: a confirmation that differs asks again, three that differ create nothing; the keychain joins the search list"
    )
    func createCollectionConfirmsPassword() throws {
        for (answers, created) in [(["one", "two", "pw", "pw"], true), (["a", "b", "c", "d", "e", "f"], false)] {
            try Self.with { bus, home in
                let log = home.root + "/pinentry.log"
                try bus.startProvider(
                    keychainHome: home.root,
                    extraEnvironment: ["KEYCHAIN_PINENTRY": try home.answeringPinentry(answers, log: log)])
                let completion = try bus.recordingCompleted { recorder in
                    let reply = try bus.expectReply(
                        Self.service, Self.serviceInterface, "CreateCollection",
                        [
                            Variant.variantMap([("org.freedesktop.Secret.Collection.Label", Variant.string("Work"))]),
                            Variant.string(""),
                        ])
                    let prompt = Variant.withChild(reply, 1, Variant.readString)
                    g_variant_unref(reply)
                    g_variant_unref(
                        try bus.expectReply(prompt, "org.freedesktop.Secret.Prompt", "Prompt", [Variant.string("")]))
                    return bus.awaitCompleted(recorder)
                }
                #expect(completion?.dismissed == !created)
                let asked = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
                #expect(asked.filter { $0 == "GETPIN" }.count == (created ? 4 : 6))
                #expect(asked.filter { $0 == "SETERROR" }.count == (created ? 1 : 2))
                let workPath = home.location("Work").databasePath
                #expect(FileManager.default.fileExists(atPath: workPath) == created)
                let searchList = KeychainPreferences.load(path: home.root + "/config/swift-keychain/keychains.conf")
                    .searchList
                #expect((searchList ?? []).contains(workPath) == created)
                if created {
                    let keystore = try Keystore(location: home.location("Work"), create: false)
                    try keystore.lock()
                    _ = try keystore.unlock(password: SecureBytes(copying: Array("pw".utf8)))
                    #expect(try keystore.lockState() == .unlocked)
                }
            }
        }
    }

    /// Runs `Unlock` of the login collection and its prompt; returns the prompt's `Completed` arguments,
    /// after `whilePending` ran (while the user is still being asked).
    static func unlockThroughPrompt(_ bus: PrivateBus, whilePending: () throws -> Void = {}) throws -> PromptCompletion?
    {
        try bus.recordingCompleted { recorder in
            let unlock = try bus.expectReply(service, serviceInterface, "Unlock", [Variant.objectPaths([login])])
            let prompt = Variant.withChild(unlock, 1, Variant.readString)
            g_variant_unref(unlock)
            g_variant_unref(try bus.expectReply(prompt, promptInterface, "Prompt", [Variant.string("")]))
            try whilePending()
            return bus.awaitCompleted(recorder)
        }
    }

    @Test("A lock by another process is answered at once: SearchItems lists the item as locked and Locked is true")
    func lockByAnotherProcessIsSeenAtOnce() throws {
        // Regression: `secret-tool lookup` right after `security lock-keychain` was told the item was
        // unlocked (the lock state of the last one-second poll), asked GetSecrets without Unlock, got
        // nothing and printed nothing in 12 ms: no prompt ran.
        try Self.with { bus, home in
            let keystore = try home.createKeychain("login", password: "pw")
            _ = try keystore.unlock(password: SecureBytes(copying: Array("pw".utf8)))
            try bus.startProvider(keychainHome: home.root)
            let session = try bus.openPlainSession()
            let item = try bus.createItem(Self.login, label: "x", attributes: ["t": "7"], secret: "s", session: session)
            #expect(try Self.search(bus, ["t": "7"]).unlocked == [item])
            try #require(try home.security(["lock-keychain", home.location("login").databasePath]).status == 0)
            let found = try Self.search(bus, ["t": "7"])
            #expect(found.unlocked.isEmpty)
            #expect(found.locked == [item])
            #expect(try Self.locked(bus, Self.login))
        }
    }

    @Test("A wrong password is asked again with pinentry's error text, up to 3 tries; then the prompt is dismissed")
    func wrongPasswordUnlock() throws {
        try Self.with { bus, home in
            try home.createKeychain("login", password: "pw")
            let log = home.root + "/pinentry.log"
            try bus.startProvider(
                keychainHome: home.root,
                extraEnvironment: ["KEYCHAIN_PINENTRY": try home.scriptedPinentry(password: "wrong", log: log)])
            let completed = try Self.unlockThroughPrompt(bus)
            #expect(completed?.dismissed == true)
            #expect(completed?.paths == [])
            #expect(try Self.locked(bus, Self.login))
            let asked = try String(contentsOfFile: log, encoding: .utf8)
            #expect(asked == "GETPIN\nSETERROR\nGETPIN\nSETERROR\nGETPIN\n")
        }
    }

    @Test("A cancelled pinentry dismisses the unlock prompt (Completed(true)) and leaves the keychain locked")
    func cancelledUnlock() throws {
        try Self.with { bus, home in
            try home.createKeychain("login", password: "pw")
            try bus.startProvider(
                keychainHome: home.root,
                extraEnvironment: ["KEYCHAIN_PINENTRY": try home.scriptedPinentry(password: nil)])
            let completed = try Self.unlockThroughPrompt(bus)
            #expect(completed?.dismissed == true)
            #expect(try Self.locked(bus, Self.login))
        }
    }

    @Test("While pinentry is asking, the provider keeps serving, and an unlock by `security` completes the prompt")
    func unlockByOtherMeansCompletesThePrompt() throws {
        try Self.with { bus, home in
            let keystore = try home.createKeychain("login", password: "pw")
            // This pinentry answers only after the hang guard below has given up: only the unlock below can
            // complete the prompt before that.
            try bus.startProvider(
                keychainHome: home.root,
                extraEnvironment: ["KEYCHAIN_PINENTRY": try home.scriptedPinentry(password: nil, delay: 60)])
            let completed = try Self.unlockThroughPrompt(bus) {
                // Served while the pinentry is still open.
                #expect(try Self.locked(bus, Self.login))
                _ = try keystore.unlock(password: SecureBytes(copying: Array("pw".utf8)))
            }
            #expect(completed?.dismissed == false)
            #expect(completed?.paths == [Self.login])
            try keystore.lock()
        }
    }
}
