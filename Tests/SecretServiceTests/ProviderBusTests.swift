import CGIO
import Foundation
import KeychainCore
import KeychainDBus
import Testing

@testable import SecretService

/// `keychain-secret-service` on a private bus, driven through GDBus as clients drive it, with the
/// values and error names of the Secret Service API.
@Suite("keychain-secret-service on a private bus")
struct ProviderBusTests: SecretServiceSuite {

    @Test("Introspect lists the spec's interfaces and the child nodes")
    func introspection() throws {
        try PrivateBus.with { bus in
            let root = try bus.introspect(Self.service)
            #expect(root.contains("<interface name=\"org.freedesktop.Secret.Service\">"))
            #expect(root.contains("<node name=\"collection\"/>"))
            #expect(root.contains("<node name=\"aliases\"/>"))
            #expect(try bus.introspect("/org/freedesktop/secrets/collection").contains("<node name=\"session\"/>"))
            let session = try bus.openPlainSession()
            let item = try bus.createItem(Self.sessionAlias, label: "x", attributes: [:], secret: "s", session: session)
            let collection = try bus.introspect(Self.sessionCollection)
            #expect(collection.contains("<interface name=\"org.freedesktop.Secret.Collection\">"))
            #expect(collection.contains("<node name=\"\(item.split(separator: "/").last!)\"/>"))
            #expect(try bus.introspect(item).contains("<interface name=\"org.freedesktop.Secret.Item\">"))
        }
    }

    @Test("A plain session stores through the session alias, finds by attribute subset and reads the secret back")
    func plainRoundTrip() throws {
        try PrivateBus.with { bus in
            let session = try bus.openPlainSession()
            #expect(session.hasPrefix("/org/freedesktop/secrets/session/"))
            let item = try bus.createItem(
                Self.sessionAlias, label: "Test", attributes: ["service": "example.com", "user": "alice"],
                secret: "hunter2", session: session)
            #expect(item.hasPrefix(Self.sessionCollection + "/"))
            let search = try bus.expectReply(
                Self.service, Self.serviceInterface, "SearchItems", [Variant.stringMap(["service": "example.com"])])
            #expect(Variant.withChild(search, 0, Variant.readStrings) == [item])
            #expect(Variant.withChild(search, 1, Variant.readStrings) == [])
            g_variant_unref(search)
            let secret = try bus.expectReply(item, Self.itemInterface, "GetSecret", [Variant.objectPath(session)])
            Variant.withChild(secret, 0) { tuple in
                #expect(Variant.withChild(tuple, 0, Variant.readString) == session)
                #expect(Variant.withChild(tuple, 2) { Variant.withBytes($0) { Array($0) } } == Array("hunter2".utf8))
                #expect(Variant.withChild(tuple, 3, Variant.readString) == "text/plain")
            }
            g_variant_unref(secret)
            let label = try bus.property(item, Self.itemInterface, "Label")
            #expect(Variant.readString(label) == "Test")
            g_variant_unref(label)
            let alias = try bus.expectReply(
                Self.service, Self.serviceInterface, "ReadAlias", [Variant.string("session")])
            #expect(Variant.withChild(alias, 0, Variant.readString) == Self.sessionCollection)
            g_variant_unref(alias)
            let none = try bus.expectReply(
                Self.service, Self.serviceInterface, "ReadAlias", [Variant.string("default")])
            #expect(Variant.withChild(none, 0, Variant.readString) == "/")
            g_variant_unref(none)
            // replace = true with the same attribute set keeps the path and replaces the secret.
            let again = try bus.createItem(
                Self.sessionAlias, label: "Test 2", attributes: ["service": "example.com", "user": "alice"],
                secret: "new", session: session, replace: true)
            #expect(again == item)
            let items = try bus.property(Self.sessionCollection, Self.collectionInterface, "Items")
            #expect(Variant.readStrings(items) == [item])
            g_variant_unref(items)
        }
    }

