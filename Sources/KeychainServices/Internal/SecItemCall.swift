import Foundation
internal import KeychainCore
internal import KeychainItems

/// Shared steps of the four SecItem functions: status mapping, access groups, queries, result shapes.
enum SecItemCall {
    /// Runs `body`, stores its result, and turns any failure into its `OSStatus`.
    static func run(
        _ result: UnsafeMutablePointer<CFTypeRef?>?, _ body: () throws(KeychainFailure) -> AnyObject?
    ) -> OSStatus {
        do {
            let value = try body()
            if let value { result?.pointee = value }
            return errSecSuccess
        } catch {
            result?.pointee = nil
            return error.status.rawValue
        }
    }

    static func parse(_ dictionary: NSDictionary, _ operation: SecItemRequest.Operation) throws(KeychainFailure)
        -> SecItemRequest
    {
        do { return try SecItemRequest.parse(dictionary, for: operation) } catch { throw KeychainFailure(error) }
    }

    /// The engine query for a parsed copy, update or delete; its access groups are the gateway's
    /// (``ItemGateway/searchScope(named:)``).
    static func query(_ request: SecItemRequest, _ gateway: ItemGateway) throws(KeychainFailure) -> ItemQuery {
        let groups = try gateway.searchScope(named: request.accessGroup)
        var filters = request.attributes
        if var reference = request.valueRef {
            // An identity stands for its certificate's primary key.
            if let identity = reference as? SecIdentity { reference = identity.certificate }
            for (name, value) in try SecItemRefs.filters(for: reference, request.itemClass) { filters[name] = value }
        }
        // A query by persistent reference skips the implicit non-synchronizable filter (rule 13).
        let synchronizable: Synchronizable = request.persistentRef != nil ? .any : request.synchronizable ?? .no
        return ItemQuery(
            itemClass: request.itemClass, filters: filters, scope: groups, synchronizable: synchronizable,
            protection: request.protection, persistentRef: request.persistentRef, limit: nil)
    }

    /// What to decrypt. Reading secrets also reads the access control, among the attributes: an item's
    /// constraints decide whether the secret may be returned. Without `kSecReturnAttributes` only that
    /// entry is read (``ItemProjection/accessControl``), not every attribute.
    ///
    /// Built with `insert` only: an array literal of an `ItemProjection` (another module's option set) is
    /// made through the unspecialized `SetAlgebra.init(_:)`, about 1,400 instructions each.
    static func projection(_ request: SecItemRequest) -> ItemProjection {
        var projection = ItemProjection(rawValue: 0)
        if request.returnAttributes { projection.insert(.attributes) }
        if request.returnData {
            projection.insert(.secret)
            projection.insert(.accessControl)
        }
        // A reference is rebuilt from the key's type and class and its data (the DER of a certificate).
        if needsReferences(request) {
            projection.insert(.attributes)
            projection.insert(.secret)
        }
        // A key's data is returned only when it is extractable (`extr`, among the attributes).
        if request.returnData && request.itemClass == .key { projection.insert(.attributes) }
        // An identity joins on the certificate's public key hash.
        if request.isIdentity { projection.insert(.attributes) }
        // The attributes go straight from the item record into the result dictionaries (``shape``) when
        // nothing else reads them: not for keys (extractability and the Secure Enclave token), identity
        // joins, references or item lists, which read the decoded attributes.
        if request.returnAttributes && request.itemClass != .key && !request.isIdentity && !needsReferences(request)
            && request.itemList == nil
        {
            projection.insert(.record)
        }
        return projection
    }

    /// Whether the items' references are needed: for `kSecReturnRef`, or to compare them with a
    /// `kSecMatchItemList` of references.
    static func needsReferences(_ request: SecItemRequest) -> Bool {
        guard SecItemRefs.hasReferences(request.itemClass) else { return false }
        return request.returnRef || (request.itemList?.contains { !($0 is NSData) } ?? false)
    }

    /// The items of `items` that `kSecMatchItemList` names (by reference or persistent reference), all
    /// of them without one.
    /// - Returns: the items kept, and the references built to compare them with the list's, by
    ///   persistent reference, for ``references(_:_:_:built:)`` to return instead of building them again.
    static func inItemList(_ items: [StoredItem], _ request: SecItemRequest, identityKeys: [[UInt8]: SecKey])
        -> (items: [StoredItem], references: [[UInt8]: AnyObject])
    {
        guard let list = request.itemList else { return (items, [:]) }
        let persistentRefs = Set(list.compactMap { ($0 as? NSData).map(SecItemRequest.bytes(of:)) })
        let references = list.filter { !($0 is NSData) }
        var built: [[UInt8]: AnyObject] = [:]
        let kept = items.filter { item in
            if persistentRefs.contains(item.persistentRef) { return true }
            guard !references.isEmpty, let reference = reference(item, request, identityKeys) else { return false }
            built[item.persistentRef] = reference
            return references.contains { same($0, reference) }
        }
        return (kept, built)
    }

