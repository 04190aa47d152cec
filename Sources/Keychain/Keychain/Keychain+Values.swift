public import Foundation
internal import KeychainCore

extension Keychain {
    // MARK: - Public: reading

    /// The bytes stored for `key`, or `nil` when the key has no item.
    ///
    /// - Parameter key: the item's key (account).
    /// - Returns: the secret, or `nil` when no item of this scope, group and synchronizable state has the key.
    /// - Throws: ``KeychainError`` with ``KeychainError/Code/interactionNotAllowed`` when the item's
    ///   protection class is locked; ``KeychainError/Code/missingEntitlement`` when the named access
    ///   group is not held or the process has none; ``KeychainError/Code/decode`` when the stored item
    ///   fails authentication; any other engine status unchanged.
    public func data(forKey key: String) throws(KeychainError) -> Data? {
        try secret(forKey: key, .get).map { secret in secret.withUnsafeBytes { Data($0) } }
    }

    /// The UTF-8 text stored for `key`, or `nil` when the key has no item.
    ///
    /// - Parameter key: the item's key (account).
    /// - Returns: the text, or `nil` when there is no item.
    /// - Throws: ``KeychainError/Code/decode`` when the stored bytes are not valid UTF-8, and
    ///   everything ``data(forKey:)-7gokz`` throws.
    public func string(forKey key: String) throws(KeychainError) -> String? {
        guard let secret = try secret(forKey: key, .get) else { return nil }
        guard let string = secret.withUnsafeBytes({ String(validating: $0, as: UTF8.self) }) else {
            throw KeychainError(.decode, operation: .get, detail: "the stored value is not UTF-8 text")
        }
        return string
    }

    /// The value stored for `key` with ``set(_:forKey:)-70b4y``, decoded from JSON.
    ///
    /// ```swift
    /// struct Session: Codable { var token: String; var expires: Date }
    /// let session = try keychain.value(Session.self, forKey: "session")
    /// ```
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - key: the item's key (account).
    /// - Returns: the decoded value, or `nil` when there is no item.
    /// - Throws: ``KeychainError/Code/decode`` when the stored bytes do not decode as `type` (the
    ///   decoder's message is not included: it could quote the secret), and everything
    ///   ``data(forKey:)-7gokz`` throws.
    public func value<Value: Decodable>(_ type: Value.Type = Value.self, forKey key: String) throws(KeychainError)
        -> Value?
    {
        guard let data = try data(forKey: key) else { return nil }
        do {
            return try JSONDecoder().decode(Value.self, from: data)
        } catch {
            throw KeychainError(.decode, operation: .get, detail: "the stored value does not decode as \(Value.self)")
        }
    }

    /// The UTF-8 text stored for `key`, or `nil`: `try keychain["token"]`.
    ///
    /// Read-only, so that a failed write can never be silently dropped; use ``set(_:forKey:)-5qzke``
    /// and ``remove(forKey:)-9589x`` to change items.
    /// - Parameter key: the item's key (account).
    /// - Returns: the text, or `nil` when there is no item.
    /// - Throws: everything ``string(forKey:)-3xxvk`` throws.
    public subscript(key: String) -> String? {
        get throws(KeychainError) { try string(forKey: key) }
    }

    /// Whether an item exists for `key`. The secret is not decrypted.
    ///
    /// - Parameter key: the item's key (account).
    /// - Returns: `true` when an item of this scope, group and synchronizable state has the key.
    /// - Throws: ``KeychainError/Code/interactionNotAllowed`` when the item's class is locked (an
    ///   existing item is never reported missing); ``KeychainError/Code/missingEntitlement``; any other status.
    public func contains(_ key: String) throws(KeychainError) -> Bool {
        try perform(.contains) { (gateway) throws(KeychainFailure) -> Bool in
            let query = try query(gateway, key: key, synchronizable: Synchronizable(isSynchronizable), limit: 1)
            return !(try gateway.search(query, projection: []).isEmpty)
        }
    }

    /// The keys of every item in this scope, group and synchronizable state, each once, in the order
    /// the items were added.
    ///
    /// - Returns: the keys; empty when there are none.
    /// - Throws: ``KeychainError/Code/interactionNotAllowed`` when an item's class is locked;
    ///   ``KeychainError/Code/missingEntitlement``; any other status.
    public func allKeys() throws(KeychainError) -> [String] {
        var seen = Set<String>()
        return try allItems().map(\.key).filter { seen.insert($0).inserted }
    }

