public import Foundation
internal import KeychainCore

// Apple's four SecItem functions, with iOS (data-protection keychain) semantics.
// They are `@discardableResult` because Swift imports Apple's C functions as discardable: iOS code such as
// `SecItemDelete(query as CFDictionary)` compiles there without a warning, and must here too.
// Source of each rule: SecItem.h comments and Apple's securityd (SecItemServer.c); see
// docs/ARCHITECTURE.md and the conformance suite in Tests/KeychainServicesTests.

/// Adds one or more items to a keychain.
///
/// Follows Apple's `SecItemAdd` (https://developer.apple.com/documentation/security/secitemadd).
/// Missing primary-key attributes default to `""` or 0, `kSecAttrAccessible` to
/// `kSecAttrAccessibleWhenUnlocked`, and the access group to the first of the process's groups.
///
/// Keys and certificates (tracker issue 18): `kSecValueRef` with a `SecKey` (`kSecClassKey`) or a
/// `SecCertificate` (`kSecClassCertificate`) stores the object with the attributes Apple derives from
/// it (`SecKeyCopyAttributes`; `SecCertificateCopyAttributeDictionary`), the caller's given attributes
/// taking precedence; `kSecValueData` with `kSecAttrKeyType` and `kSecAttrKeyClass` stores key data
/// (attributes derived when it is such a key), and DER data stores a certificate. A `SecIdentity`
/// (`kSecClassIdentity`) adds its certificate and its private key in one transaction (a key already
/// stored is kept). Keys default to `kSecAttrAccessibleWhenUnlocked`, certificates to
/// `kSecAttrAccessibleAlways` (securityd).
///
/// - Parameters:
///   - attributes: `kSecClass`, the item's attributes, and `kSecValueData` (Data) for its secret, or
///     `kSecValueRef` for a key, certificate or identity.
///     Return keys ask for the new item back in `result`, shaped as for `SecItemCopyMatching`.
///   - result: receives the requested return values; `nil` when the caller does not need them (the
///     item is added and the return values dropped, as Apple's client does).
/// - Returns:
///   - `errSecSuccess` when the item was added;
///   - `errSecDuplicateItem` (-25299) when an item with the same primary key exists;
///   - `errSecParam` (-50) for a missing class, a wrongly typed value, a `kSecMatch…` key, a
///     `kSecValuePersistentRef`, `kSecReturnRef` as the only return key of a password, a
///     `kSecAttrAccessible` that contradicts `kSecAttrAccessControl`, a `kSecValueRef` of another
///     class (or on a password), certificate data that is not DER, or an identity without a
///     `SecIdentity`;
///   - `errSecNoSuchClass` (-25306) for an unknown class; `errSecNoSuchAttr` (-25303) for an
///     attribute of another class;
///   - `errSecDuplicateItem` for a key or certificate whose primary key exists (keys: class,
///     application label and tag, creator, type, sizes, dates; certificates: type, issuer, serial
///     number; both with access group and synchronizable), and for an identity whose certificate exists;
///   - `errSecInteractionNotAllowed` also for `kSecReturnData` on a key with `kSecAttrIsExtractable`
///     `false`;
///   - `errSecMissingEntitlement` (-34018) when the access group is not one of the process's groups,
///     or the process has none;
///   - `errSecDataTooLarge` (-25302) for a secret over 1 MiB;
///   - `errSecInteractionNotAllowed` (-25308) when the item's protection class is locked, or when
///     `kSecAttrAccessControl` has `.applicationPassword`, the context supplies none, and asking is not
///     allowed;
///   - `errSecInvalidKeychain`, `errSecWrongSecVersion`, `errSecDecode`, `errSecDiskFull` or
///     `errSecIO` when the keychain file cannot be used or written.
@discardableResult
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    SecItemCall.run(result) { () throws(KeychainFailure) -> AnyObject? in
        let request = try SecItemCall.parse(attributes, .add)
        let gateway = ItemGateway(try KeychainContext.current())
        var itemAttributes = request.itemAttributes
        // The gateway places the item (the named group when held, else the caller's first); a caller
        // that cannot add is refused before anything is asked.
        try gateway.checkPlacement(named: request.accessGroup)
        if let group = request.accessGroup { itemAttributes[.accessGroup] = .string(group) }
        // One authorizer for the whole call: the application password chosen for the new item also
        // releases its data for the return keys, without asking for it a second time.
        var authorizer = SecItemCall.authorizer(request, gateway)
        if let access = request.accessControl, !access.flags.isEmpty {
            var applicationPassword: SecureBytes?
            if access.flags.contains(.applicationPassword) {
                applicationPassword = try authorizer.applicationPasswordForNewItem()
            }
            itemAttributes[.accessControl] = access.storedValue(applicationPassword: applicationPassword)
        }
        let ref = try SecItemCall.add(request, itemAttributes, gateway)
        // Apple's client (SecItem.c, SecItemResultProcess) drops the result when the pointer is NULL.
        guard request.hasReturnKey, result != nil else { return nil }
        let query = ItemQuery(
            itemClass: request.itemClass, scope: try gateway.searchScope(named: request.accessGroup),
            synchronizable: .any, persistentRef: ref, limit: 1)
        var identityKeys: [[UInt8]: SecKey] = [:]
        let allowed = try SecItemCall.search(query, request, gateway, &authorizer) {
            (items, reads) throws(KeychainFailure) -> [StoredItem] in
            guard request.isIdentity else { return items }
            let joined = try SecItemCall.identities(items, request, gateway, reads)
            identityKeys = joined.keys
            return joined.records
        }
        guard !allowed.isEmpty else { throw KeychainFailure(.itemNotFound) }
        try SecItemCall.checkExtractable(allowed, request)
        let references = try SecItemCall.references(allowed, request, identityKeys)
        return try SecItemCall.shape(allowed, request, references: references)
    }
}

