import Foundation
import KeychainCore
import Testing

@testable import SecretService

/// The `default` alias follows `keychains.conf` without reading it on every resolution (review of
/// issue 17): the file is read again only when it changed, so `security default-keychain -s` run in
/// another process is still seen at the next call.
@Suite("KeychainSecretStore default alias")
struct KeychainStoreDefaultAliasTests {
    @Test(
        "Regression (review of issue 17): resolving default reads keychains.conf once until another process changes it")
    func defaultAliasCachesPreferences() throws {
        let home = try KeychainHome()
        defer { home.remove() }
        _ = try home.createKeychain("work", password: nil)
        let configuration = KeychainSecretStore.Configuration.fromEnvironment(home.environment)
        let store = KeychainSecretStore(configuration: configuration)
        let login = try #require(store.resolveAlias("login"))
        let work = try #require(store.keychainID(path: home.location("work").databasePath))
        for _ in 0..<5 { #expect(store.resolveAlias("default") == login) }
        #expect(store.preferences.reads == 1)
        // `security default-keychain -s work.keychain-db`, as another process runs it.
        try KeychainPreferences(defaultKeychain: home.location("work").databasePath).save(
            path: configuration.preferencesPath)
        for _ in 0..<5 { #expect(store.resolveAlias("default") == work) }
        #expect(store.preferences.reads == 2)
        try KeychainPreferences(defaultKeychain: nil).save(path: configuration.preferencesPath)
        #expect(store.resolveAlias("default") == login)
        #expect(store.preferences.reads == 3)
    }
}
