import Foundation
import Testing

@testable import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// The kernel keyring footprint of unlocked keychains (tracker issue 12): two entries per unlocked
/// keychain, all inside one keyring of the project's own, nothing left behind.
///
/// Each test runs the built `security` tool as separate processes with a keyring of its own
/// (`KEYCHAIN_KEYRING`), so that `lock-keychain -a` and the counts never touch the keyring the
/// rest of the suite shares; the keyring is invalidated at the end.
@Suite("kernel keyring footprint")
struct KeyringFootprintTests {
    /// A sandbox whose tools keep their unlocks in a keyring of this test's own.
    final class IsolatedKeyring {
        let sandbox: Sandbox
        let name: String
        let environment: [String: String]

        init(_ label: String) throws {
            sandbox = try Sandbox()
            // Starts with the test run's prefix and pid, so that an abandoned one is removed by the next run.
            name = "\(ClassKeyStore.keyringName)-\(label)-\(UUID().uuidString.prefix(8))"
            var environment = sandbox.environment
            environment["KEYCHAIN_KEYRING"] = name
            self.environment = environment
        }

        deinit {
            if let keyring = KernelKeyring.findKeyring(named: name) {
                KernelKeyring.withdraw(keyring, from: KernelKeyring.userKeyring)
            }
        }

        @discardableResult
        func security(_ arguments: String..., stdin: String = "") throws -> Outcome {
            try EndToEndTests.run(try EndToEndTests.tool("security"), arguments, stdin: stdin, environment: environment)
        }

        /// The descriptions of the entries in this test's keyring; `nil` when the keyring does not exist.
        var entries: [String]? {
            guard let keyring = KernelKeyring.findKeyring(named: name) else { return nil }
            return KernelKeyring.members(of: keyring).compactMap { KernelKeyring.describe($0)?.description }
        }
    }

    static let available = ClassKeyStore.scope == .userSession

    @Test(
        "unlocking 1, 5 and 20 keychains uses two entries each; lock-keychain -a returns the keyring to empty",
        .enabled(if: available, "the kernel keyring is unavailable here"), arguments: [1, 5, 20])
    func footprint(count: Int) throws {
        let keyring = try IsolatedKeyring("footprint")
        for index in 0..<count {
            #expect(try keyring.security("create-keychain", "-p", "pw\(index)", "k\(index)").status == 0)
        }
        let entries = try #require(keyring.entries)
        #expect(entries.count == ClassKeyStore.entriesPerKeychain * count)
        #expect(ClassKeyStore.entriesPerKeychain == 2)
        #expect(entries.filter { $0.hasSuffix(":wu") }.count == count)
        #expect(entries.filter { $0.hasSuffix(":afu") }.count == count)
        #expect(entries.allSatisfy { $0.hasPrefix("swkc:") })

        // One keychain locked alone keeps its AfterFirstUnlock entry, as on iOS.
        #expect(try keyring.security("lock-keychain", "k0").status == 0)
        #expect(keyring.entries?.count == 2 * count - 1)

        // Regression: `lock-keychain -a` emptied the project keyring but left it in `@u`.
        #expect(try keyring.security("lock-keychain", "-a").status == 0)
        #expect(keyring.entries == nil, "the emptied project keyring is unlinked from @u")
        for index in 0..<count {
            #expect(try keyring.security("show-keychain-info", "k\(index)").stderr.hasSuffix(" locked\n"))
        }
    }

    @Test("delete-keychain of an unlocked keychain withdraws its entries", .enabled(if: available))
    func deleteWithdraws() throws {
        let keyring = try IsolatedKeyring("delete")
        try keyring.security("create-keychain", "-p", "one", "one")
        try keyring.security("create-keychain", "-p", "two", "two")
        #expect(keyring.entries?.count == 4)
        #expect(try keyring.security("delete-keychain", "one").status == 0)
        let left = try #require(keyring.entries)
        #expect(left.count == 2)
        #expect(try keyring.security("show-keychain-info", "two").stderr.contains(" unlocked\n"))
        // Regression: deleting the last unlocked keychain left the emptied project keyring in `@u`
        // (as `lock-keychain -a` no longer does).
        #expect(try keyring.security("delete-keychain", "two").status == 0)
        #expect(keyring.entries == nil, "the emptied project keyring is unlinked from @u")
    }

