import Testing

@testable import SecretService

/// ``SecretServiceProvider/pathElements(_:)``: the object paths the provider resolves, split by their
/// bytes (tracker issue 29), into the shapes it used to get by splitting on every `/`.
@Suite("Object path elements")
struct ObjectPathElementsTests {
    static let root = "/org/freedesktop/secrets"

    @Test(
        "Paths under the service split into kind, first and second element",
        arguments: [
            ("/collection/login", SecretServiceProvider.PathKind.collection, "login", nil),
            ("/collection/login/12", .collection, "login", "12"),
            ("/aliases/default", .aliases, "default", nil),
            ("/aliases/default/3", .aliases, "default", "3"),
            ("/session/7", .session, "7", nil),
            ("/session/7/x", .session, "7", "x"),
            ("/prompt/p1", .prompt, "p1", nil),
            ("/collection/", .collection, "", nil),
            ("/collection//", .collection, "", ""),
            ("/collection/login/", .collection, "login", ""),
        ] as [(String, SecretServiceProvider.PathKind, String, String?)])
    func shapes(_ tail: String, _ kind: SecretServiceProvider.PathKind, _ first: String, _ second: String?) throws {
        let parts = try #require(SecretServiceProvider.pathElements(Self.root + tail))
        #expect(parts.kind == kind)
        #expect(parts.first == first)
        #expect(parts.second == second)
    }

    @Test(
        "Other paths name nothing",
        arguments: [
            "/org/freedesktop/secrets", "/org/freedesktop/secrets/", "/org/freedesktop/secretsx/collection/a",
            "/org/freedesktop/secrets/collection", "/org/freedesktop/secrets/collection/a/b/c",
            "/org/freedesktop/secrets/items/a", "/org/freedesktop/secrets//a", "/org/freedesktop", "",
            "/org/freedesktop/secrets/Collection/a", "/org/freedesktop/secrets/collectionx/a",
        ])
    func others(_ path: String) {
        #expect(SecretServiceProvider.pathElements(path) == nil)
    }

    @Test(
        "An item id is a number only in its canonical decimal form, as KeychainSecretStore.id(_:) writes it",
        arguments: [
            ("1", 1), ("42", 42), ("9223372036854775807", Int64.max),
            ("0", nil), ("007", nil), ("9223372036854775808", nil), ("99999999999999999999", nil),
            ("12a", nil), ("a12", nil), ("_1", nil),
        ] as [(String, Int64?)])
    func itemNumbers(_ text: String, _ number: Int64?) throws {
        let id = try #require(ItemID(text))
        #expect(KeychainSecretStore.number(id) == number)
        if let number { #expect(KeychainSecretStore.id(number) == id) }
    }
}