/// Returns one or more items that match a search query, or their attributes.
///
/// Follows Apple's `SecItemCopyMatching` (https://developer.apple.com/documentation/security/secitemcopymatching).
/// Access-controlled items (`kSecAttrAccessControl`) return their data only when their constraints are
/// satisfied: the keychain password, asked for through pinentry, stands in for the device passcode
/// (see the "Access control on Linux" article); their attributes need nothing.
/// Matching is exact and byte-wise; a `String` matches `Data` with the same UTF-8 bytes. Without
/// `kSecAttrSynchronizable` only non-synchronizable items match; `kSecAttrSynchronizableAny` matches
/// both. Without `kSecAttrAccessGroup` every group of the process is searched.
///
/// - Parameters:
///   - query: `kSecClass`, attributes to match, return keys, and `kSecMatchLimit`
///     (default `kSecMatchLimitOne`); or `kSecValuePersistentRef` alone.
///   - result: receives the result. Its shape: `Data` when only `kSecReturnData` or only
///     `kSecReturnPersistentRef` is set; a dictionary (`[String: Any]`, with `kSecValueData` and
///     `kSecValuePersistentRef` entries) when `kSecReturnAttributes` or several return keys are set;
///     an array of those under `kSecMatchLimitAll` or a numeric limit. Untouched without a return key.
///     May be `nil` with return keys: the search runs as asked (access-controlled data is still
///     authorized) and only the status is returned, as Apple's client (SecItem.c) drops the result.
/// - Returns:
///   - `errSecSuccess` when at least one item matched;
///   - `errSecItemNotFound` (-25300) when none did (never an empty array);
///   - `errSecInteractionNotAllowed` (-25308) when a matching candidate's protection class is locked
///     (never `errSecItemNotFound` for an item that exists), or when `kSecReturnData` meets an
///     access-controlled item that needs authentication and `kSecUseAuthenticationUI` is
///     `kSecUseAuthenticationUIFail`, the `kSecUseAuthenticationContext` forbids interaction, or no
///     prompt can be shown (no pinentry; no terminal and no display);
///   - `errSecAuthFailed` (-25293) when such an item's constraints cannot be satisfied here (biometry or
///     a watch only; a keychain without a password; an invalidated context) or after three wrong
///     passwords or a wrong application password; `errSecUserCanceled` (-128) when the user cancels;
///   - `errSecItemNotFound` also when `kSecUseAuthenticationUISkip` left out every match;
///   - `errSecParam` (-50) for a missing class, a wrongly typed value, an unknown limit, a persistent
///     reference combined with attributes, `kSecReturnRef` as the only return key, or a
///     `kSecAttrAccessControl` that is not a `SecAccessControl` or a
///     `kSecUseAuthenticationContext` that is not an `LAContext`;
///   - `errSecNoSuchClass`, `errSecNoSuchAttr` as for `SecItemAdd`;
///   - `errSecInteractionNotAllowed` for `kSecReturnData` on a key with `kSecAttrIsExtractable` `false`.
///
/// Keys, certificates and identities: `kSecReturnRef` returns `SecKey`, `SecCertificate` or
/// `SecIdentity` objects (alone: the object; with other return keys: `kSecValueRef` in the
/// dictionary); `kSecMatchItemList` (references or persistent references) keeps only those items;
/// `kSecValueRef` in the query matches the object's primary key; `kSecAttrIssuer` and
/// `kSecAttrSubject` are normalized as stored. `kSecClassIdentity` finds certificates whose public
/// key hash is the application label of a private key the caller can read; its attributes are the
/// key's with the certificate's added, and `kSecClass` is `kSecClassIdentity`.
///   - `errSecMissingEntitlement` (-34018) when the query names an access group the process does not hold;
///   - `errSecDecode` (-26275) when a matching item fails authentication (tampered file);
///   - keychain file statuses as for `SecItemAdd`.
@discardableResult
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    SecItemCall.run(result) { () throws(KeychainFailure) -> AnyObject? in
        let request = try SecItemCall.parse(query, .copy)
        let gateway = ItemGateway(try KeychainContext.current())
        var search = try SecItemCall.query(request, gateway)
        let limit = (request.matchLimit ?? .one).maximum
        // Item lists and identity joins filter after the search: the limit applies to what is left.
        let filtersLater = request.itemList != nil || request.isIdentity
        search.limit = filtersLater ? nil : limit
        var identityKeys: [[UInt8]: SecKey] = [:]
        var built: [[UInt8]: AnyObject] = [:]
        var authorizer = SecItemCall.authorizer(request, gateway)
        // Joins, item lists and the limit narrow what was found before any secret is released, so the
        // user is asked only about what the call returns.
        let items = try SecItemCall.search(search, request, gateway, &authorizer) {
            (found, reads) throws(KeychainFailure) -> [StoredItem] in
            var found = found
            if request.isIdentity { (found, identityKeys) = try SecItemCall.identities(found, request, gateway, reads) }
            // The references built to compare with the list are the ones kSecReturnRef returns: built once.
            let listed = SecItemCall.inItemList(found, request, identityKeys: identityKeys)
            built = listed.references
            found = listed.items
            if filtersLater, let limit { found = Array(found.prefix(limit)) }
            return found
        }
        guard !items.isEmpty else { throw KeychainFailure(.itemNotFound) }
        try SecItemCall.checkExtractable(items, request)
        // A NULL result with return keys is allowed: the search and its authorization run as asked and
        // the result is dropped (Apple's SecItem.c, SecItemResultProcess).
        guard request.hasReturnKey, result != nil else { return nil }
        let references = try SecItemCall.references(items, request, identityKeys, built: built)
        return try SecItemCall.shape(items, request, references: references)
    }
}