    @Test("A dh-ietf1024-sha256-aes128-cbc-pkcs7 session carries secrets encrypted both ways")
    func dhSession() throws {
        try PrivateBus.with { bus in
            let client = try DHIETF1024KeyAgreement()
            let reply = try bus.expectReply(
                Self.service, Self.serviceInterface, "OpenSession",
                [Variant.string(TransportSession.dhName), Variant.boxed(Variant.bytes(client.publicKey))])
            let servicePublicKey = Variant.withChild(reply, 0) { boxed in
                Variant.withChild(boxed, 0) { Variant.withBytes($0) { Array($0) } }
            }
            let session = Variant.withChild(reply, 1, Variant.readString)
            g_variant_unref(reply)
            #expect(servicePublicKey.count == 128)
            let key = try servicePublicKey.withUnsafeBytes { try client.sessionKey(peerPublicKey: $0) }
            let iv = AES128CBC.randomIV()
            let ciphertext = try Array("pa$$word".utf8).withUnsafeBytes { try AES128CBC.encrypt($0, key: key, iv: iv) }
            let properties = Variant.variantMap([("org.freedesktop.Secret.Item.Label", Variant.string("dh"))])
            let secret = Variant.tuple([
                Variant.objectPath(session), Variant.bytes(iv), Variant.bytes(ciphertext), Variant.string("text/plain"),
            ])
            let created = try bus.expectReply(
                Self.sessionAlias, Self.collectionInterface, "CreateItem", [properties, secret, Variant.boolean(false)])
            let item = Variant.withChild(created, 0, Variant.readString)
            g_variant_unref(created)
            let got = try bus.expectReply(item, Self.itemInterface, "GetSecret", [Variant.objectPath(session)])
            let (parameters, value) = Variant.withChild(got, 0) { tuple in
                (
                    Variant.withChild(tuple, 1) { Variant.withBytes($0) { Array($0) } },
                    Variant.withChild(tuple, 2) { Variant.withBytes($0) { Array($0) } }
                )
            }
            g_variant_unref(got)
            #expect(parameters.count == 16)
            #expect(value != Array("pa$$word".utf8))
            let plain = try value.withUnsafeBytes { v in
                try parameters.withUnsafeBytes { try AES128CBC.decrypt(v, key: key, iv: $0) }
            }
            #expect(plain.withUnsafeBytes { Array($0) } == Array("pa$$word".utf8))
        }
    }