    @Test(
        "an unlock withdraws the entries of keychains whose file was removed or made again",
        .enabled(if: available))
    func unlockSweepsMissingKeychains() throws {
        let keyring = try IsolatedKeyring("sweep")
        try keyring.security("create-keychain", "-p", "gone", "gone")
        try keyring.security("create-keychain", "-p", "again", "again")
        try keyring.security("create-keychain", "-p", "kept", "kept")
        #expect(keyring.entries?.count == 6)
        let directory = KeychainLocation.keychainDirectory(environment: keyring.environment)
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: directory + "/gone.keychain-db" + suffix)
        }
        // "again" is removed behind the tool's back and made anew: a new file, a new keychain id.
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: directory + "/again.keychain-db" + suffix)
        }
        // Making it is an unlock too: "gone" and the old "again" are withdrawn; "kept" and the new "again" stay.
        try keyring.security("create-keychain", "-p", "again", "again")
        #expect(keyring.entries?.count == 4)
        #expect(try keyring.security("show-keychain-info", "again").stderr.contains(" unlocked\n"))
        #expect(try keyring.security("show-keychain-info", "kept").stderr.contains(" unlocked\n"))

        // An unlock of another keychain withdraws the entries of one whose file is gone.
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: directory + "/again.keychain-db" + suffix)
        }
        try keyring.security("lock-keychain", "kept")
        #expect(keyring.entries?.count == 3)
        #expect(try keyring.security("unlock-keychain", "kept", stdin: "kept\n").status == 0)
        let left = try #require(keyring.entries)
        #expect(left.count == 2)
        #expect(left.allSatisfy { $0.hasPrefix("swkc:") })
    }

    @Test("a command that needs no unlock creates no keyring and no key", .enabled(if: available))
    func probeCreatesNothing() throws {
        let keyring = try IsolatedKeyring("probe")
        #expect(try keyring.security("add-generic-password", "-a", "me", "-s", "probe", "-w", "s3cret").status == 0)
        #expect(try keyring.security("find-generic-password", "-a", "me", "-s", "probe", "-w").stdout == "s3cret\n")
        #expect(try keyring.security("show-keychain-info").status == 0)
        #expect(keyring.entries == nil, "no keyring made for a keychain without a password")
    }

    @Test("removing the password withdraws the keychain's entries", .enabled(if: available))
    func passwordRemovalWithdraws() throws {
        let temp = try Sandbox()
        let keystore = try Keystore(location: temp.location)
        try keystore.setPassword(SecureBytes(copying: Array("pw".utf8)), current: nil, parameters: .testing)
        let keyringID = try keystore.read { (s: borrowing StoreSession) in s.keys.keyringID }
        let mine = { ClassKeyStore.holders().filter { $0.keyringID == Sodium.hex(keyringID) } }
        #expect(
            mine() == [
                ClassKeyStore.Holder(keyringID: Sodium.hex(keyringID), path: temp.location.databasePath, entries: 2)
            ])
        try keystore.setPassword(nil, current: SecureBytes(copying: Array("pw".utf8)), parameters: .testing)
        #expect(mine().isEmpty)
    }

    @Test(
        "entries of the layout before issue 12 (one per class key, directly in @u) are withdrawn by an unlock",
        .enabled(if: available))
    func legacyEntriesWithdrawn() throws {
        let legacy = "swkc:" + String(repeating: "ab", count: 16) + ":1"
        let stored = [UInt8](repeating: 7, count: 32).withUnsafeBytes {
            KernelKeyring.store($0, description: legacy, in: KernelKeyring.userKeyring)
        }
        let key = try stored.get()
        defer { KernelKeyring.withdraw(key, from: KernelKeyring.userKeyring) }
        #expect(KernelKeyring.search(description: legacy, in: KernelKeyring.userKeyring) == key)
        let keyring = try IsolatedKeyring("legacy")
        try keyring.security("create-keychain", "-p", "pw", "work")
        #expect(KernelKeyring.search(description: legacy, in: KernelKeyring.userKeyring) == nil)
    }
}
