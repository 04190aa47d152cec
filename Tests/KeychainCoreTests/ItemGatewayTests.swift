import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// The policy rules every front end gets from ``ItemGateway``, each tested once, here.
/// Rule numbers are those of docs/APPLE-SEMANTICS.md.
@Suite("ItemGateway: the one place for access groups, upsert, conditional delete and item rules")
struct ItemGatewayTests {
    static let app = ApplicationIdentity(accessGroups: ["team.app", "team.shared"])
    static let none = ApplicationIdentity(accessGroups: [])

    func gateway(_ keychain: TemporaryKeychain, _ identity: ApplicationIdentity = app) throws -> ItemGateway {
        ItemGateway(keystore: try keychain.open(), identity: identity)
    }

    /// The status `body` fails with, `nil` when it succeeds (any other error fails the test).
    func status(_ body: () throws -> Void) -> KeychainStatus? {
        do { try body() } catch let failure as KeychainFailure { return failure.status } catch {
            Issue.record("unexpected error \(error)")
        }
        return nil
    }

    // MARK: - Access groups (rules 8 and 9)

    @Test("rule 8: a new item goes into the named group when held, else the caller's first group")
    func groupForNewItem() throws {
        let keychain = try TemporaryKeychain()
        let gateway = try gateway(keychain)
        #expect(try gateway.groupForNewItem(named: nil) == "team.app")
        #expect(try gateway.groupForNewItem(named: "team.shared") == "team.shared")
    }