    /// The reference of an item: a `SecIdentity` for an identity, else ``SecItemRefs/reference(_:)``.
    static func reference(_ item: StoredItem, _ request: SecItemRequest, _ identityKeys: [[UInt8]: SecKey])
        -> AnyObject?
    {
        guard request.isIdentity else { return SecItemRefs.reference(item) }
        guard let secret = item.secret, let certificate = SecItemRefs.certificate(secret),
            let key = identityKeys[item.persistentRef]
        else { return nil }
        return SecIdentity(certificate: certificate, privateKey: key)
    }

    /// `CFEqual` of two references.
    static func same(_ lhs: AnyObject, _ rhs: AnyObject) -> Bool {
        switch (lhs, rhs) {
        case (let a as SecKey, let b as SecKey): a == b && a.key.isPrivate == b.key.isPrivate
        case (let a as SecCertificate, let b as SecCertificate): a == b
        case (let a as SecIdentity, let b as SecIdentity): a == b
        default: false
        }
    }

    /// `kSecAttrIsExtractable = false` keys give no data: `kSecReturnData` on one is
    /// `errSecInteractionNotAllowed`, the status `SecKeyCopyExternalRepresentation` gives for such a
    /// key (SecKey.h: a non-extractable key's bytes cannot leave the keychain). A Secure Enclave (TPM)
    /// key is never extractable, whatever its `extr` attribute was later set to: its data is the TPM blob.
    static func checkExtractable(_ items: [StoredItem], _ request: SecItemRequest) throws(KeychainFailure) {
        guard request.returnData, request.itemClass == .key else { return }
        for item in items {
            if item.attributes[.tokenID] == .string(EnclaveKey.tokenID) {
                throw KeychainFailure(
                    .interactionNotAllowed, "a Secure Enclave key's private part never leaves the TPM")
            }
            if case .bool(false)? = item.attributes[.isExtractable] {
                throw KeychainFailure(
                    .interactionNotAllowed, "the key is not extractable (kSecAttrIsExtractable is false)")
            }
        }
    }

    /// The items `query` finds for `request`, narrowed by `narrowing` (identity joins, item lists, the
    /// limit); when their data or references are asked for, read with their secrets and released by the
    /// gateway through `authorizer` (``ItemGateway/search(_:projection:release:refusal:narrowing:)``):
    /// access-controlled ones are authorized (asking the user when the call allows it) or, under
    /// `kSecUseAuthenticationUISkip`, left out. Only secrets are guarded: attributes of access-controlled
    /// items are readable, as on iOS. `authorizer` is the call's one ``AccessAuthorizer``
    /// (``authorizer(_:_:)``), so that what the user proved earlier in the call (the application password
    /// `SecItemAdd` asked for) is not asked again.
    /// - Parameter narrowing: given the items found and, when secrets are read, the release's reads.
    static func search(
        _ query: ItemQuery, _ request: SecItemRequest, _ gateway: ItemGateway, _ authorizer: inout AccessAuthorizer,
        narrowing: ([StoredItem], ItemGateway.SecretReads?) throws(KeychainFailure) -> [StoredItem]
    ) throws(KeychainFailure) -> [StoredItem] {
        let projection = Self.projection(request)
        guard projection.contains(.secret) else {
            return try narrowing(try gateway.search(query, projection: projection), nil)
        }
        return try gateway.search(query, projection: projection, release: &authorizer) {
            (found, reads) throws(KeychainFailure) -> [StoredItem] in
            try narrowing(found, reads)
        }
    }

    /// The access authorizer of one SecItem call: its context (`kSecUseAuthenticationContext`), UI
    /// (`kSecUseAuthenticationUI`) and prompt text (`kSecUseOperationPrompt`). A call makes one and uses
    /// it throughout, since an authorizer asks at most once for each kind of proof.
    static func authorizer(_ request: SecItemRequest, _ gateway: ItemGateway) -> AccessAuthorizer {
        AccessAuthorizer(
            keystore: gateway.keystore, context: request.authenticationContext, ui: request.authenticationUI,
            reason: request.operationPrompt)
    }

