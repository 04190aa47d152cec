import Foundation
import KeychainCore
import SecretService
import Testing

/// The engine's Secret Service item kind (Keystore+SecretItems), without D-Bus.
@Suite("Secret Service items in keychain files")
struct SecretItemEngineTests {
    static func secret(_ text: String, type: String = "text/plain") -> SecretItemSecret {
        SecretItemSecret(value: SecureBytes(copying: Array(text.utf8)), contentType: type)
    }

    static func text(_ secret: SecretItemSecret) -> String {
        secret.value.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    @Test("Create, search by any subset of pairs, read the secret, delete; numbers are never reused")
    func createSearchDelete() throws {
        let home = try KeychainHome()
        defer { home.remove() }
        let keystore = try home.createKeychain("login", password: nil)
        let a = try keystore.createSecretItem(
            label: "A", attributes: ["service": "mail", "user": "ann"], secret: Self.secret("s1"), replace: false,
            now: 100)
        let b = try keystore.createSecretItem(
            label: "B", attributes: ["service": "mail", "user": "bob"], secret: Self.secret("s2", type: ""),
            replace: false, now: 200)
        #expect(a == (1, false) && b == (2, false))
        #expect(try keystore.secretItems(matching: ["service": "mail"]).map(\.number) == [1, 2])
        #expect(try keystore.secretItems(matching: ["service": "mail", "user": "bob"]).map(\.label) == ["B"])
        #expect(try keystore.secretItems(matching: ["user": "Bob"]).isEmpty)
        #expect(try keystore.secretItems(matching: [:]).count == 2)
        let item = try #require(try keystore.secretItem(1))
        #expect(
            item
                == SecretItem(
                    number: 1, label: "A", attributes: ["service": "mail", "user": "ann"], created: 100, modified: 100))
        let stored = try keystore.secretItemSecret(2)
        #expect(Self.text(stored) == "s2" && stored.contentType == "")
        #expect(try keystore.deleteSecretItem(2))
        #expect(try !keystore.deleteSecretItem(2))
        #expect(try keystore.secretItem(2) == nil)
        let c = try keystore.createSecretItem(label: "C", attributes: [:], secret: Self.secret("s3"), replace: false)
        #expect(c.number == 3)
        #expect(try keystore.verifyIntegrity() == 2)
        #expect(throws: KeychainFailure.self) { try keystore.secretItemSecret(2) }
    }

