import Foundation
import KeychainCore
import KeychainServices
import KeychainTesting
import Testing

/// What SecItem tests need of the shared ``TemporaryKeychain`` (`KeychainTesting`): contexts on new
/// connections, bound to the current task.
extension TemporaryKeychain {
    /// The temporary folder.
    var root: String { directory }

    /// Opens (creating on first use) the keychain as `identity`, on a new connection.
    func context(_ identity: ApplicationIdentity = .unsigned) throws -> KeychainContext {
        KeychainContext(keystore: try open(), identity: identity)
    }

    /// Runs `body` with this keychain and `identity` bound to the current task.
    func run<R>(as identity: ApplicationIdentity = .unsigned, _ body: () throws -> R) throws -> R {
        try KeychainContext.withOverride(try context(identity), body)
    }
}

/// Runs `body` in a fresh keychain with `identity`.
func withKeychain<R>(as identity: ApplicationIdentity = .unsigned, _ body: () throws -> R) throws -> R {
    let keychain = try TemporaryKeychain()
    return try keychain.run(as: identity, body)
}

// MARK: - Dictionaries

/// A generic-password dictionary, keyed by the constants as an app writes them.
func genericPassword(service: String? = "svc", account: String? = "acct", _ extra: [String: Any] = [:]) -> [String: Any]
{
    var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword]
    if let service { query[kSecAttrService as String] = service }
    if let account { query[kSecAttrAccount as String] = account }
    return query.merging(extra) { _, new in new }
}

/// An internet-password dictionary.
func internetPassword(_ attributes: [String: Any]) -> [String: Any] {
    [kSecClass as String: kSecClassInternetPassword].merging(attributes) { _, new in new }
}

func add(_ attributes: [String: Any], secret: String? = nil) -> OSStatus {
    var attributes = attributes
    if let secret { attributes[kSecValueData as String] = Data(secret.utf8) }
    return SecItemAdd(attributes as CFDictionary, nil)
}

/// `SecItemCopyMatching` returning the status and the result object.
func copy(_ query: [String: Any]) -> (status: OSStatus, result: CFTypeRef?) {
    var result: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    return (status, result)
}

/// The secret of the one item `query` matches, as UTF-8 text.
func secret(_ query: [String: Any]) -> String? {
    var query = query
    query[kSecReturnData as String] = kCFBooleanTrue!
    return (copy(query).result as? Data).map { String(decoding: $0, as: UTF8.self) }
}

/// The attributes of the one item `query` matches.
func attributes(_ query: [String: Any]) -> [String: Any]? {
    var query = query
    query[kSecReturnAttributes as String] = kCFBooleanTrue!
    return copy(query).result as? [String: Any]
}

func update(_ query: [String: Any], _ changes: [String: Any]) -> OSStatus {
    SecItemUpdate(query as CFDictionary, changes as CFDictionary)
}

func delete(_ query: [String: Any]) -> OSStatus {
    SecItemDelete(query as CFDictionary)
}

/// How many items `query` matches (with kSecMatchLimitAll), 0 on errSecItemNotFound.
func count(_ query: [String: Any]) -> Int {
    var query = query
    query[kSecMatchLimit as String] = kSecMatchLimitAll
    query[kSecReturnPersistentRef as String] = kCFBooleanTrue!
    let (status, result) = copy(query)
    if status == errSecItemNotFound { return 0 }
    return (result as? [Any])?.count ?? -1
}

extension Data {
    var utf8Text: String { String(decoding: self, as: UTF8.self) }
}