    /// The attributes (never the secrets) of every item in this scope, group and synchronizable state.
    ///
    /// - Returns: one ``KeychainItem`` per item, in the order they were added; empty when there are none.
    /// - Throws: ``KeychainError/Code/interactionNotAllowed`` when an item's class is locked;
    ///   ``KeychainError/Code/missingEntitlement``; any other status.
    public func allItems() throws(KeychainError) -> [KeychainItem] {
        try perform(.list) { (gateway) throws(KeychainFailure) -> [KeychainItem] in
            let query = try query(gateway, key: nil, synchronizable: Synchronizable(isSynchronizable))
            return try gateway.search(query, projection: .attributes).map(KeychainItem.init)
        }
    }

    // MARK: - Public: writing

    /// Stores `data` for `key`: updates the item in place when it exists, adds it otherwise.
    ///
    /// One write transaction, never a delete followed by an add, so concurrent readers in any process
    /// see the old value or the new one, and concurrent writers never fail with a duplicate. An
    /// existing item keeps its creation date and persistent reference and takes this keychain's
    /// accessibility, label and comment. Without an access group, the key is updated in every group
    /// of the process that has it, and added to the default group when none has.
    /// - Parameters:
    ///   - data: the secret.
    ///   - key: the item's key (account).
    /// - Throws: ``KeychainError/Code/param`` for a synchronizable keychain with a `ThisDeviceOnly`
    ///   accessibility; ``KeychainError/Code/dataTooLarge`` above 1 MiB;
    ///   ``KeychainError/Code/interactionNotAllowed`` when a class key involved is locked;
    ///   ``KeychainError/Code/missingEntitlement``; any other status.
    public func set(_ data: Data, forKey key: String) throws(KeychainError) {
        try upsert(SecureBytes(copying: data), forKey: key)
    }

    /// Stores `string` as UTF-8 for `key`. See ``set(_:forKey:)-25sr5``.
    /// - Parameters:
    ///   - string: the secret text.
    ///   - key: the item's key (account).
    /// - Throws: everything ``set(_:forKey:)-25sr5`` throws.
    public func set(_ string: String, forKey key: String) throws(KeychainError) {
        try upsert(SecureBytes(copying: Array(string.utf8)), forKey: key)
    }

    /// Stores `value` encoded as JSON for `key`. See ``set(_:forKey:)-25sr5``.
    ///
    /// `String` and `Data` arguments use their own overloads (UTF-8 text and raw bytes); read them
    /// back with ``string(forKey:)-3xxvk`` and ``data(forKey:)-7gokz``, not ``value(_:forKey:)-1ocp8``.
    /// - Parameters:
    ///   - value: the value to encode with `JSONEncoder`.
    ///   - key: the item's key (account).
    /// - Throws: ``KeychainError/Code/param`` when `value` cannot be encoded, and everything
    ///   ``set(_:forKey:)-25sr5`` throws.
    public func set<Value: Encodable>(_ value: Value, forKey key: String) throws(KeychainError) {
        let data: Data
        do {
            data = try JSONEncoder().encode(value)
        } catch {
            throw KeychainError(.param, operation: .set, detail: "the value cannot be encoded as JSON")
        }
        try set(data, forKey: key)
    }

    /// Removes the item for `key`. Removing a missing key succeeds.
    ///
    /// - Parameter key: the item's key (account).
    /// - Throws: ``KeychainError/Code/interactionNotAllowed`` when the item's class is locked;
    ///   ``KeychainError/Code/missingEntitlement``; any other status. Never
    ///   ``KeychainError/Code/itemNotFound``.
    public func remove(forKey key: String) throws(KeychainError) {
        try perform(.remove) { (gateway) throws(KeychainFailure) in
            _ = try gateway.delete(try query(gateway, key: key, synchronizable: Synchronizable(isSynchronizable)))
        }
    }

    /// Removes every item of this keychain's scope (its service, or its server, protocol and
    /// authentication type) in its access group (or every group the process holds), whether
    /// synchronizable or not. Items of other services or servers are never touched.
    ///
    /// - Returns: how many items were removed (0 is not an error).
    /// - Throws: ``KeychainError/Code/interactionNotAllowed`` when an item's class is locked;
    ///   ``KeychainError/Code/missingEntitlement``; any other status.
    @discardableResult
    public func removeAll() throws(KeychainError) -> Int {
        try perform(.removeAll) { (gateway) throws(KeychainFailure) -> Int in
            try gateway.delete(try query(gateway, key: nil, synchronizable: .any))
        }
    }
}
