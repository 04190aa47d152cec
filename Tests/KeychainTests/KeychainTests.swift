import Foundation
import KeychainCore
import KeychainTesting
import Testing

@testable import Keychain

@Suite("Keychain values")
struct KeychainValueTests {
    let temp: TemporaryKeychain
    let keychain: Keychain

    init() throws {
        temp = try TemporaryKeychain(opening: true)
        keychain = Keychain(service: "com.example.app").context(temp.context())
    }

    @Test("a stored string reads back, and a missing key reads as nil")
    func stringRoundTrip() throws {
        #expect(try keychain.string(forKey: "token") == nil)
        try keychain.set("s3cr3t", forKey: "token")
        #expect(try keychain.string(forKey: "token") == "s3cr3t")
        #expect(try keychain["token"] == "s3cr3t")
        #expect(try keychain.contains("token"))
        #expect(try !keychain.contains("other"))
    }

    @Test(
        "stored bytes read back unchanged", arguments: [Data(), Data([0, 1, 2, 255]), Data(repeating: 7, count: 5000)])
    func dataRoundTrip(data: Data) throws {
        try keychain.set(data, forKey: "blob")
        #expect(try keychain.data(forKey: "blob") == data)
    }

    @Test("set updates in place: one item, new value, creation date kept")
    func setIsUpsert() throws {
        try keychain.set("one", forKey: "k")
        let first = try #require(try keychain.allItems().first)
        try keychain.label("Label").comment("Comment").accessibility(.afterFirstUnlock).set("two", forKey: "k")
        let items = try keychain.allItems()
        #expect(items.count == 1)
        #expect(try keychain.string(forKey: "k") == "two")
        #expect(items[0].creationDate == first.creationDate)
        #expect(items[0].label == "Label")
        #expect(items[0].comment == "Comment")
        #expect(items[0].accessibility == .afterFirstUnlock)
    }

    @Test("removing a missing key succeeds; removing an existing key deletes it")
    func remove() throws {
        try keychain.remove(forKey: "nothing")
        try keychain.set("v", forKey: "k")
        try keychain.remove(forKey: "k")
        #expect(try keychain.string(forKey: "k") == nil)
    }

    @Test("Codable values round-trip through JSON")
    func codableRoundTrip() throws {
        struct Session: Codable, Equatable { var token: String; var expires: Date; var scopes: [String] }
        let session = Session(token: "abc", expires: Date(timeIntervalSince1970: 1_700_000_000), scopes: ["r", "w"])
        try keychain.set(session, forKey: "session")
        #expect(try keychain.value(Session.self, forKey: "session") == session)
        #expect(try keychain.value(Session.self, forKey: "missing") == nil)
    }

    @Test("a value that does not decode throws decode")
    func undecodableValueThrowsDecode() throws {
        struct Session: Codable { var token: String }
        try keychain.set("not json", forKey: "session")
        #expect(throws: KeychainError.decode) { try keychain.value(Session.self, forKey: "session") }
        try keychain.set(Data([0xFF, 0xFE]), forKey: "bytes")
        #expect(throws: KeychainError.decode) { try keychain.string(forKey: "bytes") }
    }

    @Test("allKeys lists this service's keys in insertion order")
    func allKeys() throws {
        for key in ["b", "a", "c"] { try keychain.set("v", forKey: key) }
        try Keychain(service: "elsewhere").context(temp.context()).set("v", forKey: "z")
        #expect(try keychain.allKeys() == ["b", "a", "c"])
    }

    @Test("removeAll removes this service's items in every synchronizable state and nothing else")
    func removeAllKeepsOtherServices() throws {
        let other = Keychain(service: "com.example.other").context(temp.context())
        let internet = Keychain(server: "com.example.app").context(temp.context())
        try keychain.set("a", forKey: "one")
        try keychain.synchronizable().set("b", forKey: "two")
        try other.set("c", forKey: "one")
        try internet.set("d", forKey: "one")
        #expect(try keychain.removeAll() == 2)
        #expect(try keychain.allKeys().isEmpty)
        #expect(try keychain.synchronizable().allKeys().isEmpty)
        #expect(try other.string(forKey: "one") == "c")
        #expect(try internet.string(forKey: "one") == "d")
    }

