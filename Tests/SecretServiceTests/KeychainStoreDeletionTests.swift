import Foundation
import KeychainCore
import Testing

@testable import SecretService

/// Deletion detection in KeychainSecretStore: O(changes) after this process's own deletions; the item
/// numbers are listed only when another writer deleted.
@Suite("KeychainSecretStore deletion detection")
struct KeychainStoreDeletionTests {
    static func secret(_ text: String) -> StoredSecret {
        StoredSecret(value: SecureBytes(copying: Array(text.utf8)), contentType: "text/plain")
    }

    @Test("After its own delete, the next write does not list every item number; another process's delete is found")
    func ownDeletesDoNotListNumbers() throws {
        let home = try KeychainHome()
        defer { home.remove() }
        let store = KeychainSecretStore(configuration: .fromEnvironment(home.environment))
        let login = try #require(store.resolveAlias("login"))
        var changes: [SecretStoreChange] = []
        store.changeHandler = { changes.append($0) }
        var ids: [ItemID] = []
        for n in 0..<3 {
            ids.append(
                try store.createItem(
                    in: login, label: "i\(n)", attributes: ["n": "\(n)"], secret: Self.secret("s"), replace: false
                ).id)
        }
        try store.deleteItem(ids[0], in: login)
        _ = try store.createItem(
            in: login, label: "i3", attributes: ["n": "3"], secret: Self.secret("s"), replace: false)
        try store.deleteItem(ids[1], in: login)
        store.pollExternalChanges()
        let keychain = try #require(store.keychains[login])
        #expect(keychain.numberListings == 0)
        #expect(try store.itemIDs(in: login).count == 2)
        // Another process (another Keystore on the same file) deletes an item: found by listing once.
        let other = try Keystore(location: home.location("login"), create: false)
        #expect(try other.deleteSecretItem(Int64(ids[2].rawValue)!))
        changes.removeAll()
        store.pollExternalChanges()
        #expect(keychain.numberListings == 1)
        #expect(changes.contains { if case .itemDeleted(login, ids[2]) = $0 { true } else { false } })
    }
}
