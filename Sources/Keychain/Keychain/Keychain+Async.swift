public import Foundation

/// `async` variants: the same behaviour and errors as the synchronous calls, run off the Swift
/// concurrency thread pool, because a call may block while another process holds the write lock.
/// The keychain context current when the call starts (including a task-local test override) is used.
extension Keychain {
    // MARK: - Public

    /// Async variant of ``data(forKey:)-7gokz``.
    /// - Parameter key: the item's key (account).
    /// - Returns: the secret, or `nil` when there is no item.
    /// - Throws: everything ``data(forKey:)-7gokz`` throws.
    public func data(forKey key: String) async throws(KeychainError) -> Data? {
        let keychain = try bound(.get)
        return try await Offload.run { () throws(KeychainError) in try keychain.data(forKey: key) }
    }

    /// Async variant of ``string(forKey:)-3xxvk``.
    /// - Parameter key: the item's key (account).
    /// - Returns: the text, or `nil` when there is no item.
    /// - Throws: everything ``string(forKey:)-3xxvk`` throws.
    public func string(forKey key: String) async throws(KeychainError) -> String? {
        let keychain = try bound(.get)
        return try await Offload.run { () throws(KeychainError) in try keychain.string(forKey: key) }
    }

    /// Async variant of ``value(_:forKey:)-1ocp8``.
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - key: the item's key (account).
    /// - Returns: the decoded value, or `nil` when there is no item.
    /// - Throws: everything ``value(_:forKey:)-1ocp8`` throws.
    public func value<Value: Decodable & Sendable>(_ type: Value.Type = Value.self, forKey key: String)
        async throws(KeychainError) -> Value?
    {
        let keychain = try bound(.get)
        return try await Offload.run { () throws(KeychainError) in try keychain.value(Value.self, forKey: key) }
    }

    /// Async variant of ``contains(_:)``.
    /// - Parameter key: the item's key (account).
    /// - Returns: whether an item exists for `key`.
    /// - Throws: everything ``contains(_:)`` throws.
    public func contains(_ key: String) async throws(KeychainError) -> Bool {
        let keychain = try bound(.contains)
        return try await Offload.run { () throws(KeychainError) in try keychain.contains(key) }
    }

    /// Async variant of ``allKeys()``.
    /// - Returns: the keys.
    /// - Throws: everything ``allKeys()`` throws.
    public func allKeys() async throws(KeychainError) -> [String] {
        let keychain = try bound(.list)
        return try await Offload.run { () throws(KeychainError) in try keychain.allKeys() }
    }

    /// Async variant of ``allItems()-7jjmg``.
    /// - Returns: the items' attributes.
    /// - Throws: everything ``allItems()-7jjmg`` throws.
    public func allItems() async throws(KeychainError) -> [KeychainItem] {
        let keychain = try bound(.list)
        return try await Offload.run { () throws(KeychainError) in try keychain.allItems() }
    }

    /// Async variant of ``set(_:forKey:)-25sr5``.
    /// - Parameters:
    ///   - data: the secret.
    ///   - key: the item's key (account).
    /// - Throws: everything ``set(_:forKey:)-25sr5`` throws.
    public func set(_ data: Data, forKey key: String) async throws(KeychainError) {
        let keychain = try bound(.set)
        try await Offload.run { () throws(KeychainError) in try keychain.set(data, forKey: key) }
    }

    /// Async variant of ``set(_:forKey:)-5qzke``.
    /// - Parameters:
    ///   - string: the secret text.
    ///   - key: the item's key (account).
    /// - Throws: everything ``set(_:forKey:)-25sr5`` throws.
    public func set(_ string: String, forKey key: String) async throws(KeychainError) {
        let keychain = try bound(.set)
        try await Offload.run { () throws(KeychainError) in try keychain.set(string, forKey: key) }
    }

    /// Async variant of ``set(_:forKey:)-70b4y``.
    /// - Parameters:
    ///   - value: the value to encode as JSON.
    ///   - key: the item's key (account).
    /// - Throws: everything ``set(_:forKey:)-70b4y`` throws.
    public func set<Value: Encodable & Sendable>(_ value: Value, forKey key: String) async throws(KeychainError) {
        let keychain = try bound(.set)
        try await Offload.run { () throws(KeychainError) in try keychain.set(value, forKey: key) }
    }

    /// Async variant of ``remove(forKey:)-9589x``.
    /// - Parameter key: the item's key (account).
    /// - Throws: everything ``remove(forKey:)-9589x`` throws.
    public func remove(forKey key: String) async throws(KeychainError) {
        let keychain = try bound(.remove)
        try await Offload.run { () throws(KeychainError) in try keychain.remove(forKey: key) }
    }

    /// Async variant of ``removeAll()-34qmc``.
    /// - Returns: how many items were removed.
    /// - Throws: everything ``removeAll()-34qmc`` throws.
    @discardableResult
    public func removeAll() async throws(KeychainError) -> Int {
        let keychain = try bound(.removeAll)
        return try await Offload.run { () throws(KeychainError) in try keychain.removeAll() }
    }
}
