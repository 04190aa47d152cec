import CGIO
import Foundation
import KeychainCore
import KeychainDBus
import Testing

@testable import SecretService

/// Issue 17's bad-input list, over the bus, beyond `ProviderBusTests.badInput`: wrong signatures on
/// every interface, DH keys at the range's edges, limits on labels, attributes and secrets, and a
/// client that leaves in the middle of a prompt. Each gets a D-Bus error (or is ignored), never a
/// crash, and the provider keeps serving with its items intact.
@Suite("keychain-secret-service bad input")
struct ProviderBadInputTests: SecretServiceSuite {
    @Test(
        "DH public keys 0, 1, p - 1, p, 2^1024 and keys longer than the group get InvalidArgs; 2 and p - 2 open sessions"
    )
    func dhKeyEdges() throws {
        try PrivateBus.with { bus in
            var pMinusOne = Self.prime
            pMinusOne[pMinusOne.count - 1] -= 1
            var pMinusTwo = Self.prime
            pMinusTwo[pMinusTwo.count - 1] -= 2
            // The prime is 2^1024 - 2^960 - 1 + …, ending in 64 one bits; 2^1024 is above it.
            let twoTo1024 = [0x01] + [UInt8](repeating: 0, count: 128)
            let zero128 = [UInt8](repeating: 0, count: 128)
            var one128 = zero128
            one128[127] = 1
            let rejected: [[UInt8]] = [
                [], zero128, one128, pMinusOne, Self.prime, twoTo1024, [0] + Self.prime, [0x01] + Self.prime,
                [UInt8](repeating: 0x7f, count: 257), [UInt8](repeating: 0x01, count: 1 << 16),
            ]
            for key in rejected {
                #expect(
                    bus.errorName(
                        Self.service, Self.serviceInterface, "OpenSession",
                        [Variant.string(TransportSession.dhName), Variant.boxed(Variant.bytes(key))])
                        == Self.invalidArgs,
                    "a \(key.count)-byte key")
            }
            var two = zero128
            two[127] = 2
            for key in [two, pMinusTwo] {
                #expect(
                    bus.errorName(
                        Self.service, Self.serviceInterface, "OpenSession",
                        [Variant.string(TransportSession.dhName), Variant.boxed(Variant.bytes(key))]) == nil)
            }
            // A secret that is not whole AES blocks, or has a short IV, on a DH session: InvalidArgs.
            var clientKey = zero128
            clientKey[127] = 3
            let reply = try bus.expectReply(
                Self.service, Self.serviceInterface, "OpenSession",
                [Variant.string(TransportSession.dhName), Variant.boxed(Variant.bytes(clientKey))])
            let session = Variant.withChild(reply, 1, Variant.readString)
            g_variant_unref(reply)
            for (parameters, value) in [
                ([UInt8](repeating: 0, count: 16), [UInt8](repeating: 1, count: 15)),
                ([UInt8](repeating: 0, count: 5), [UInt8](repeating: 1, count: 16)), ([], []),
            ] {
                #expect(
                    bus.errorName(
                        Self.sessionAlias, Self.collectionInterface, "CreateItem",
                        [
                            Variant.variantMap([("org.freedesktop.Secret.Item.Label", Variant.string("x"))]),
                            PrivateBus.secretValue(session, value, parameters: parameters), Variant.boolean(false),
                        ])
                        == Self.invalidArgs)
            }
            #expect(bus.provider?.isRunning == true)
        }
    }

    @Test("Wrong argument signatures get InvalidArgs on every interface, Properties included")
    func wrongSignatures() throws {
        try PrivateBus.with { bus in
            let session = try bus.openPlainSession()
            let item = try bus.createItem(
                Self.sessionAlias, label: "keep", attributes: ["k": "v"], secret: "s", session: session)
            let calls: [(String, String, String, [OpaquePointer]?)] = [
                (Self.service, Self.serviceInterface, "OpenSession", [Variant.string("plain")]),
                (Self.service, Self.serviceInterface, "Unlock", [Variant.strings([Self.sessionAlias])]),
                (Self.service, Self.serviceInterface, "Lock", [Variant.objectPath(Self.sessionAlias)]),
                (Self.service, Self.serviceInterface, "GetSecrets", [Variant.objectPaths([item])]),
                (
                    Self.service, Self.serviceInterface, "SetAlias",
                    [Variant.string("a"), Variant.string(Self.sessionAlias)]
                ),
                (
                    Self.service, Self.serviceInterface, "CreateCollection",
                    [Variant.stringMap([:]), Variant.string("")]
                ),
                (
                    Self.sessionAlias, Self.collectionInterface, "CreateItem",
                    [Variant.variantMap([]), Variant.boolean(true)]
                ),
                (Self.sessionAlias, Self.collectionInterface, "Delete", [Variant.boolean(true)]),
                (item, Self.itemInterface, "GetSecret", [Variant.string(session)]),
                (item, Self.itemInterface, "SetSecret", [Variant.bytes([1])]),
                (session, "org.freedesktop.Secret.Session", "Close", [Variant.string("")]),
                (item, "org.freedesktop.DBus.Properties", "Get", [Variant.string(Self.itemInterface)]),
                (
                    item, "org.freedesktop.DBus.Properties", "Set",
                    [Variant.string(Self.itemInterface), Variant.string("Label"), Variant.string("bare")]
                ),
            ]
            for (path, interface, method, arguments) in calls {
                let name = bus.errorName(path, interface, method, arguments)
                if interface == "org.freedesktop.DBus.Properties" {
                    // GDBus answers Properties itself; on subtree objects (GLib 2.74) a wrong signature
                    // there gets UnknownMethod rather than InvalidArgs. Either is a refusal.
                    #expect(
                        name == Self.invalidArgs || name == "org.freedesktop.DBus.Error.UnknownMethod",
                        "\(interface).\(method)")
                } else {
                    #expect(name == Self.invalidArgs, "\(interface).\(method)")
                }
            }
            // A property set with a value of the wrong type inside the variant.
            #expect(
                bus.errorName(
                    item, "org.freedesktop.DBus.Properties", "Set",
                    [Variant.string(Self.itemInterface), Variant.string("Label"), Variant.boxed(Variant.uint32(1))])
                    == Self.invalidArgs)
            #expect(
                bus.errorName(
                    item, "org.freedesktop.DBus.Properties", "Set",
                    [
                        Variant.string(Self.itemInterface), Variant.string("Attributes"),
                        Variant.boxed(Variant.strings(["k"])),
                    ])
                    == Self.invalidArgs)
            // An unknown method and an unknown interface on a real object.
            #expect(
                bus.errorName(Self.service, Self.serviceInterface, "Frobnicate", [])
                    == "org.freedesktop.DBus.Error.UnknownMethod")
            #expect(bus.errorName(item, "org.example.Nothing", "Delete", []) != nil)
            // Paths outside the tree and malformed ones inside arguments.
            #expect(
                bus.errorName("/org/freedesktop/secrets/collection/session/1/2", Self.itemInterface, "Delete") != nil)
            #expect(bus.errorName("/org/freedesktop", Self.serviceInterface, "ReadAlias", [Variant.string("x")]) != nil)
            let unlock = try bus.expectReply(
                Self.service, Self.serviceInterface, "Unlock",
                [Variant.objectPaths(["/", "/org/freedesktop/secrets/collection/none", "/x/y"])])
            #expect(Variant.withChild(unlock, 0, Variant.readStrings) == [])
            g_variant_unref(unlock)
            // The item is untouched.
            let label = try bus.property(item, Self.itemInterface, "Label")
            #expect(Variant.readString(label) == "keep")
            g_variant_unref(label)
            #expect(bus.provider?.isRunning == true)
        }
    }

    @Test(
        "A label over 64 KiB, attributes over 1 MiB and a secret over 4 MiB get InvalidArgs; at the limits they are stored"
    )
    func limits() throws {
        try PrivateBus.with { bus in
            let session = try bus.openPlainSession()
            typealias Limits = SecretServiceProvider.Limits
            func create(label: String, attributes: [String: String], secretBytes: Int) -> String? {
                let properties = Variant.variantMap([
                    ("org.freedesktop.Secret.Item.Label", Variant.string(label)),
                    ("org.freedesktop.Secret.Item.Attributes", Variant.stringMap(attributes)),
                ])
                return bus.errorName(
                    Self.sessionAlias, Self.collectionInterface, "CreateItem",
                    [
                        properties, PrivateBus.secretValue(session, [UInt8](repeating: 0x5a, count: secretBytes)),
                        Variant.boolean(false),
                    ])
            }
            let bigValue = String(repeating: "v", count: Limits.attributeBytes / 2)
            #expect(
                create(label: String(repeating: "l", count: Limits.labelBytes + 1), attributes: [:], secretBytes: 1)
                    == Self.invalidArgs)
            #expect(create(label: "", attributes: ["a": bigValue, "b": bigValue], secretBytes: 1) == Self.invalidArgs)
            #expect(create(label: "", attributes: [:], secretBytes: Limits.secretBytes + 1) == Self.invalidArgs)
            #expect(
                create(
                    label: String(repeating: "l", count: Limits.labelBytes),
                    attributes: ["a": String(repeating: "v", count: Limits.attributeBytes - 2)],
                    secretBytes: Limits.secretBytes) == nil)
            // SetSecret and the Label property have the same limits.
            let item = try bus.createItem(Self.sessionAlias, label: "x", attributes: [:], secret: "s", session: session)
            #expect(
                bus.errorName(
                    item, Self.itemInterface, "SetSecret",
                    [PrivateBus.secretValue(session, [UInt8](repeating: 1, count: Limits.secretBytes + 1))])
                    == Self.invalidArgs)
            #expect(
                bus.errorName(
                    item, "org.freedesktop.DBus.Properties", "Set",
                    [
                        Variant.string(Self.itemInterface), Variant.string("Label"),
                        Variant.boxed(Variant.string(String(repeating: "l", count: Limits.labelBytes + 1))),
                    ]) == Self.invalidArgs)
            var many: [String: String] = [:]
            for index in 0...Limits.attributeCount { many["n\(index)"] = "" }
            #expect(
                bus.errorName(
                    item, "org.freedesktop.DBus.Properties", "Set",
                    [
                        Variant.string(Self.itemInterface), Variant.string("Attributes"),
                        Variant.boxed(Variant.stringMap(many)),
                    ])
                    == Self.invalidArgs)
            let secret = try bus.expectReply(item, Self.itemInterface, "GetSecret", [Variant.objectPath(session)])
            #expect(
                Variant.withChild(secret, 0) { Variant.withChild($0, 2) { Variant.withBytes($0) { Array($0) } } }
                    == Array("s".utf8))
            g_variant_unref(secret)
            #expect(bus.provider?.isRunning == true)
        }
    }

    @Test("A client that leaves with a prompt pending, or right after calling Prompt, costs the provider nothing")
    func clientLeavesMidPrompt() throws {
        try PrivateBus.with { bus in
            let session = try bus.openPlainSession()
            let item = try bus.createItem(Self.sessionAlias, label: "x", attributes: [:], secret: "s", session: session)
            func connect() throws -> OpaquePointer {
                var error: UnsafeMutablePointer<GError>?
                let connection = g_dbus_connection_new_for_address_sync(
                    bus.address,
                    GDBusConnectionFlags(
                        rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                            | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue), nil, nil, &error)
                if let error { g_error_free(error) }
                return try #require(connection)
            }
            func pendingPrompt(on connection: OpaquePointer) throws -> String {
                g_variant_unref(
                    try bus.expectReply(
                        Self.service, Self.serviceInterface, "Lock", [Variant.objectPaths([Self.sessionAlias])]))
                let reply = try bus.expectReply(
                    Self.service, Self.serviceInterface, "Unlock", [Variant.objectPaths([item])], on: connection)
                defer { g_variant_unref(reply) }
                return Variant.withChild(reply, 1, Variant.readString)
            }
            // 1. Leaves without answering the prompt: the prompt goes with it.
            let first = try connect()
            let abandoned = try pendingPrompt(on: first)
            #expect(abandoned.hasPrefix("/org/freedesktop/secrets/prompt/"))
            g_dbus_connection_close_sync(first, nil, nil)
            g_object_unref(UnsafeMutableRawPointer(first))
            var gone = false
            for _ in 0..<500 {  // a hang guard, not a timing assertion
                if bus.errorName(abandoned, "org.freedesktop.Secret.Prompt", "Prompt", [Variant.string("")]) != nil,
                    try !bus.introspect("/org/freedesktop/secrets/prompt").contains(
                        "<node name=\"\(abandoned.split(separator: "/").last!)\"/>")
                {
                    gone = true
                    break
                }
                usleep(10_000)
            }
            #expect(gone)
            // 2. Calls Prompt and leaves before the reply and the Completed signal arrive.
            let second = try connect()
            let prompt = try pendingPrompt(on: second)
            g_dbus_connection_call(
                second, "org.freedesktop.secrets", prompt, "org.freedesktop.Secret.Prompt", "Prompt",
                Variant.tuple([Variant.string("")]), nil, G_DBUS_CALL_FLAGS_NONE, -1, nil, nil, nil)
            g_dbus_connection_flush_sync(second, nil, nil)
            g_dbus_connection_close_sync(second, nil, nil)
            g_object_unref(UnsafeMutableRawPointer(second))
            // 3. The provider still serves this client, whose own unlock works.
            let unlock = try bus.expectReply(
                Self.service, Self.serviceInterface, "Unlock", [Variant.objectPaths([item])])
            let own = Variant.withChild(unlock, 1, Variant.readString)
            g_variant_unref(unlock)
            if own != "/" {
                g_variant_unref(
                    try bus.expectReply(own, "org.freedesktop.Secret.Prompt", "Prompt", [Variant.string("")]))
            }
            #expect(bus.errorName(item, Self.itemInterface, "GetSecret", [Variant.objectPath(session)]) == nil)
            #expect(bus.provider?.isRunning == true)
        }
    }
}