    @Test("Bad input gets D-Bus errors and the provider keeps serving")
    func badInput() throws {
        try PrivateBus.with { bus in
            #expect(
                bus.errorName(
                    Self.service, Self.serviceInterface, "OpenSession",
                    [Variant.string("rot13"), Variant.boxed(Variant.string(""))])
                    == "org.freedesktop.DBus.Error.NotSupported")
            for key: [UInt8] in [[0], [1], [UInt8](repeating: 0xff, count: 128), [UInt8](repeating: 0xff, count: 4096)]
            {
                #expect(
                    bus.errorName(
                        Self.service, Self.serviceInterface, "OpenSession",
                        [Variant.string(TransportSession.dhName), Variant.boxed(Variant.bytes(key))])
                        == "org.freedesktop.DBus.Error.InvalidArgs")
            }
            #expect(
                bus.errorName(
                    Self.service, Self.serviceInterface, "OpenSession",
                    [Variant.string(TransportSession.dhName), Variant.boxed(Variant.string("key"))])
                    == "org.freedesktop.DBus.Error.InvalidArgs")
            // A wrong argument signature is refused by GDBus from the introspection data.
            #expect(
                bus.errorName(Self.service, Self.serviceInterface, "SearchItems", [Variant.string("x")])
                    == "org.freedesktop.DBus.Error.InvalidArgs")
            #expect(
                bus.errorName(Self.service, Self.serviceInterface, "SearchItems", nil)
                    == "org.freedesktop.DBus.Error.InvalidArgs")
            #expect(
                bus.errorName(
                    "/org/freedesktop/secrets/collection/nothing/1", Self.itemInterface, "GetSecret",
                    [Variant.objectPath("/")]) != nil)
            let session = try bus.openPlainSession()
            let item = try bus.createItem(Self.sessionAlias, label: "x", attributes: [:], secret: "s", session: session)
            // Unknown objects inside the service's tree: the names clients map to "no such item".
            #expect(
                bus.errorName(
                    Self.sessionCollection + "/999", Self.itemInterface, "GetSecret", [Variant.objectPath(session)])
                    == "org.freedesktop.DBus.Error.UnknownMethod")
            #expect(
                bus.errorName(
                    Self.sessionCollection + "/999", "org.freedesktop.DBus.Properties", "Get",
                    [Variant.string(Self.itemInterface), Variant.string("Label")])
                    == "org.freedesktop.DBus.Error.UnknownMethod")
            #expect(
                bus.errorName(
                    "/org/freedesktop/secrets/aliases/nothing", "org.freedesktop.DBus.Properties", "GetAll",
                    [Variant.string(Self.collectionInterface)]) == "org.freedesktop.DBus.Error.UnknownMethod")
            #expect(
                !(try bus.introspect(Self.sessionCollection)).contains("<node name=\"999\"/>"))
            // Introspect lists an item's interface only on an item that exists (gnome-keyring's answer too).
            #expect(!(try bus.introspect(Self.sessionCollection + "/999")).contains(Self.itemInterface))
            #expect(try bus.introspect(item).contains(Self.itemInterface))
            #expect(
                !(try bus.introspect("/org/freedesktop/secrets/collection/nothing")).contains(Self.collectionInterface))
            #expect(
                bus.errorName(
                    item, Self.itemInterface, "GetSecret", [Variant.objectPath("/org/freedesktop/secrets/session/999")])
                    == "org.freedesktop.Secret.Error.NoSession")
            var huge: [String: String] = [:]
            for index in 0..<2_000 { huge["name\(index)"] = "value" }
            let properties = Variant.variantMap([("org.freedesktop.Secret.Item.Attributes", Variant.stringMap(huge))])
            let secret = Variant.tuple([
                Variant.objectPath(session), Variant.bytes([]), Variant.bytes([1]), Variant.string(""),
            ])
            #expect(
                bus.errorName(
                    Self.sessionAlias, Self.collectionInterface, "CreateItem",
                    [properties, secret, Variant.boolean(false)])
                    == "org.freedesktop.DBus.Error.InvalidArgs")
            #expect(
                bus.errorName(Self.service, Self.serviceInterface, "SearchItems", [Variant.stringMap(huge)])
                    == "org.freedesktop.DBus.Error.InvalidArgs")
            let badLabel = Variant.variantMap([("org.freedesktop.Secret.Item.Label", Variant.uint32(7))])
            let secret2 = Variant.tuple([
                Variant.objectPath(session), Variant.bytes([]), Variant.bytes([1]), Variant.string(""),
            ])
            #expect(
                bus.errorName(
                    Self.sessionAlias, Self.collectionInterface, "CreateItem",
                    [badLabel, secret2, Variant.boolean(false)])
                    == "org.freedesktop.DBus.Error.InvalidArgs")
            // Still serving, and the item is intact.
            #expect(bus.errorName(item, Self.itemInterface, "GetSecret", [Variant.objectPath(session)]) == nil)
            #expect(bus.provider?.isRunning == true)
        }
    }

    @Test(
        "Lock needs no prompt; locked items are listed as locked, keep their metadata, and answer IsLocked; Unlock prompts"
    )
    func locking() throws {
        try PrivateBus.with { bus in
            let session = try bus.openPlainSession()
            let item = try bus.createItem(
                Self.sessionAlias, label: "L", attributes: ["k": "v"], secret: "s", session: session)
            let lock = try bus.expectReply(
                Self.service, Self.serviceInterface, "Lock", [Variant.objectPaths([Self.sessionAlias])])
            #expect(Variant.withChild(lock, 0, Variant.readStrings) == [Self.sessionAlias])
            #expect(Variant.withChild(lock, 1, Variant.readString) == "/")
            g_variant_unref(lock)
            #expect(
                bus.errorName(item, Self.itemInterface, "GetSecret", [Variant.objectPath(session)])
                    == "org.freedesktop.Secret.Error.IsLocked")
            #expect(bus.errorName(item, Self.itemInterface, "Delete") == "org.freedesktop.Secret.Error.IsLocked")
            let search = try bus.expectReply(
                Self.service, Self.serviceInterface, "SearchItems", [Variant.stringMap(["k": "v"])])
            #expect(Variant.withChild(search, 0, Variant.readStrings) == [])
            #expect(Variant.withChild(search, 1, Variant.readStrings) == [item])
            g_variant_unref(search)
            let secrets = try bus.expectReply(
                Self.service, Self.serviceInterface, "GetSecrets",
                [Variant.objectPaths([item]), Variant.objectPath(session)])
            #expect(Variant.withChild(secrets, 0, Variant.childCount) == 0)
            g_variant_unref(secrets)
            let attributes = try bus.property(item, Self.itemInterface, "Attributes")
            #expect(Variant.readStringMap(attributes) == ["k": "v"])
            g_variant_unref(attributes)
            let locked = try bus.property(item, Self.itemInterface, "Locked")
            #expect(Variant.readBoolean(locked))
            g_variant_unref(locked)
            let unlock = try bus.expectReply(
                Self.service, Self.serviceInterface, "Unlock", [Variant.objectPaths([item])])
            #expect(Variant.withChild(unlock, 0, Variant.readStrings) == [])
            let prompt = Variant.withChild(unlock, 1, Variant.readString)
            g_variant_unref(unlock)
            #expect(prompt.hasPrefix("/org/freedesktop/secrets/prompt/"))
            g_variant_unref(
                try bus.expectReply(prompt, "org.freedesktop.Secret.Prompt", "Prompt", [Variant.string("")]))
            #expect(bus.errorName(item, Self.itemInterface, "GetSecret", [Variant.objectPath(session)]) == nil)
            let again = try bus.expectReply(
                Self.service, Self.serviceInterface, "Unlock", [Variant.objectPaths([item])])
            #expect(Variant.withChild(again, 0, Variant.readStrings) == [item])
            #expect(Variant.withChild(again, 1, Variant.readString) == "/")
            g_variant_unref(again)
        }
    }

    @Test(
        "CreateItem and Delete emit ItemCreated/ItemDeleted, then PropertiesChanged with the collection's new Items value, never Items invalidated"
    )
    func signals() throws {
        try PrivateBus.with { bus in
            try bus.recordingSignals { recorder in
                let session = try bus.openPlainSession()
                let item = try bus.createItem(
                    Self.sessionAlias, label: "x", attributes: [:], secret: "s", session: session)
                g_variant_unref(try bus.expectReply(item, Self.itemInterface, "Delete"))
                // The signals were sent before the replies; the wait is a hang guard only.
                _ = bus.awaitSignal(recorder) { $0.member == "ItemDeleted" && $0.object == item }
                _ = bus.awaitSignal(recorder) { $0.changed["Items"] == "[]" }
                let seen = recorder.signals.filter { $0.path == Self.sessionCollection }
                // gnome-keyring's order: the signal, then the property with its value. libsecret's proxies
                // read the cached Items on each ItemCreated/ItemDeleted without checking it: an Items
                // announced as invalidated (dropped from that cache) crashes them at the next change.
                #expect(seen.allSatisfy { !$0.invalidated.contains("Items") })
                let created = seen.firstIndex { $0.member == "ItemCreated" && $0.object == item }
                let grown = seen.firstIndex { $0.changed["Items"]?.contains("'\(item)'") == true }
                let deleted = seen.firstIndex { $0.member == "ItemDeleted" && $0.object == item }
                let shrunk = seen.firstIndex { $0.changed["Items"] == "[]" }
                #expect(created != nil && grown != nil && deleted != nil && shrunk != nil, "\(seen)")
                if let created, let grown, let deleted, let shrunk {
                    #expect(created < grown && grown < deleted && deleted < shrunk, "\(seen)")
                }
                #expect(seen.first { $0.member == "PropertiesChanged" }?.interface == Self.collectionInterface)
            }
        }
    }

    @Test(
        "Lock emits ItemChanged for each item, CollectionChanged, and Locked = true in PropertiesChanged for the collection and its items"
    )
    func lockSignals() throws {
        try PrivateBus.with { bus in
            let session = try bus.openPlainSession()
            let item = try bus.createItem(Self.sessionAlias, label: "x", attributes: [:], secret: "s", session: session)
            try bus.recordingSignals { recorder in
                g_variant_unref(
                    try bus.expectReply(
                        Self.service, Self.serviceInterface, "Lock", [Variant.objectPaths([Self.sessionAlias])]))
                // The signals were sent before the reply; the waits are hang guards only.
                let changed = bus.awaitSignal(recorder) { $0.member == "CollectionChanged" }
                #expect(changed?.path == Self.service)
                #expect(changed?.object == Self.sessionCollection)
                // As gnome-keyring: ItemChanged for each item before the collection's CollectionChanged.
                let itemChanged = recorder.signals.firstIndex { $0.member == "ItemChanged" && $0.object == item }
                let collectionChanged = recorder.signals.firstIndex { $0.member == "CollectionChanged" }
                #expect(
                    itemChanged.flatMap { first in collectionChanged.map { first < $0 } } == true, "\(recorder.signals)"
                )
                // The spec's Locked property, now true, on both objects; other properties may come along.
                let collection = bus.awaitSignal(recorder) {
                    $0.member == "PropertiesChanged" && $0.path == Self.sessionCollection && $0.changed["Locked"] != nil
                }
                #expect(collection?.interface == Self.collectionInterface)
                #expect(collection?.changed["Locked"] == "true")
                let itemChange = bus.awaitSignal(recorder) {
                    $0.member == "PropertiesChanged" && $0.path == item && $0.changed["Locked"] != nil
                }
                #expect(itemChange?.interface == Self.itemInterface)
                #expect(itemChange?.changed["Locked"] == "true")
            }
        }
    }

    @Test("A connection past the session limit loses its least recently used session, never the new one")
    func sessionLimitClosesLeastRecentlyUsed() throws {
        try PrivateBus.with { bus in
            let kept = try bus.openPlainSession()
            let item = try bus.createItem(Self.sessionAlias, label: "x", attributes: [:], secret: "s", session: kept)
            var opened: [String] = []
            // python secretstorage opens a session per secret read this way and never closes them.
            for _ in 0..<(SecretServiceProvider.Limits.sessionsPerConnection + 10) {
                opened.append(try bus.openPlainSession())
                #expect(bus.errorName(item, Self.itemInterface, "GetSecret", [Variant.objectPath(kept)]) == nil)
            }
            #expect(
                bus.errorName(item, Self.itemInterface, "GetSecret", [Variant.objectPath(opened[0])])
                    == "org.freedesktop.Secret.Error.NoSession")
            for session in [kept, opened[opened.count - 1]] {
                #expect(bus.errorName(item, Self.itemInterface, "GetSecret", [Variant.objectPath(session)]) == nil)
            }
        }
    }

    @Test("A session ends when its connection leaves the bus")
    func sessionEndsWithConnection() throws {
        try PrivateBus.with { bus in
            var error: UnsafeMutablePointer<GError>?
            let other = try #require(
                g_dbus_connection_new_for_address_sync(
                    bus.address,
                    GDBusConnectionFlags(
                        rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                            | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue), nil, nil, &error))
            let session = try bus.openPlainSession(on: other)
            let node = "<node name=\"\(session.split(separator: "/").last!)\"/>"
            #expect(try bus.introspect("/org/freedesktop/secrets/session").contains(node))
            // Another connection may not use it.
            let item = try bus.createItem(
                Self.sessionAlias, label: "x", attributes: [:], secret: "s", session: try bus.openPlainSession())
            #expect(
                bus.errorName(item, Self.itemInterface, "GetSecret", [Variant.objectPath(session)])
                    == "org.freedesktop.Secret.Error.NoSession")
            g_dbus_connection_close_sync(other, nil, nil)
            g_object_unref(UnsafeMutableRawPointer(other))
            var gone = false
            for _ in 0..<500 {
                if try !bus.introspect("/org/freedesktop/secrets/session").contains(node) { gone = true; break }
                usleep(10_000)
            }
            #expect(gone)
        }
    }

    @Test("The hint for a taken name fits its owner: this provider, gnome-keyring, or another program")
    func ownerHints() {
        #expect(
            SecretServiceDaemon.ownerHint(program: "keychain-secret-service", pid: 7, replace: false)
                == "keychain-secret-service is already running, pid 7; use --replace to take over from it")
        // /proc/<pid>/comm's 15 bytes, when nothing else is readable.
        #expect(SecretServiceClient.isOwnProvider("keychain-secret"))
        #expect(!SecretServiceClient.isOwnProvider("keychain"))
        #expect(!SecretServiceClient.isOwnProvider(""))
        #expect(
            SecretServiceDaemon.ownerHint(program: "gnome-keyring-daemon", pid: 7, replace: false)
                == "stop it (systemctl --user stop gnome-keyring-daemon.service gnome-keyring-daemon.socket)")
        #expect(
            SecretServiceDaemon.ownerHint(program: "keepassxc", pid: 7, replace: false)
                == "stop it or run keychain-secret-service --replace")
        #expect(
            SecretServiceDaemon.ownerHint(program: "keepassxc", pid: nil, replace: true)
                == "it does not allow replacement; stop it first")
    }

    @Test("A second provider names the owner and exits 2; --replace takes the name over")
    func nameOwnership() throws {
        try PrivateBus.with { bus in
            let first = try #require(bus.provider)
            let stderr = Pipe()
            let second = try PrivateBus.launchProvider(address: bus.address, arguments: [], stderr: stderr)
            second.waitUntilExit()
            let message = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(second.terminationStatus == 2)
            #expect(message.contains("org.freedesktop.secrets is owned by keychain-secret"))
            #expect(message.contains("--replace"))
            // The owner is this provider: named whole (not /proc's 15-byte comm), with our own hint.
            #expect(SecretServiceClient.programName(pid: UInt32(first.processIdentifier)) == "keychain-secret-service")
            #expect(
                message.contains(
                    "owned by keychain-secret-service (pid \(first.processIdentifier)), ")
                    && message.contains(
                        "; keychain-secret-service is already running, pid \(first.processIdentifier); use --replace")
            )
            #expect(!message.contains("gnome-keyring"))
            let third = try PrivateBus.launchProvider(
                address: bus.address, arguments: ["--replace", "--idle-exit", "0"])
            defer {
                third.terminate()
                third.waitUntilExit()
            }
            first.waitUntilExit()
            #expect(first.terminationStatus == 0)
            try bus.waitForOwner()
            #expect(third.isRunning)
        }
    }

    @Test("--bus-name serves the API under another well-known name; a unique or malformed name is refused")
    func otherBusName() throws {
        try PrivateBus.with { bus in
            let other = try PrivateBus.launchProvider(
                address: bus.address, arguments: ["--bus-name", "org.freedesktop.secrets.test", "--idle-exit", "0"])
            defer {
                other.terminate()
                other.waitUntilExit()
            }
            try bus.waitForOwner(of: "org.freedesktop.secrets.test")
            let reply = try bus.call(
                "/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "ReadAlias", [Variant.string("session")],
                destination: "org.freedesktop.secrets.test"
            ).get()
            defer { g_variant_unref(reply) }
            #expect(
                Variant.withChild(reply, 0) { String(cString: g_variant_get_string($0, nil)) }
                    == "/org/freedesktop/secrets/collection/session")
            #expect(try #require(bus.provider).isRunning)  // the provider of org.freedesktop.secrets is untouched
            for name in [":1.5", "not a name", ""] {
                let stderr = Pipe()
                let refused = try PrivateBus.launchProvider(
                    address: bus.address, arguments: ["--bus-name", name], stderr: stderr)
                refused.waitUntilExit()
                #expect(refused.terminationStatus == 1)
                #expect(
                    String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                        .contains("--bus-name needs a well-known bus name"))
            }
        }
    }
}

