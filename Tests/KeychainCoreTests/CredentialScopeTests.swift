import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// The engine rules the credential helpers share (tracker issue 14).
@Suite("CredentialScope and the one-transaction credential operations")
struct CredentialScopeTests {
    func scope(
        _ server: String, port: CredentialScope.PortRule = .exactly(0), account: String? = nil,
        ownership: CredentialScope.Ownership = .labelled("Docker Credentials")
    ) -> CredentialScope {
        CredentialScope(
            protocolCode: "htps", server: server, port: port, path: nil, account: account.map { .string($0) },
            ownership: ownership)
    }

    func item(_ server: String, account: String = "u", label: String, port: Int64 = 0) -> [String: AttributeValue] {
        [
            "srvr": .string(server), "acct": .string(account), "labl": .string(label), "ptcl": .string("htps"),
            "port": .integer(port), "agrp": .string("g"),
        ]
    }

    @Test(
        "server names are canonical in ASCII lower case; IPv6 brackets and non-ASCII bytes are kept",
        arguments: [
            ("Case.Example.TEST", "case.example.test"), ("[FE80::1]", "[fe80::1]"),
            ("Bücher.Example", "bücher.example"),
        ])
    func canonicalServer(_ input: String, _ canonical: String) {
        #expect(CredentialScope.canonicalServer(input) == canonical)
        #expect(CredentialScope.serversEqual(input, canonical))
    }

    @Test("contains: the server in any case, owned items only; the port rule is in the query")
    func contains() {
        let docker = scope("reg.example")
        #expect(docker.contains(item("REG.example", label: "Docker Credentials")))
        #expect(!docker.contains(item("reg.example", label: "Git: https://reg.example")))
        #expect(!docker.contains(item("other.example", label: "Docker Credentials")))
        let git = scope("reg.example", ownership: .notLabelled(["Docker Credentials"]))
        #expect(git.contains(item("reg.example", label: "Git: https://reg.example")))
        #expect(git.contains(["srvr": .string("reg.example")]))
        #expect(!git.contains(item("reg.example", label: "Docker Credentials")))
        #expect(scope("h", port: .exactly(0)).query(groups: .all).filters["port"] == .integer(0))
        #expect(scope("h", port: .any).query(groups: .all).filters["port"] == nil)
    }

    @Test("replaceCredential refuses another program's item with the same primary key and changes nothing")
    func replaceRefusesForeignItem() throws {
        let keychain = try TemporaryKeychain()
        let store = try keychain.open()
        _ = try store.add(
            .internetPassword, attributes: item("h.example", label: "Git: https://h.example"), secret: secret("git"))
        var attributes = item("h.example", label: "Docker Credentials")
        attributes.removeValue(forKey: "agrp")
        #expect(throws: KeychainFailure.self) {
            _ = try store.replaceCredential(
                in: scope("h.example"), attributes: attributes, secret: secret("docker"), group: "g",
                searchGroups: .groups(["g"]))
        }
        let all = try store.search(
            ItemQuery(itemClass: .internetPassword, scope: .all), projection: [.attributes, .secret])
        #expect(all.count == 1)
        #expect(all.first?.secret?.constantTimeEquals(Array("git".utf8)) == true)
    }

    @Test("replaceCredential replaces the owned items of exactly the scope and keeps other ports")
    func replaceKeepsOtherKeys() throws {
        let keychain = try TemporaryKeychain()
        let store = try keychain.open()
        _ = try store.add(
            .internetPassword, attributes: item("H.Example", account: "old", label: "Docker Credentials"),
            secret: secret("1"))
        _ = try store.add(
            .internetPassword, attributes: item("h.example", account: "p", label: "Docker Credentials", port: 5000),
            secret: secret("2"))
        var attributes = item("h.example", account: "new", label: "Docker Credentials")
        attributes.removeValue(forKey: "agrp")
        #expect(
            try store.replaceCredential(
                in: scope("h.example"), attributes: attributes, secret: secret("3"), group: "g",
                searchGroups: .groups(["g"])) == .inserted)
        let accounts = try store.search(ItemQuery(itemClass: .internetPassword, scope: .all), projection: [.attributes])
            .map { String(decoding: $0.attributes["acct"]?.matchBytes ?? [], as: UTF8.self) }.sorted()
        #expect(accounts == ["new", "p"])
    }
}