/// Modifies every item that matches a search query.
///
/// Follows Apple's `SecItemUpdate` (https://developer.apple.com/documentation/security/secitemupdate).
/// All matches are updated in one transaction; `kSecAttrModificationDate` is refreshed, the creation
/// date kept. Changing `kSecAttrAccessible` moves the item's key to the new protection class.
/// Changing the protection or access control of an access-controlled item first satisfies its
/// current constraints (asking the user as `SecItemCopyMatching` would), so constraints cannot be
/// removed without them.
///
/// - Parameters:
///   - query: `kSecClass` and attributes to match (no `kSecMatch…` or return keys).
///   - attributesToUpdate: class attributes and/or `kSecValueData`.
/// - Returns:
///   - `errSecSuccess` when at least one item was updated;
///   - `errSecItemNotFound` (-25300) when nothing matched;
///   - `errSecDuplicateItem` (-25299) when the change would give an item another item's primary key
///     (nothing is changed);
///   - `errSecParam` (-50) for a `kSecMatch…` or return key in the query, an empty or wrongly typed
///     change, or `kSecAttrSynchronizableAny` as a new value;
///   - `errSecNoSuchAttr` (-25303) for a key in `attributesToUpdate` that is not an attribute of the
///     class, including `kSecClass`;
///   - `errSecMissingEntitlement` (-34018) when either dictionary names a group the process does not hold;
///   - `errSecAuthFailed`, `errSecUserCanceled` when changing an access-controlled item's protection
///     fails authentication (see `SecItemCopyMatching`);
///   - `errSecUnimplemented` (-4) for `kSecClassIdentity` (update its certificate or its key);
///   - `errSecInteractionNotAllowed`, `errSecDecode` and keychain file statuses as above.
@discardableResult
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
    SecItemCall.run(nil) { () throws(KeychainFailure) -> AnyObject? in
        let request = try SecItemCall.parse(query, .update)
        let changes: (attributes: [String: AttributeValue], secret: SecureBytes?)
        do throws(KeychainStatus) {
            changes = try SecItemRequest.parseChanges(attributesToUpdate, itemClass: request.itemClass)
        } catch {
            throw KeychainFailure(error)
        }
        if changes.attributes.isEmpty && changes.secret == nil { throw KeychainFailure(.param) }
        let gateway = ItemGateway(try KeychainContext.current())
        if let group = ItemGateway.namedGroup(changes.attributes) { try gateway.checkHeld(group) }
        // Changing an identity would change two items; iOS code updates the certificate or the key.
        if request.isIdentity {
            throw KeychainFailure(.unimplemented, "update the certificate or the key of an identity")
        }
        let search = try SecItemCall.query(request, gateway)
        var attributes = changes.attributes
        if attributes[.accessControl] != nil || attributes[.accessible] != nil {
            try SecItemCall.authorizeProtectionChange(search, request, &attributes, gateway)
        }
        let count = try gateway.update(search, changes: attributes, secret: changes.secret)
        guard count > 0 else { throw KeychainFailure(.itemNotFound) }
        return nil
    }
}

