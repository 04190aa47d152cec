import CGIO
import Foundation
import KeychainDBus
import KeychainTesting
import Testing

@testable import SecretService

/// Thousands of well-typed calls with arbitrary contents (paths, names, keys, secrets, maps), in a
/// reproducible order: each gets a reply or a D-Bus error, and the provider keeps serving.
@Suite("keychain-secret-service under arbitrary calls")
struct ProviderRandomCallTests {
    static let strings = [
        "", "plain", TransportSession.dhName, "session", "default", "login", "x", "é🔑",
        String(repeating: "a", count: 70_000), "org.freedesktop.Secret.Item.Label",
        "org.freedesktop.Secret.Item.Attributes",
    ]

    @Test("2,000 arbitrary calls get replies or D-Bus errors, never a crash")
    func arbitraryCalls() throws {
        try PrivateBus.with { bus in
            var random = SplitMix64(seed: 17)
            let session = try bus.openPlainSession()
            var paths = [
                "/", "/org/freedesktop/secrets", "/org/freedesktop/secrets/collection/session",
                "/org/freedesktop/secrets/aliases/session", "/org/freedesktop/secrets/aliases/default",
                "/org/freedesktop/secrets/collection/nothing", "/org/freedesktop/secrets/collection/session/1",
                "/org/freedesktop/secrets/session/999", "/org/freedesktop/secrets/prompt/1", "/a/b", session,
            ]
            func path() -> String { random.pick(paths) }
            func string() -> String { random.pick(Self.strings) }
            func variant() -> OpaquePointer {
                switch random.below(5) {
                case 0: Variant.string(string())
                case 1: Variant.bytes(random.bytes(300))
                case 2: Variant.uint32(UInt32(truncatingIfNeeded: random.next()))
                case 3: Variant.stringMap([string(): string()])
                default: Variant.objectPaths([path()])
                }
            }
            func stringMap() -> OpaquePointer {
                var map: [String: String] = [:]
                for _ in 0..<random.below(4) { map[string()] = string() }
                return Variant.stringMap(map)
            }
            func properties() -> OpaquePointer {
                Variant.variantMap(
                    (0..<random.below(3)).map { _ in
                        (
                            random.pick(
                                Self.strings + [
                                    "org.freedesktop.Secret.Collection.Label"
                                ]), variant()
                        )
                    })
            }
            func secret() -> OpaquePointer {
                Variant.tuple([
                    Variant.objectPath(random.below(2) == 0 ? session : path()), Variant.bytes(random.bytes(32)),
                    Variant.bytes(random.bytes(64)), Variant.string(string()),
                ])
            }
            let service = "org.freedesktop.Secret.Service", collection = "org.freedesktop.Secret.Collection"
            let item = "org.freedesktop.Secret.Item"
            var replies = 0, errors = 0
            for _ in 0..<2_000 {
                let call: (String, String, String, [OpaquePointer])
                switch random.below(14) {
                case 0:
                    call = (
                        "/org/freedesktop/secrets", service, "OpenSession",
                        [Variant.string(string()), Variant.boxed(variant())]
                    )
                case 1:
                    call = (
                        "/org/freedesktop/secrets", service, "CreateCollection",
                        [properties(), Variant.string(random.pick(["", "x", "session"]))]
                    )
                case 2: call = ("/org/freedesktop/secrets", service, "SearchItems", [stringMap()])
                case 3:
                    call = (
                        "/org/freedesktop/secrets", service, random.pick(["Lock", "Unlock"]),
                        [Variant.objectPaths([path(), path()])]
                    )
                case 4:
                    call = (
                        "/org/freedesktop/secrets", service, "GetSecrets",
                        [Variant.objectPaths([path()]), Variant.objectPath(path())]
                    )
                case 5: call = ("/org/freedesktop/secrets", service, "ReadAlias", [Variant.string(string())])
                case 6:
                    call = (
                        "/org/freedesktop/secrets", service, "SetAlias",
                        [Variant.string(string()), Variant.objectPath(path())]
                    )
                case 7, 8:
                    call = (
                        path(), collection, "CreateItem",
                        [properties(), secret(), Variant.boolean(random.below(2) == 0)]
                    )
                case 9: call = (path(), collection, "SearchItems", [stringMap()])
                case 10: call = (path(), item, random.pick(["GetSecret"]), [Variant.objectPath(path())])
                case 11: call = (path(), item, "SetSecret", [secret()])
                case 12: call = (path(), random.pick([item, collection]), "Delete", [])
                default:
                    call = (
                        path(), random.pick(["org.freedesktop.Secret.Prompt", "org.freedesktop.Secret.Session"]),
                        random.pick(["Prompt", "Dismiss", "Close"]), random.below(2) == 0 ? [] : [Variant.string("")]
                    )
                }
                switch bus.call(call.0, call.1, call.2, call.3) {
                case .success(let reply):
                    replies += 1
                    // Learn new object paths from replies so that later calls reach them.
                    if Variant.isOfType(reply, "(oo)") || Variant.isOfType(reply, "(aoo)")
                        || Variant.isOfType(reply, "(vo)")
                    {
                        if Variant.isOfType(reply, "(oo)") {
                            paths.append(Variant.withChild(reply, 0, Variant.readString))
                        }
                        paths.append(Variant.withChild(reply, 1, Variant.readString))
                    }
                    g_variant_unref(reply)
                case .failure(let error):
                    errors += 1
                    #expect(error.name != "(local)", "\(call.2) on \(call.0): \(error)")
                }
            }
            #expect(replies > 100)
            #expect(errors > 100)
            #expect(bus.provider?.isRunning == true)
            _ = try bus.openPlainSession()
        }
    }
}
