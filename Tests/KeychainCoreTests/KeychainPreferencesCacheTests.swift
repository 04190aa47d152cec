import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// `keychains.conf` read once and again only when it changes (review of issue 17: the Secret Service
/// provider re-read it on every `default` alias resolution).
@Suite("KeychainPreferencesCache")
struct KeychainPreferencesCacheTests {
    @Test("Read once while unchanged; a missing file is the defaults; a replaced or rewritten file is read again")
    func readsOnlyWhenChanged() throws {
        let temp = try TemporaryKeychain()
        let path = temp.directory + "/config/swift-keychain/keychains.conf"
        let cache = KeychainPreferencesCache(path: path)
        for _ in 0..<3 { #expect(cache.current() == KeychainPreferences()) }
        #expect(cache.reads == 1)
        // `security default-keychain -s` in another process: the file is replaced by a rename.
        try KeychainPreferences(defaultKeychain: "/k/work.keychain-db").save(path: path)
        for _ in 0..<3 { #expect(cache.current().defaultKeychain == "/k/work.keychain-db") }
        #expect(cache.reads == 2)
        try KeychainPreferences(defaultKeychain: "/k/home.keychain-db").save(path: path)
        #expect(cache.current().defaultKeychain == "/k/home.keychain-db")
        #expect(cache.reads == 3)
        // An editor that rewrites the file in place (same inode).
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data("default=/k/edited-in-place.keychain-db\n".utf8))
        try handle.close()
        #expect(cache.current().defaultKeychain == "/k/edited-in-place.keychain-db")
        #expect(cache.reads == 4)
        try FileManager.default.removeItem(atPath: path)
        #expect(cache.current() == KeychainPreferences())
        #expect(cache.reads == 5)
    }
}
