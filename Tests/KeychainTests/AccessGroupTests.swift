import Foundation
import KeychainCore
import KeychainTesting
import Testing

@testable import Keychain

/// Seed 003: sharing items between apps through an access group.
@Suite("Access groups")
struct AccessGroupTests {
    @Test("without a group an item goes to the first entitled group and reads search every group")
    func defaultGroup() throws {
        let temp = try TemporaryKeychain(opening: true)
        let keychain = Keychain(service: "svc").context(temp.context(teamIdentity))
        try keychain.set("v", forKey: "k")
        #expect(try keychain.allItems().map(\.accessGroup) == ["TEAM.shared"])
        try keychain.accessGroup("TEAM.other").set("w", forKey: "only-other")
        #expect(try keychain.string(forKey: "only-other") == "w")
        #expect(try keychain.accessGroup("TEAM.shared").string(forKey: "only-other") == nil)
    }

    @Test("two apps holding the same group share its items; an app without it does not see them")
    func sharing() throws {
        let temp = try TemporaryKeychain(opening: true)
        let appA = ApplicationIdentity(accessGroups: ["TEAM.shared", "TEAM.com.example.a"])
        let appB = ApplicationIdentity(accessGroups: ["TEAM.com.example.b", "TEAM.shared"])
        let appC = ApplicationIdentity(accessGroups: ["TEAM.com.example.c"])
        try Keychain(service: "login").accessGroup("TEAM.shared").context(temp.context(appA)).set("t", forKey: "user")
        #expect(try Keychain(service: "login").context(temp.context(appB)).string(forKey: "user") == "t")
        #expect(try Keychain(service: "login").context(temp.context(appC)).string(forKey: "user") == nil)
    }

    @Test("naming a group the entitlements do not hold throws missingEntitlement for every operation")
    func groupNotHeld() throws {
        let temp = try TemporaryKeychain(opening: true)
        let keychain = Keychain(service: "svc").accessGroup("TEAM.not-mine").context(temp.context(teamIdentity))
        #expect(throws: KeychainError.missingEntitlement) { try keychain.set("v", forKey: "k") }
        #expect(throws: KeychainError.missingEntitlement) { try keychain.string(forKey: "k") }
        #expect(throws: KeychainError.missingEntitlement) { try keychain.remove(forKey: "k") }
        #expect(throws: KeychainError.missingEntitlement) { try keychain.removeAll() }
    }

    @Test("a process with no access group at all gets missingEntitlement")
    func noGroups() throws {
        let temp = try TemporaryKeychain(opening: true)
        let keychain = Keychain(service: "svc").context(temp.context(ApplicationIdentity(accessGroups: [])))
        #expect(throws: KeychainError.missingEntitlement) { try keychain.set("v", forKey: "k") }
        #expect(throws: KeychainError.missingEntitlement) { try keychain.contains("k") }
    }

    @Test("set without a group updates the key in the group that holds it instead of adding a second copy")
    func upsertAcrossGroups() throws {
        let temp = try TemporaryKeychain(opening: true)
        let keychain = Keychain(service: "svc").context(temp.context(teamIdentity))
        try keychain.accessGroup("TEAM.other").set("old", forKey: "k")
        try keychain.set("new", forKey: "k")
        let items = try keychain.allItems()
        #expect(items.map(\.accessGroup) == ["TEAM.other"])
        #expect(try keychain.string(forKey: "k") == "new")
    }
}