    @Test("rule 9: a group not held, or a caller without groups, is errSecMissingEntitlement for every kind of call")
    func missingEntitlement() throws {
        let keychain = try TemporaryKeychain()
        let app = try gateway(keychain)
        #expect(status { _ = try app.groupForNewItem(named: "other") } == .missingEntitlement)
        #expect(status { _ = try app.searchScope(named: "other") } == .missingEntitlement)
        #expect(status { _ = try app.upsertGroups(named: "other") } == .missingEntitlement)
        #expect(status { try app.checkHeld("other") } == .missingEntitlement)
        let none = try gateway(keychain, Self.none)
        #expect(status { _ = try none.groupForNewItem(named: nil) } == .missingEntitlement)
        #expect(status { _ = try none.searchScope(named: nil) } == .missingEntitlement)
        #expect(status { _ = try none.upsertGroups(named: nil) } == .missingEntitlement)
        #expect(
            status { _ = try none.add(NewItem(.genericPassword, attributes: ["svce": .string("s")], secret: nil)) }
                == .missingEntitlement)
    }

    @Test("rule 8: a search covers the named group, or every group held; the user's tools see every group")
    func searchScope() throws {
        let keychain = try TemporaryKeychain()
        #expect(try gateway(keychain).searchScope(named: nil).coverage == .groups(["team.app", "team.shared"]))
        #expect(try gateway(keychain).searchScope(named: "team.shared").coverage == .groups(["team.shared"]))
        #expect(try gateway(keychain, .manager).searchScope(named: nil).coverage == .all)
        #expect(try gateway(keychain, .manager).searchScope(named: "anything").coverage == .groups(["anything"]))
    }

    @Test("rule 8: an upsert without a group looks in every group held, default first")
    func upsertGroups() throws {
        let keychain = try TemporaryKeychain()
        #expect(try gateway(keychain).upsertGroups(named: nil) == ["team.app", "team.shared"])
        #expect(try gateway(keychain).upsertGroups(named: "team.shared") == ["team.shared"])
    }

    @Test("an update or migration that moves items into a group not held changes nothing")
    func updateIntoForeignGroup() throws {
        let keychain = try TemporaryKeychain()
        let gateway = try gateway(keychain)
        _ = try gateway.add(NewItem(.genericPassword, attributes: ["svce": .string("s")], secret: secret("x")))
        let query = ItemQuery(itemClass: .genericPassword, scope: try gateway.searchScope(named: nil))
        #expect(
            status { _ = try gateway.update(query, changes: ["agrp": .string("other")], secret: nil) }
                == .missingEntitlement)
        #expect(status { _ = try gateway.migrate([query], changes: [:], into: "other") } == .missingEntitlement)
        #expect(try gateway.search(query, projection: .attributes).first?.attributes["agrp"] == .string("team.app"))
    }

    @Test("only the management identity's scope covers every group; an identity made from groups never does")
    func managementScope() throws {
        let keychain = try TemporaryKeychain()
        let all = ApplicationIdentity(accessGroups: ["team.app", "team.shared", "team.other"])
        #expect(!all.seesAllGroups)
        #expect(try gateway(keychain, all).searchScope(named: nil).coverage == .groups(all.accessGroups))
        #expect(try gateway(keychain, Self.none).callerScope.coverage == .groups([]))
        #expect(try gateway(keychain, .manager).callerScope.coverage == .all)
        #expect(status { _ = try gateway(keychain).checkPlacement(named: "team.other") } == .missingEntitlement)
        #expect(status { try gateway(keychain, Self.none).checkPlacement(named: nil) } == .missingEntitlement)
    }

    // MARK: - Releasing secrets

    @Test(
        "a secret leaves the gateway only through the releasing search, an access-controlled one only when authorized")
    func secretsOnlyThroughRelease() throws {
        let keychain = try TemporaryKeychain()
        let gateway = try gateway(keychain)
        let guarded = AccessConstraints(rawValue: AccessConstraints.userPresence).encoded
        _ = try gateway.add(NewItem(.genericPassword, attributes: ["svce": .string("plain")], secret: secret("p")))
        _ = try gateway.add(
            NewItem(
                .genericPassword, attributes: ["svce": .string("guarded"), "accc": .data(Array(guarded))],
                secret: secret("g")))
        let query = ItemQuery(itemClass: .genericPassword, scope: gateway.callerScope)
        // The plain search opens no secret, even when asked for one.
        let plain = try gateway.search(query, projection: [.attributes, .secret])
        #expect(plain.count == 2 && plain.allSatisfy { $0.secret == nil })
        // The keychain has no password, so the user's proof cannot be given here.
        var skip = AccessAuthorizer(keystore: gateway.keystore, context: nil, ui: .skip, reason: nil)
        let skipped = try gateway.search(query, projection: .attributes, release: &skip)
        #expect(skipped.map { $0.attributes["svce"] } == [.string("plain")])
        #expect(skipped.first?.secret?.constantTimeEquals(Array("p".utf8)) == true)
        var fail = AccessAuthorizer(keystore: gateway.keystore, context: nil, ui: .fail, reason: nil)
        #expect(
            status { _ = try gateway.search(query, projection: .attributes, release: &fail) } == .interactionNotAllowed)
        var withhold = AccessAuthorizer(keystore: gateway.keystore, context: nil, ui: .fail, reason: nil)
        let withheld = try gateway.search(query, projection: .attributes, release: &withhold, refusal: .withholdsSecret)
        #expect(withheld.map { $0.attributes["svce"] } == [.string("plain"), .string("guarded")])
        #expect(withheld.map { $0.secret == nil } == [false, true])
    }

    // MARK: - Upsert (rule 1)

    @Test("rule 1: upsert adds once, then updates the item with the same primary key in place")
    func upsert() throws {
        let keychain = try TemporaryKeychain()
        let gateway = try gateway(keychain)
        let attributes: [String: AttributeValue] = ["svce": .string("s"), "acct": .string("a")]
        #expect(
            try gateway.upsert(NewItem(.genericPassword, attributes: attributes, secret: secret("one"))) == .inserted)
        let query = ItemQuery(itemClass: .genericPassword, scope: try gateway.searchScope(named: nil))
        let ref = try gateway.search(query, projection: []).first?.persistentRef
        #expect(
            try gateway.upsert(NewItem(.genericPassword, attributes: attributes, secret: secret("two"))) == .updated(1))
        let items = try gateway.keystore.search(query, projection: .secret)
        #expect(items.count == 1)
        #expect(items.first?.persistentRef == ref)
        #expect(items.first?.secret?.constantTimeEquals(Array("two".utf8)) == true)
        // Without a new secret the stored one is kept (`security add-… -U` without -w).
        #expect(try gateway.upsert(NewItem(.genericPassword, attributes: attributes, secret: nil)) == .updated(1))
        #expect(
            try gateway.keystore.search(query, projection: .secret).first?.secret?.constantTimeEquals(Array("two".utf8))
                == true)
        // A plain add of the same primary key is errSecDuplicateItem.
        #expect(
            status { _ = try gateway.add(NewItem(.genericPassword, attributes: attributes, secret: nil)) }
                == .duplicateItem)
    }

    // MARK: - Conditional delete

    @Test("a conditional delete removes only the items its predicate accepts")
    func conditionalDelete() throws {
        let keychain = try TemporaryKeychain()
        let gateway = try gateway(keychain)
        for (account, password) in [("a", "keep"), ("b", "drop")] {
            _ = try gateway.add(
                NewItem(
                    .internetPassword,
                    attributes: ["srvr": .string("h.example"), "acct": .string(account), "ptcl": .string("htps")],
                    secret: secret(password)))
        }
        let scope = CredentialScope(
            protocolCode: "htps", server: "H.EXAMPLE", port: .exactly(0), path: nil, account: nil,
            ownership: .notLabelled([]))
        #expect(
            try gateway.deleteCredentials(in: scope) { $0.secret?.constantTimeEquals(Array("drop".utf8)) == true } == 1)
        let left = try gateway.credentials(in: scope, withSecret: false)
        #expect(left.map { $0.attributes["acct"] } == [.string("a")])
    }

    // MARK: - Synchronizable and ThisDeviceOnly (rule 20)

    @Test(
        "a synchronizable ThisDeviceOnly item is refused by the rule every write applies (rule 20)",
        arguments: ProtectionClass.allCases)
    func synchronizableThisDeviceOnly(_ protection: ProtectionClass) {
        let refused = status { try ItemGateway.checkSynchronizable(true, protection: protection) }
        let thisDeviceOnly: Set<ProtectionClass> = [
            .whenUnlockedThisDeviceOnly, .afterFirstUnlockThisDeviceOnly, .alwaysThisDeviceOnly,
            .whenPasscodeSetThisDeviceOnly,
        ]
        #expect(refused == (thisDeviceOnly.contains(protection) ? .param : nil))
        #expect(status { try ItemGateway.checkSynchronizable(false, protection: protection) } == nil)
    }

    // MARK: - Primary keys (rule 3)

    @Test("rule 3: the primary-key filters of a generic password are account and service, defaults filled")
    func primaryKeyFilters() {
        let filters = ItemGateway.primaryKeyFilters(
            .genericPassword, ["svce": .string("s"), "labl": .string("not a key"), "agrp": .string("g")])
        #expect(Set(filters.keys) == ["svce", "acct"])
        #expect(filters["svce"] == .string("s"))
        #expect(filters["acct"] == .string(""))  // SecItemSchema.c: a missing blob key attribute is empty
    }
}