    @Test("synchronizable items are invisible to a non-synchronizable keychain, as with Apple's implicit filter")
    func synchronizableFilter() throws {
        try keychain.synchronizable().set("cloud", forKey: "k")
        #expect(try keychain.string(forKey: "k") == nil)
        #expect(try keychain.synchronizable().string(forKey: "k") == "cloud")
    }

    @Test("a synchronizable ThisDeviceOnly item is refused with param")
    func synchronizableThisDeviceOnly() throws {
        #expect(throws: KeychainError.param) {
            try keychain.synchronizable().accessibility(.whenUnlockedThisDeviceOnly).set("v", forKey: "k")
        }
    }

    @Test("internet passwords are scoped by server, protocol and authentication type")
    func internetPasswords() throws {
        let https = Keychain(server: "example.com").context(temp.context())
        let ssh = Keychain(server: "example.com", protocol: .ssh).context(temp.context())
        try https.set("web", forKey: "alice")
        try ssh.set("shell", forKey: "alice")
        #expect(try https.string(forKey: "alice") == "web")
        #expect(try ssh.string(forKey: "alice") == "shell")
        #expect(try https.allItems().map(\.server) == ["example.com"])
    }

    @Test("the default context comes from KeychainContext.withOverride, also in async variants")
    func taskLocalOverride() async throws {
        let unbound = Keychain(service: "override")
        try await KeychainContext.withOverride(temp.context()) {
            try await unbound.set("async", forKey: "k")
            #expect(try await unbound.string(forKey: "k") == "async")
            let synchronousRead = { () throws -> String? in try unbound.string(forKey: "k") }
            #expect(try synchronousRead() == "async")
        }
        #expect(try await Keychain(service: "override").context(temp.context()).string(forKey: "k") == "async")
    }

    @Test("secrets larger than the engine's limit throw dataTooLarge")
    func dataTooLarge() throws {
        #expect(throws: KeychainError.dataTooLarge) {
            try keychain.set(Data(count: (1 << 20) + 1), forKey: "huge")  // over the documented 1 MiB
        }
    }
}

@Suite("KeychainError")
struct KeychainErrorTests {
    @Test("errors compare by code and match in catch clauses")
    func patternMatching() {
        let error: any Error = KeychainError(.interactionNotAllowed, operation: .get, detail: "locked")
        #expect(KeychainError(.interactionNotAllowed, operation: .set) == KeychainError.interactionNotAllowed)
        #expect(KeychainError.itemNotFound != KeychainError.duplicateItem)
        var caught = false
        do { throw error } catch KeychainError.interactionNotAllowed { caught = true } catch {}
        #expect(caught)
        var caughtCode = false
        do { throw error } catch KeychainError.Code.interactionNotAllowed { caughtCode = true } catch {}
        #expect(caughtCode)
        #expect(!(KeychainError.decode ~= error))
    }

    @Test("unknown statuses keep their raw OSStatus")
    func unknownStatus() {
        let error = KeychainError(KeychainError.Code(rawValue: -99_999), operation: .get)
        #expect(error.status == -99_999)
        #expect(error.description.contains("-99999"))
    }

    @Test("a failure's description names the operation and status, never the key, service or secret")
    func descriptionHidesSecrets() throws {
        let temp = try TemporaryKeychain(opening: true)
        let keychain = Keychain(service: "secret-service-name").context(temp.context())
        try keychain.set(Data([0xFF]), forKey: "alice@example.com")
        do {
            _ = try keychain.string(forKey: "alice@example.com")
            Issue.record("expected a decode error")
        } catch {
            #expect(error.code == .decode)
            #expect(error.description.contains("get"))
            #expect(error.description.contains("-26275"))
            #expect(!error.description.contains("alice"))
            #expect(!error.description.contains("secret-service-name"))
        }
        let large = Keychain(service: "svc").context(temp.context())
        do {
            try large.set(String(repeating: "p4ssw0rd", count: 200_000), forKey: "bob")
            Issue.record("expected dataTooLarge")
        } catch {
            #expect(error.code == .dataTooLarge)
            #expect(!error.description.contains("p4ssw0rd"))
            #expect(!error.description.contains("bob"))
        }
    }
}