/// Items reached under an alias path (issue 23, item 5; keepassxc#6314 reported the same fault there).
@Suite("Items under an alias path")
struct AliasItemPathTests: SecretServiceSuite {
    @Test(
        "Regression: an item under /aliases/default/<id> answers GetSecret, SetSecret, properties and Delete as under its collection path"
    )
    func itemMethodsUnderAlias() throws {
        try PrivateBus.with { bus in
            let session = try bus.openPlainSession()
            let item = try bus.createItem(
                Self.sessionAlias, label: "x", attributes: ["a": "1"], secret: "s", session: session)
            let aliased = Self.sessionAlias + "/" + String(item.split(separator: "/").last!)
            let secret = try bus.expectReply(aliased, Self.itemInterface, "GetSecret", [Variant.objectPath(session)])
            #expect(
                Variant.withChild(secret, 0) { Variant.withChild($0, 2) { Variant.withBytes($0) { Array($0) } } }
                    == Array("s".utf8))
            g_variant_unref(secret)
            g_variant_unref(
                try bus.expectReply(
                    aliased, Self.itemInterface, "SetSecret", [PrivateBus.secretValue(session, Array("t".utf8))]))
            let again = try bus.expectReply(item, Self.itemInterface, "GetSecret", [Variant.objectPath(session)])
            #expect(
                Variant.withChild(again, 0) { Variant.withChild($0, 2) { Variant.withBytes($0) { Array($0) } } }
                    == Array("t".utf8))
            g_variant_unref(again)
            let label = try bus.property(aliased, Self.itemInterface, "Label")
            #expect(Variant.readString(label) == "x")
            g_variant_unref(label)
            #expect(try bus.introspect(aliased).contains(Self.itemInterface))
            g_variant_unref(try bus.expectReply(aliased, Self.itemInterface, "Delete"))
            #expect(bus.errorName(item, Self.itemInterface, "GetSecret", [Variant.objectPath(session)]) != nil)
        }
    }
}
