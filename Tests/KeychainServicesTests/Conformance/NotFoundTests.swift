import Foundation
import KeychainServices
import KeychainTesting
import Testing

/// errSecItemNotFound and the default match limits: docs/APPLE-SEMANTICS.md rules 2 and 5
/// (SecItemServer.c `s3dl_query`, "No items updated", "Delete failed to delete anything").
@Suite("Nothing matched, and how many items each call touches")
struct NotFoundTests {
    @Test("SecItemCopyMatching matching nothing returns errSecItemNotFound (-25300) and leaves the result nil")
    func copyNothing() throws {
        try withKeychain {
            let (status, result) = copy(genericPassword([kSecReturnData as String: kCFBooleanTrue!]))
            #expect(status == errSecItemNotFound)
            #expect(result == nil)
        }
    }

    @Test("SecItemCopyMatching with kSecMatchLimitAll matching nothing returns -25300, never an empty array")
    func copyAllNothing() throws {
        try withKeychain {
            #expect(add(genericPassword(service: "other"), secret: "x") == errSecSuccess)
            let (status, result) = copy(
                genericPassword([
                    kSecReturnData as String: kCFBooleanTrue!, kSecMatchLimit as String: kSecMatchLimitAll,
                ]))
            #expect(status == errSecItemNotFound)
            #expect(result == nil)
        }
    }

    @Test("SecItemUpdate matching nothing returns errSecItemNotFound (-25300)")
    func updateNothing() throws {
        try withKeychain {
            #expect(update(genericPassword(), [kSecValueData as String: Data("x".utf8)]) == errSecItemNotFound)
        }
    }

    @Test("SecItemDelete matching nothing returns errSecItemNotFound (-25300), also after a successful delete")
    func deleteNothing() throws {
        try withKeychain {
            #expect(delete(genericPassword()) == errSecItemNotFound)
            #expect(add(genericPassword(), secret: "x") == errSecSuccess)
            #expect(delete(genericPassword()) == errSecSuccess)
            #expect(delete(genericPassword()) == errSecItemNotFound)
        }
    }

    @Test("SecItemDelete removes every match on iOS, not just one")
    func deleteAllMatches() throws {
        try withKeychain {
            for account in ["a", "b", "c"] {
                #expect(add(genericPassword(account: account), secret: account) == errSecSuccess)
            }
            #expect(add(genericPassword(service: "keep"), secret: "keep") == errSecSuccess)
            #expect(delete(genericPassword(account: nil)) == errSecSuccess)
            #expect(count(genericPassword(account: nil)) == 0)
            #expect(secret(genericPassword(service: "keep")) == "keep")
        }
    }

    @Test("SecItemUpdate changes every match on iOS, not just one")
    func updateAllMatches() throws {
        try withKeychain {
            for account in ["a", "b", "c"] {
                #expect(add(genericPassword(account: account), secret: account) == errSecSuccess)
            }
            #expect(update(genericPassword(account: nil), [kSecValueData as String: Data("new".utf8)]) == errSecSuccess)
            for account in ["a", "b", "c"] { #expect(secret(genericPassword(account: account)) == "new") }
        }
    }
}