    /// Before an update changes protection or access control: every matching access-controlled item's
    /// current constraints must be satisfied (with `kSecUseAuthenticationUISkip` too: nothing is
    /// skipped silently in an update), and new `.applicationPassword` constraints get their verifier.
    static func authorizeProtectionChange(
        _ search: ItemQuery, _ request: SecItemRequest, _ attributes: inout [String: AttributeValue],
        _ gateway: ItemGateway
    ) throws(KeychainFailure) {
        var authorizer = Self.authorizer(request, gateway)
        for item in try gateway.search(search, projection: .attributes) {
            guard let constraints = item.constraints, constraints.requiresAuthentication else { continue }
            guard try authorizer.authorize(constraints) else {
                throw KeychainFailure(
                    .interactionNotAllowed, "the item needs authentication to change its access control")
            }
        }
        if case .data(let bytes)? = attributes[.accessControl],
            let new = AccessConstraints(encoded: bytes), new.needsApplicationPassword
        {
            let password = try authorizer.applicationPasswordForNewItem()
            attributes[.accessControl] = .data(
                AccessConstraints(rawValue: new.rawValue, applicationPassword: password).encoded)
        }
    }

    /// Builds the result object Apple returns for these items and return keys.
    ///
    /// Builds each `NSDictionary` from Foundation objects and interned `NSString` keys directly: going
    /// through a `[String: Any]` and `NSDictionary(dictionary:)` boxed and dynamically cast every key and
    /// value (≈75k instructions per item, most of an enumeration; keychain-bench issue 7). The objects are
    /// the ones bridging made (`NSString`, `NSData`, `NSNumber`, `NSDate`), so callers see the same result.
    /// The objects `kSecReturnRef` returns for `items` (`nil` when it is not asked for), in order.
    /// - Throws: `.decode` when an item's data does not make its object (a key item added as data that
    ///   is not a key of its `kSecAttrKeyType` and `kSecAttrKeyClass`).
    /// - Parameter built: references already built for these items (``inItemList(_:_:identityKeys:)``),
    ///   by persistent reference; they are returned as they are, not built again.
    static func references(
        _ items: [StoredItem], _ request: SecItemRequest, _ identityKeys: [[UInt8]: SecKey],
        built: [[UInt8]: AnyObject] = [:]
    ) throws(KeychainFailure) -> [AnyObject]? {
        guard request.returnRef && SecItemRefs.hasReferences(request.itemClass) else { return nil }
        var references: [AnyObject] = []
        references.reserveCapacity(items.count)
        for item in items {
            guard let reference = built[item.persistentRef] ?? reference(item, request, identityKeys) else {
                throw KeychainFailure(
                    .decode, "an item's data does not make the key or certificate its attributes name")
            }
            references.append(reference)
        }
        return references
    }

    /// The result object for `items` (see the note above ``references(_:_:_:built:)``): an item found with
    /// its record (``ItemProjection/record``) has its attributes made straight from the record's entries.
    /// - Throws: `.decode` when an item record does not decode (a value that is not UTF-8, a repeated
    ///   attribute), as a search that decodes it would.
    static func shape(_ items: [StoredItem], _ request: SecItemRequest, references: [AnyObject]? = nil)
        throws(KeychainFailure) -> AnyObject
    {
        let returnRef = references != nil
        // Counted without an array (two allocations a call).
        let returned = (request.returnData ? 1 : 0) + (request.returnPersistentRef ? 1 : 0) + (returnRef ? 1 : 0)
        let single = !request.returnAttributes && returned == 1
        func one(_ index: Int) throws(KeychainFailure) -> AnyObject {
            let item = items[index]
            let reference = references?[index]
            if single && returnRef, let reference { return reference }
            if single {
                return request.returnData ? dataObject(item) : dataObject(item.persistentRef)
            }
            var keys: [NSObject] = []
            var objects: [AnyObject] = []
            let capacity =
                (request.returnAttributes ? (item.record.map { Int($0[1]) } ?? item.attributes.count) + 2 : 0) + 2
            keys.reserveCapacity(capacity)
            objects.reserveCapacity(capacity)
            if request.returnAttributes {
                keys.append(Keys.intern("class"))
                objects.append((request.isIdentity ? "idnt" : item.itemClass.rawValue)._bridgeToObjectiveC())
                if let record = item.record {
                    // In one pass from the record: no Swift dictionary, keys by attribute number.
                    let wellFormed = ItemRecordFormat.forEachEntry(in: record) { number, name, value in
                        guard
                            name != AttributeName.accessControl.rawValue
                                && name != AttributeName.trustedApplications.rawValue
                        else { return }
                        keys.append(number == 0 ? Keys.intern(name) : Keys.numbered[Int(number)])
                        objects.append(foundationObject(value))
                    }
                    guard wellFormed else { throw KeychainFailure(.decode, "an item's attributes do not decode") }
                } else {
                    for (name, value) in item.attributes
                    where name != AttributeName.accessControl.rawValue
                        && name != AttributeName.trustedApplications.rawValue
                    {
                        keys.append(Keys.intern(name))
                        objects.append(foundationObject(value))
                    }
                }
                // Since iOS 11.3 every item's attributes carry kSecAttrAccessControl, derived from its
                // accessibility when it has no constraints.
                keys.append(Keys.intern(AttributeName.accessControl.rawValue))
                objects.append(SecAccessControl(item: item))
            }
            if request.returnData {
                keys.append(Keys.intern("v_Data"))
                objects.append(dataObject(item))
            }
            if let reference {
                keys.append(Keys.intern("v_Ref"))
                objects.append(reference)
            }
            if request.returnPersistentRef {
                keys.append(Keys.intern("v_PersistentRef"))
                objects.append(dataObject(item.persistentRef))
            }
            // The pointer initializer: the array one takes `[Any]` and boxes and casts every object again.
            return objects.withUnsafeBufferPointer { objects in
                keys.withUnsafeBufferPointer { keys in
                    NSDictionary(objects: objects.baseAddress, forKeys: keys.baseAddress, count: keys.count)
                }
            }
        }
        if request.matchLimit?.returnsArray == true {
            var array: [AnyObject] = []
            array.reserveCapacity(items.count)
            for index in items.indices { array.append(try one(index)) }
            return NSArray(array: array)
        }
        return try one(0)
    }