    @Test(
        "One read gives the metadata, and the secret only when the check accepts it; and the lock state with an item or a search"
    )
    func combinedReads() throws {
        let home = try KeychainHome()
        defer { home.remove() }
        let keystore = try home.createKeychain("work", password: "pw")
        _ = try keystore.unlock(password: SecureBytes(copying: Array("pw".utf8)))
        let created = try keystore.createSecretItem(
            label: "A", attributes: ["k": "v"], secret: Self.secret("s1"), replace: false, changesAfter: 0)
        // The changes read in the write's own transaction: this item, at the keychain's latest serial.
        #expect(created.number == 1 && !created.replaced)
        #expect(created.changes == (try keystore.secretItemChanges(after: 0)))
        #expect(created.changes.written.map(\.number) == [1])
        var seen: [String] = []
        let refused = try #require(
            try keystore.secretItem(1) {
                seen.append($0.label); return false
            })
        #expect(seen == ["A"] && refused.item.label == "A" && refused.secret == nil)
        let read = try #require(try keystore.secretItem(1) { _ in true })
        #expect(read.item == (try keystore.secretItem(1)) && read.secret.map(Self.text) == "s1")
        #expect(try keystore.secretItem(2) { _ in true } == nil)
        #expect(try keystore.secretItemAndLockState(1) == (try keystore.secretItem(1), .unlocked))
        let search = try keystore.secretItemsAndLockState(matching: ["k": "v"])
        #expect(search.items == (try keystore.secretItems(matching: ["k": "v"])) && search.lockState == .unlocked)
        try keystore.lock()
        #expect(try keystore.secretItemsAndLockState(matching: ["k": "v"]).lockState == .locked)
        #expect(try keystore.secretItemsAndLockState(matching: ["k": "w"]).items.isEmpty)
        // Locked: the metadata alone is read; the secret is refused as secretItemSecret refuses it.
        #expect(try keystore.secretItem(1) { _ in false }?.item.label == "A")
        do {
            _ = try keystore.secretItem(1) { _ in true }
            Issue.record("expected interactionNotAllowed")
        } catch {
            #expect(error.status == .interactionNotAllowed)
        }
        #expect(try keystore.secretItemAndLockState(1).lockState == .locked)
        #expect(try keystore.secretItemAndLockState(7).item == nil)
    }

    @Test("A secret over 4 MiB, the provider's limit too, is refused with dataTooLarge and nothing is stored")
    func secretTooLarge() throws {
        let home = try KeychainHome()
        defer { home.remove() }
        let keystore = try home.createKeychain("login", password: nil)
        let limit = SecretServiceProvider.Limits.secretBytes
        func secret(_ count: Int) -> SecretItemSecret {
            SecretItemSecret(value: SecureBytes(copying: [UInt8](repeating: 0x5a, count: count)), contentType: "")
        }
        do {
            _ = try keystore.createSecretItem(label: "big", attributes: [:], secret: secret(limit + 1), replace: false)
            Issue.record("expected dataTooLarge")
        } catch {
            #expect(error.status == .dataTooLarge)
        }
        #expect(try keystore.secretItems(matching: [:]).isEmpty)
        let stored = try keystore.createSecretItem(
            label: "at the limit", attributes: [:], secret: secret(limit), replace: false)
        #expect(try keystore.secretItemSecret(stored.number).value.count == limit)
        do {
            try keystore.setSecretItemSecret(stored.number, secret(limit + 1))
            Issue.record("expected dataTooLarge")
        } catch {
            #expect(error.status == .dataTooLarge)
        }
        #expect(try keystore.secretItemSecret(stored.number).value.count == limit)
    }

    @Test("replace = true replaces only the item whose attribute set is exactly the new one")
    func replaceExactSetOnly() throws {
        let home = try KeychainHome()
        defer { home.remove() }
        let keystore = try home.createKeychain("login", password: nil)
        _ = try keystore.createSecretItem(
            label: "specific", attributes: ["app": "x", "user": "u"], secret: Self.secret("keep"), replace: false,
            now: 1)
        let general = try keystore.createSecretItem(
            label: "general", attributes: ["app": "x"], secret: Self.secret("old"), replace: true, now: 2)
        #expect(general == (2, false))  // {app:x} ⊂ {app:x,user:u} is not the same set: a new item
        let again = try keystore.createSecretItem(
            label: "general 2", attributes: ["app": "x"], secret: Self.secret("new"), replace: true, now: 3)
        #expect(again == (2, true))
        #expect(Self.text(try keystore.secretItemSecret(1)) == "keep")
        #expect(Self.text(try keystore.secretItemSecret(2)) == "new")
        let replaced = try #require(try keystore.secretItem(2))
        #expect(replaced.label == "general 2" && replaced.created == 2 && replaced.modified == 3)
        // Without replace, duplicates are allowed.
        #expect(
            try keystore.createSecretItem(
                label: "dup", attributes: ["app": "x"], secret: Self.secret("d"), replace: false
            ).number == 3)
        try keystore.updateSecretItem(3, attributes: ["app": "y"])
        #expect(try keystore.secretItems(matching: ["app": "y"]).map(\.number) == [3])
        #expect(try keystore.secretItems(matching: ["app": "x"]).map(\.number) == [1, 2])
        #expect(try keystore.verifyIntegrity() == 3)
    }

    @Test("While locked: metadata and searches work; secrets and every write fail with interactionNotAllowed")
    func lockedKeychain() throws {
        let home = try KeychainHome()
        defer { home.remove() }
        let keystore = try home.createKeychain("work", password: "pw")
        _ = try keystore.unlock(password: SecureBytes(copying: Array("pw".utf8)))
        _ = try keystore.createSecretItem(label: "L", attributes: ["k": "v"], secret: Self.secret("s"), replace: false)
        try keystore.lock()
        #expect(try keystore.secretItems(matching: ["k": "v"]).map(\.label) == ["L"])
        #expect(try keystore.secretItem(1)?.attributes == ["k": "v"])
        func expectLocked(_ body: () throws(KeychainFailure) -> Void) {
            do {
                try body()
                Issue.record("expected interactionNotAllowed")
            } catch {
                #expect(error.status == .interactionNotAllowed)
            }
        }
        expectLocked { () throws(KeychainFailure) in _ = try keystore.secretItemSecret(1) }
        expectLocked { () throws(KeychainFailure) in
            _ = try keystore.createSecretItem(label: "M", attributes: [:], secret: Self.secret("t"), replace: false)
        }
        expectLocked { () throws(KeychainFailure) in try keystore.setSecretItemSecret(1, Self.secret("u")) }
        expectLocked { () throws(KeychainFailure) in try keystore.updateSecretItem(1, label: "N") }
        expectLocked { () throws(KeychainFailure) in _ = try keystore.deleteSecretItem(1) }
        #expect(try keystore.verifyIntegrity() == 1)
    }

    @Test("A replayed, removed or edited Secret Service row fails verifyIntegrity")
    func integrity() throws {
        let home = try KeychainHome()
        defer { home.remove() }
        let keystore = try home.createKeychain("login", password: nil)
        _ = try keystore.createSecretItem(label: "A", attributes: ["a": "1"], secret: Self.secret("x"), replace: false)
        _ = try keystore.createSecretItem(label: "B", attributes: ["a": "2"], secret: Self.secret("y"), replace: false)
        #expect(try keystore.verifyIntegrity() == 2)
        try home.sqlite("login", "DELETE FROM ss_items WHERE id = 2")
        #expect(throws: KeychainFailure.self) { try keystore.verifyIntegrity() }
    }
}