/// Deletes every item that matches a search query.
///
/// Follows Apple's `SecItemDelete` (https://developer.apple.com/documentation/security/secitemdelete):
/// on iOS it deletes all matches, in one transaction.
///
/// `kSecClassIdentity` deletes each matching identity's certificate and private key together.
///
/// - Parameter query: `kSecClass` and attributes to match (no `kSecMatch…` or return keys), or
///   `kSecValuePersistentRef` alone, or `kSecValueRef` (a key's or certificate's primary key).
/// - Returns:
///   - `errSecSuccess` when at least one item was deleted;
///   - `errSecItemNotFound` (-25300) when nothing matched;
///   - `errSecParam` (-50) for a `kSecMatch…` or return key, or a wrongly typed value;
///   - `errSecMissingEntitlement`, `errSecInteractionNotAllowed`, `errSecDecode` and keychain file
///     statuses as above.
@discardableResult
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    SecItemCall.run(nil) { () throws(KeychainFailure) -> AnyObject? in
        let request = try SecItemCall.parse(query, .delete)
        let gateway = ItemGateway(try KeychainContext.current())
        let search = try SecItemCall.query(request, gateway)
        let count =
            request.isIdentity
            ? try SecItemCall.deleteIdentities(search, request, gateway) : try gateway.delete(search)
        guard count > 0 else { throw KeychainFailure(.itemNotFound) }
        return nil
    }
}