    /// The `NSData` of an item's secret (empty when it has none), made once from the opened buffer: a
    /// `Data` first and then its `NSData` copied the bytes twice and allocated twice (issue 29).
    static func dataObject(_ item: StoredItem) -> NSData {
        guard let secret = item.secret, secret.count > 0 else { return NSData() }
        return secret.withUnsafeBytes { NSData(bytes: $0.baseAddress, length: $0.count) }
    }

    /// The `NSData` of engine bytes (a persistent reference, a data attribute), copied once: the object
    /// bridging a `Data` made, without a `Data` first.
    static func dataObject(_ bytes: [UInt8]) -> NSData {
        bytes.withUnsafeBytes { NSData(bytes: $0.baseAddress, length: $0.count) }
    }

    /// The Foundation object that bridging the value's Swift type (`String`, `Data`, `Date`) made; a
    /// boolean is the shared `kCFBooleanTrue` or `kCFBooleanFalse` (an `NSNumber`, as Apple returns
    /// `CFBoolean`s), not a new `NSNumber` per item.
    static func foundationObject(_ value: AttributeValue) -> AnyObject {
        switch value {
        case .string(let s): s._bridgeToObjectiveC()
        case .data(let d): dataObject(d)
        case .integer(let i): NSNumber(value: i)
        case .bool(let b): b ? kCFBooleanTrue : kCFBooleanFalse
        case .date(let d): NSDate(timeIntervalSinceReferenceDate: d.secondsSinceReferenceDate)
        }
    }

    /// The Foundation object of a value read from an item record (``ItemRecordFormat/forEachEntry(in:_:)``):
    /// the same objects as `foundationObject` of the `AttributeValue`, made directly (data and dates without
    /// a `Data` or `Date` first).
    static func foundationObject(_ value: ItemRecordFormat.EntryValue) -> AnyObject {
        switch value {
        case .string(let s): s._bridgeToObjectiveC()
        case .data(let bytes): NSData(bytes: bytes.baseAddress, length: bytes.count)
        case .integer(let i): NSNumber(value: i)
        case .bool(let b): b ? kCFBooleanTrue : kCFBooleanFalse
        case .date(let seconds): NSDate(timeIntervalSinceReferenceDate: seconds)
        }
    }

    /// Result keys as `NSString`s made once: attribute names are a small fixed set.
    enum Keys {
        // Immutable after initialization and NSString is immutable, so sharing it across threads is safe.
        nonisolated(unsafe) private static let table: [String: NSString] = {
            var names = ["class", "v_Data", "v_PersistentRef", "v_Ref"]
            for itemClass in ItemClass.allCases { names += itemClass.attributes.map(\.name) }
            return Dictionary(names.map { ($0, $0._bridgeToObjectiveC()) }) { first, _ in first }
        }()

        static func intern(_ name: String) -> NSString { table[name] ?? name._bridgeToObjectiveC() }

        /// The keys of the item record's numbered attributes, by number (``ItemRecordFormat/attributeNames``;
        /// 0, named attributes, is unused). Immutable after initialization, as ``table``.
        nonisolated(unsafe) static let numbered: [NSString] = ItemRecordFormat.attributeNames.map {
            intern($0.rawValue)
        }
    }
}

extension KeychainFailure {
    init(_ status: KeychainStatus) { self.init(status, nil) }
}
