import Foundation
import KeychainServices
import KeychainTestProcess
import KeychainTesting
import Testing

/// Persistent references: docs/APPLE-SEMANTICS.md rule 13 (SecItem.h; SecItemServer.c `query_add_value`).
@Suite("Persistent references")
struct PersistentRefTests {
    func persistentRef(_ query: [String: Any]) -> Data? {
        var query = query
        query[kSecReturnPersistentRef as String] = kCFBooleanTrue!
        return copy(query).result as? Data
    }

    @Test("kSecValuePersistentRef alone, without kSecClass, finds the item")
    func findByRefWithoutClass() throws {
        try withKeychain {
            #expect(add(genericPassword(account: "a"), secret: "A") == errSecSuccess)
            #expect(add(genericPassword(account: "b"), secret: "B") == errSecSuccess)
            let ref = try #require(persistentRef(genericPassword(account: "b")))
            let result = copy([kSecValuePersistentRef as String: ref, kSecReturnData as String: kCFBooleanTrue!]).result
            #expect((result as? Data)?.utf8Text == "B")
        }
    }

    @Test("A persistent reference survives an update of the item")
    func refSurvivesUpdate() throws {
        try withKeychain {
            #expect(add(genericPassword(), secret: "old") == errSecSuccess)
            let ref = try #require(persistentRef(genericPassword()))
            #expect(
                update(genericPassword(), [kSecValueData as String: Data("new".utf8), kSecAttrLabel as String: "l"])
                    == errSecSuccess)
            #expect(persistentRef(genericPassword()) == ref)
            #expect(secret([kSecValuePersistentRef as String: ref]) == "new")
        }
    }

    @Test(
        "A persistent reference is stable across processes: the helper process gets the same one and reads through ours"
    )
    func refAcrossProcesses() throws {
        let keychain = try TemporaryKeychain()
        let ref = try keychain.run {
            #expect(
                add(genericPassword(service: "cross", account: "process"), secret: "shared secret") == errSecSuccess)
            return persistentRef(genericPassword(service: "cross", account: "process"))
        }
        let hex = try #require(ref).map { String(format: "%02x", $0) }.joined()
        #expect(try HelperProcess.run(["ref", "cross", "process"], environment: keychain.environment) == "0 \(hex)")
        #expect(try HelperProcess.run(["get-ref", hex], environment: keychain.environment) == "0 shared secret")
        // And a reference made by another process works here.
        #expect(try HelperProcess.run(["add", "cross", "other", "theirs"], environment: keychain.environment) == "0")
        let theirs = try HelperProcess.run(["ref", "cross", "other"], environment: keychain.environment)
        let theirHex = try #require(theirs.split(separator: " ").last.map(String.init))
        let theirRef = Data(
            stride(from: 0, to: theirHex.count, by: 2).map { offset in
                let start = theirHex.index(theirHex.startIndex, offsetBy: offset)
                return UInt8(theirHex[start..<theirHex.index(start, offsetBy: 2)], radix: 16)!
            })
        try keychain.run { #expect(secret([kSecValuePersistentRef as String: theirRef]) == "theirs") }
    }

    @Test("kSecValuePersistentRef combined with another attribute returns errSecParam (-50)")
    func refWithAttribute() throws {
        try withKeychain {
            #expect(add(genericPassword(), secret: "x") == errSecSuccess)
            let ref = try #require(persistentRef(genericPassword()))
            let query = genericPassword(
                service: nil, [kSecValuePersistentRef as String: ref, kSecReturnData as String: kCFBooleanTrue!])
            #expect(copy(query).status == errSecParam)
            #expect(delete([kSecValuePersistentRef as String: ref, kSecAttrLabel as String: "l"]) == errSecParam)
        }
    }

    @Test("SecItemAdd with kSecValuePersistentRef returns errSecParam (-50)")
    func addWithRef() throws {
        try withKeychain {
            #expect(add(genericPassword(), secret: "x") == errSecSuccess)
            let ref = try #require(persistentRef(genericPassword()))
            #expect(
                add(genericPassword(account: "other", [kSecValuePersistentRef as String: ref]), secret: "y")
                    == errSecParam)
            #expect(count(genericPassword(account: nil)) == 1)
        }
    }

    @Test("SecItemDelete by persistent reference deletes that item only")
    func deleteByRef() throws {
        try withKeychain {
            #expect(add(genericPassword(account: "a"), secret: "A") == errSecSuccess)
            #expect(add(genericPassword(account: "b"), secret: "B") == errSecSuccess)
            let ref = try #require(persistentRef(genericPassword(account: "a")))
            #expect(delete([kSecValuePersistentRef as String: ref]) == errSecSuccess)
            #expect(copy([kSecValuePersistentRef as String: ref]).status == errSecItemNotFound)
            #expect(secret(genericPassword(account: "b")) == "B")
        }
    }

    @Test("A persistent-reference query finds a synchronizable item without kSecAttrSynchronizableAny")
    func refSkipsSyncFilter() throws {
        try withKeychain {
            #expect(
                add(genericPassword([kSecAttrSynchronizable as String: kCFBooleanTrue!]), secret: "synced")
                    == errSecSuccess)
            let ref = try #require(persistentRef(genericPassword([kSecAttrSynchronizable as String: kCFBooleanTrue!])))
            #expect(secret([kSecValuePersistentRef as String: ref]) == "synced")
        }
    }
}
