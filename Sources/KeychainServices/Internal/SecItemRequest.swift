import Foundation
internal import KeychainCore
internal import KeychainCrypto

/// A SecItem dictionary, validated and typed. This is the one place where string-keyed
/// dictionaries become engine values; every rule it enforces cites its source.
///
/// Sources: SecItem.h comments [H]; securityd `SecItemServer.c` [S]; `SecBasePriv.h` [BP], which maps
/// the internal `errSecItem…` codes to `errSecParam`; macOS's `SecItem.cpp` (libsecurity_keychain) [M],
/// whose data-protection path wrappers reach through their macOS branches (`#if os(iOS)` is false here).
struct SecItemRequest {
    enum Operation { case add, copy, update, delete }

    var itemClass: ItemClass
    /// Class attributes by raw name, typed; the access group, protection class and synchronizable
    /// state are in their own typed fields (``itemAttributes`` has them all).
    var attributes: [String: AttributeValue] = [:]
    /// `kSecAttrAccessGroup`, when given.
    var accessGroup: String?
    /// `kSecAttrAccessible` (or the protection of `kSecAttrAccessControl`), parsed once; `nil` when
    /// not given.
    var protection: ProtectionClass?
    /// `kSecAttrSynchronizable`, with `kSecAttrSynchronizableAny`; `nil` when not given.
    var synchronizable: Synchronizable?
    var secret: Data?
    /// `kSecValuePersistentRef`: the bytes of its `CFData`.
    var persistentRef: [UInt8]?
    /// `kSecMatchLimit`; `nil` = not given (one for copy, all for update and delete).
    var matchLimit: MatchLimit?
    var returnData = false
    var returnAttributes = false
    var returnPersistentRef = false
    /// `kSecReturnRef`: a password has no reference, so with other return keys it adds nothing
    /// (securityd's result handling gives no `v_Ref` for passwords).
    var returnRef = false
    /// `kSecValueRef`: a `SecKey`, `SecCertificate` or `SecIdentity` to add, or to find (its primary key).
    var valueRef: AnyObject?
    /// `kSecMatchItemList` (copy only): results are limited to these references or persistent references.
    var itemList: [AnyObject]?
    /// `kSecClassIdentity`: ``itemClass`` is `.certificate` and the call joins each certificate with the
    /// private key whose application label is its public key hash.
    var isIdentity = false
    /// Key attributes of a `kSecClassIdentity` query (an identity has the attributes of both its
    /// certificate and its private key): filters on the joined key.
    var identityKeyFilters: [String: AttributeValue] = [:]
    /// `kSecAttrAccessControl`: its protection class becomes `pdmn`; on add and update its
    /// constraints are kept with the item.
    var accessControl: SecAccessControl?
    /// `kSecUseAuthenticationUI` (or the deprecated `kSecUseNoAuthenticationUI`).
    var authenticationUI: AccessAuthorizer.UI = .allow
    /// `kSecUseAuthenticationContext`: an `LAContext`'s engine context.
    var authenticationContext: AuthenticationContext?
    /// `kSecUseOperationPrompt`: shown when the user is asked.
    var operationPrompt: String?

    /// Whether a return key asks for something: `kSecReturnRef` counts only for keys, certificates and
    /// identities (a password has no reference).
    var hasReturnKey: Bool {
        returnData || returnAttributes || returnPersistentRef || (returnRef && SecItemRefs.hasReferences(itemClass))
    }

    /// The attributes a new item is stored with, or that a persistent-reference query must not
    /// have: ``attributes`` with the access group, the protection class and the synchronizable
    /// state (`kSecAttrSynchronizableAny` stores nothing: an add ignores it, APPLE-SEMANTICS rule 11).
    var itemAttributes: [String: AttributeValue] {
        var all = attributes
        if let accessGroup { all[.accessGroup] = .string(accessGroup) }
        if let protection { all[.accessible] = protection.attribute }
        if let synchronizable, synchronizable != .any { all[.synchronizable] = synchronizable.attribute }
        return all
    }

    /// The one parse of a `kSecAttrAccessible` value: one of Apple's raw values.
    /// - Throws: `.param` for anything else [S: an unknown accessibility is errSecParam].
    static func protection(_ value: Any) throws(KeychainStatus) -> ProtectionClass {
        guard let name = Self.string(value), let protection = ProtectionClass(rawValue: name) else { throw .param }
        return protection
    }

    /// The one key Apple accepts that changes nothing here: `kSecUseDataProtectionKeychain` (this keychain
    /// is the data-protection keychain). A literal matched by the parse's `switch`, not a `Set`: hashing
    /// every other key of every query to look it up cost about 300 instructions a key.
    static let ignoredKey = "nleg"

    /// Parses `dictionary` for `operation`.
    /// - Throws: the status Apple returns for the first rule broken (see each check).
    static func parse(_ dictionary: NSDictionary, for operation: Operation) throws(KeychainStatus) -> SecItemRequest {
        // [S] query_create: more than 128 keys is errSecParam.
        guard dictionary.count <= 128 else { throw .param }
        guard var query = entries(dictionary) else { throw .param }  // non-string keys [S]
        if operation == .update || operation == .delete {
            // [M] macOS's SecItemUpdate and SecItemDelete remove every kSecMatch… and kSecReturn… key
            // before the data-protection keychain sees the query (SecItem.cpp: SecItemCopyTranslatedAttributes
            // with pruneMatch and pruneReturn); iOS's securityd alone refuses them with errSecParam.
            // Removed here are the ones whose removal cannot widen the call: kSecMatchLimitAll (what
            // update and delete do anyway; wrappers' macOS branches send it), kSecMatchCaseInsensitive
            // (matching is byte-exact anyway) and the return keys. A limit of one or n, or an item list,
            // would act on more items than asked once removed, so they stay errSecParam and nothing is
            // lost (APPLE-SEMANTICS.md rule 6).
            // Most queries have none of them: the entries are rebuilt only when one may be there.
            if query.contains(where: { Self.startsWith($0.key, "r", "_") || Self.startsWith($0.key, "m", "_") }) {
                query.removeAll { entry in
                    Self.hasPrefix(entry.key, "r", "_") || entry.key == "m_CaseInsensitive"
                        || (entry.key == "m_Limit" && Self.string(entry.value) == "m_LimitAll")
                }
            }
        }

        // The three keys that decide how the others are read, found in one pass over the entries (by
        // index: each entry is read where it is, not copied out of the array).
        var classValue: Any?
        var persistentRef: Any?
        var valueRef: Any?
        for index in query.indices {
            switch query[index].key {
            case "class": classValue = query[index].value
            case "v_PersistentRef": persistentRef = query[index].value
            case "v_Ref": valueRef = query[index].value
            default: continue
            }
        }
        // The class: required, except in a persistent-reference query [H; S "query missing class name"].
        var itemClass: ItemClass?
        var classIsIdentity = false
        if let raw = classValue {
            guard let name = Self.string(raw) else { throw .param }
            if let known = ItemClass(rawValue: name) {
                itemClass = known
            } else if name == "idnt" {
                // An identity has no row: its attributes are the certificate's (SecItemServer.c joins
                // the certificate with its private key).
                itemClass = .certificate
                classIsIdentity = true
            } else {
                throw .noSuchClass  // [S] "can't find class named"
            }
        }
        // Without kSecClass, a kSecValueRef names the class itself: securityd infers it from the
        // reference (SecItem.c `SecItemAttributesPrepare`; an identity is exploded into its
        // certificate and key), so `SecItemAdd([kSecValueRef: identity])` works as on iOS.
        var inferredIdentity = false
        if itemClass == nil, let raw = valueRef, let object = Self.reference(raw) {
            switch object {
            case is SecKey: itemClass = .key
            case is SecCertificate: itemClass = .certificate
            default:
                itemClass = .certificate
                inferredIdentity = true
            }
        }
        if itemClass == nil {
            guard let ref = persistentRef.flatMap(Self.bytes), let inferred = Self.classOf(persistentRef: ref) else {
                throw persistentRef == nil ? .param : .itemNotFound
            }
            itemClass = inferred
        }
        var request = SecItemRequest(itemClass: itemClass!)
        // At most one attribute per entry: room for them all at once, not a regrowth at the second
        // (`init(minimumCapacity:)`, which costs less than `reserveCapacity` here: neither is specialized).
        request.attributes = [String: AttributeValue](minimumCapacity: query.count)
        if inferredIdentity { request.isIdentity = true }
        if classIsIdentity { request.isIdentity = true }

        // By index: each entry is read where the array holds it, not copied out first.
        for index in query.indices where query[index].key != "class" {
            let key = query[index].key
            let value = query[index].value
            // An attribute key goes straight to the attribute step: the `switch` below compared it with each
            // of its twenty-odd keys first (about 700 instructions a key; issue 29). ``mayBeOwnKey(_:)``
            // is true for every key the `switch` names before its `default`.
            if !Self.mayBeOwnKey(key) {
                try request.addAttribute(key, value)
                continue
            }
            switch key {
            case "r_Data", "r_Attributes", "r_PersistentRef", "r_Ref":
                // [S] return keys must be CFBoolean.
                let flag = try boolean(value)
                switch key {
                case "r_Data": request.returnData = flag
                case "r_Attributes": request.returnAttributes = flag
                case "r_PersistentRef": request.returnPersistentRef = flag
                default: request.returnRef = flag
                }
            case "m_Limit":
                if let name = Self.string(value) {
                    switch name {
                    case "m_LimitOne": request.matchLimit = .one
                    case "m_LimitAll": request.matchLimit = .all
                    default: throw .param
                    }
                } else if let number = integer(value), number > 0 {
                    request.matchLimit = MatchLimit(count: Int(clamping: number))
                } else {
                    throw .param
                }
            case "v_Data":
                guard let data = Self.data(value) else { throw .param }
                request.secret = data
            case "v_PersistentRef":
                guard let bytes = Self.bytes(value) else { throw .param }
                request.persistentRef = bytes
            case "v_Ref":
                // A key, certificate or identity of the query's class; passwords have no reference
                // (errSecValueRefUnsupported → -50 [BP]).
                guard SecItemRefs.hasReferences(request.itemClass) else { throw .param }
                // Swift objects in an NSDictionary come back boxed: cast the value itself, not `as AnyObject`.
                guard let object = Self.reference(value) else { throw .param }
                request.valueRef = object
            case "m_ItemList":
                // [H] kSecMatchItemList: an array of references or persistent references, in searches.
                guard operation == .copy, let list = value as? NSArray else { throw .param }
                var items: [AnyObject] = []
                for element in list {
                    if let data = Self.data(element) {
                        items.append(data as NSData)
                    } else if let object = Self.reference(element) {
                        items.append(object)
                    } else {
                        throw .param
                    }
                }
                request.itemList = items
            case "accc":
                guard let access = value as? SecAccessControl else { throw .param }
                request.accessControl = access
            case "u_AuthUI":
                // [H] kSecUseAuthenticationUIAllow (the default), …Fail, …Skip.
                switch Self.string(value) {
                case "u_AuthUIA": request.authenticationUI = .allow
                case "u_AuthUIF": request.authenticationUI = .fail
                case "u_AuthUIS": request.authenticationUI = .skip
                default: throw .param
                }
            case "u_NoAuthUI":
                // [H] deprecated kSecUseNoAuthenticationUI: true is kSecUseAuthenticationUIFail.
                if try boolean(value) { request.authenticationUI = .fail }
            case "u_AuthCtx":
                guard let provider = value as? any AuthenticationContextProviding else { throw .param }
                request.authenticationContext = provider.authenticationContext
            case "u_OpPrompt":
                guard let prompt = Self.string(value) else { throw .param }
                request.operationPrompt = prompt
            case ignoredKey:
                continue
            case "m_CaseInsensitive":
                // [S] records it as a match pair without applying it (matching stays byte-exact), so
                // SecItemCopyMatching ignores it, while any m_* key in add, update or delete is errSecParam.
                guard operation == .copy else { throw .param }
            case _ where Self.hasPrefix(key, "m", "_"):
                throw .param  // match keys this class does not support [S]
            case "sync":
                if let name = Self.string(value) {
                    guard name == "syna" else { throw .param }
                    request.synchronizable = .any
                } else {
                    request.synchronizable = Synchronizable(try boolean(value))
                }
            case "pdmn":
                request.protection = try protection(value)
            case "agrp":
                guard let group = Self.string(value) else { throw .param }
                request.accessGroup = group
            default:
                try request.addAttribute(key, value)
            }
        }

        // [H] kSecReturnRef is for keys, certificates and identities: alone on a password it is
        // errSecItemReturnRefUnsupported (-50 [BP]); beside other return keys the result simply has no
        // v_Ref (securityd's handle_result; KeychainAccess relies on it on iOS).
        if request.returnRef && !request.hasReturnKey { throw .param }
        if request.itemClass == .certificate {
            // Certificate items store normalized names (SecCertificateCopyNormalizedIssuerSequence): a
            // query's issuer or subject is normalized the same way, so the DER of the name as it appears
            // in a certificate finds it.
            for name: AttributeName in [.issuer, .subject] {
                if case .data(let der)? = request.attributes[name],
                    let normalized = Certificate.normalizedName(der: der)
                {
                    request.attributes[name] = .data(normalized)
                }
            }
        }
        if let access = request.accessControl {
            // [S SecDbQuery.c] the protection comes from the access control; a different
            // kSecAttrAccessible beside it is "conflicting kSecAccess and kSecAccessControl attributes".
            if let given = request.protection, given != access.protection { throw .param }
            request.protection = access.protection
        }

        // [S] "row_id and other attributes can't be searched at the same time".
        if request.persistentRef != nil && !request.itemAttributes.isEmpty { throw .param }
        if request.persistentRef != nil, let inferred = classOf(persistentRef: request.persistentRef!),
            inferred != request.itemClass
        {
            throw .itemNotFound
        }

        switch operation {
        case .add:
            if request.matchLimit != nil { throw .param }  // match keys in add [S]
            if request.persistentRef != nil { throw .param }  // [H] kSecValuePersistentRef is not for add
        // A synchronizable …ThisDeviceOnly item is refused by the store with errSecParam
        // (docs/APPLE-SEMANTICS.md rule 20), for adds and updates alike.
        case .update, .delete:
            // [S] _SecItemDelete / s3dl_query_update: any other match key → errSecParam.
            if request.matchLimit != nil { throw .param }
        case .copy:
            break
        }
        return request
    }

    /// A query key that is none of the keys ``parse(_:for:)`` reads itself: an attribute of the class (or,
    /// in an identity query, of its key), typed by its descriptor.
    /// - Throws: `.noSuchAttr` for a key that is no such attribute [S SecDbAttrWithKey]; `.param` for a
    ///   value of the wrong type.
    private mutating func addAttribute(_ key: String, _ value: Any) throws(KeychainStatus) {
        guard let descriptor = itemClass.descriptor(key) else {
            if isIdentity, let keyDescriptor = ItemClass.key.descriptor(key) {
                identityKeyFilters[key] = try Self.typed(value, keyDescriptor.kind)
                return
            }
            throw .noSuchAttr  // [S] SecDbAttrWithKey: not an attribute of this class
        }
        attributes[key] = try Self.typed(value, descriptor.kind)
    }

    /// The keys of ``parse(_:for:)``'s `switch` that have no `_` as their second byte: each other key it
    /// names (`r_…`, `m_…`, `v_…`, `u_…`) has one.
    static let keysWithoutUnderscore: [String] = ["accc", "sync", "pdmn", "agrp", ignoredKey]

    /// Whether `key` may be one that ``parse(_:for:)``'s `switch` names before its `default` (a return,
    /// match, value or use key, `accc`, `sync`, `pdmn`, `agrp`, or the ignored key); `false` only for a key
    /// that the `switch` would hand to its `default`, the attribute step. Exact: its keys are ASCII, and no
    /// key without `_` as its second byte is equal to (or, for `m_`, prefixed by) one that has it.
    static func mayBeOwnKey(_ key: String) -> Bool {
        var bytes = key.utf8.makeIterator()
        _ = bytes.next()
        if bytes.next() == UInt8(ascii: "_") { return true }
        return keysWithoutUnderscore.contains(key)
    }

    /// Parses the attributes-to-update dictionary of `SecItemUpdate`.
    /// - Returns: the attributes to change, and the new secret (`kSecValueData`) copied once from its
    ///   `CFData` into protected memory (``secureBytes(_:)``), which the update seals.
    /// - Throws: `.noSuchAttr` for any key that is not an attribute of the class or `kSecValueData`
    ///   (including `kSecClass`, return and match keys) [S query_update_applier]; `.param` for a
    ///   wrongly typed value or `kSecAttrSynchronizableAny`.
    static func parseChanges(_ dictionary: NSDictionary, itemClass: ItemClass) throws(KeychainStatus) -> (
        attributes: [String: AttributeValue], secret: SecureBytes?
    ) {
        guard let changes = entries(dictionary) else { throw .param }
        var attributes: [String: AttributeValue] = [:]
        var secret: SecureBytes?
        for entry in changes {
            let key = entry.key
            let value = entry.value
            switch key {
            case "v_Data":
                guard let bytes = Self.secureBytes(value) else { throw .param }
                secret = bytes
            case "pdmn":
                attributes[.accessible] = try protection(value).attribute
            case "sync":
                if string(value) != nil { throw .param }
                attributes[.synchronizable] = Synchronizable(try boolean(value)).attribute
            case "accc":
                guard let access = value as? SecAccessControl else { throw .param }
                attributes[.accessible] = access.protection.attribute
                attributes[.accessControl] = access.storedValue(applicationPassword: nil)
            default:
                guard let descriptor = itemClass.descriptor(key) else { throw .noSuchAttr }
                if descriptor.isManaged { continue }  // cdat/mdat are the keychain's to set
                attributes[key] = try typed(value, descriptor.kind)
            }
        }
        return (attributes, secret)
    }

    // MARK: - Keys

    /// Whether the first two UTF-8 bytes of `key` are `first` and `second`: what `hasPrefix` of those two
    /// ASCII characters needs (neither has a decomposition, so a string with that prefix starts with these
    /// bytes), checked without `hasPrefix`'s grapheme comparison (about 100 instructions a key).
    static func startsWith(_ key: String, _ first: Unicode.Scalar, _ second: Unicode.Scalar) -> Bool {
        var bytes = key.utf8.makeIterator()
        return bytes.next() == UInt8(ascii: first) && bytes.next() == UInt8(ascii: second)
    }

    /// `key.hasPrefix` of the two ASCII characters, with ``startsWith(_:_:_:)`` first: the grapheme
    /// comparison runs only for a key that starts with those bytes (it still decides, so that a key such as
    /// `"m_"` followed by a combining mark answers as it always has).
    static func hasPrefix(_ key: String, _ first: Unicode.Scalar, _ second: Unicode.Scalar) -> Bool {
        startsWith(key, first, second) && key.hasPrefix(String(first) + String(second))
    }

    // MARK: - Values

    /// The dictionary's entries with `String` keys, or `nil` when a key is not a string.
    ///
    /// From `allKeys` and `allValues`, which swift-corelibs-foundation answers for a plain `NSDictionary`
    /// with its stored objects as they are (`NSString`, `NSNumber`, `NSData`, …), in matching order (one
    /// storage, walked twice). `enumerateKeysAndObjects` bridged every key and value back to a Swift
    /// value first (`getObjects`, with a dynamic cast each) and took a lock per entry: 21k of the 101k
    /// instructions of a `SecItemCopyMatching` by service and account (callgrind, issue 15). The casts
    /// below accept both the Foundation objects and Swift values (what a subclass's enumerator hands
    /// out). Keys of an `NSDictionary` are unique, so the entries are too.
    static func entries(_ dictionary: NSDictionary) -> [Entry]? {
        let keys = dictionary.allKeys
        let values = dictionary.allValues
        guard keys.count == values.count else { return nil }
        var entries: [Entry] = []
        entries.reserveCapacity(keys.count)
        for index in keys.indices {
            guard let name = string(keys[index]) else { return nil }
            entries.append(Entry(key: name, value: values[index]))
        }
        return entries
    }

    /// One entry of a query: a struct, not a `(key: String, value: Any)` tuple, which Swift copies through
    /// the runtime's generic tuple witness (`tuple_initializeWithCopy`, about 150 instructions a copy; the
    /// parse copies each entry two or three times).
    struct Entry {
        let key: String
        let value: Any
    }

    // Casts of dictionary values. `allValues` hands out the stored Foundation objects, so the class casts
    // come first (cheap); a Swift `String` or `Data` (from a dictionary subclass) takes the exact-type
    // cast, and anything else the generic bridging cast, so answers are unchanged.

    static func string(_ value: Any) -> String? {
        if let object = value as? NSString { return String._unconditionallyBridgeFromObjectiveC(object) }
        if let string = value as? String { return string }
        return nil
    }

    /// A `CFData` value's bytes as `Data`, copied once: swift-corelibs-foundation's bridging of an `NSData`
    /// walked it byte by byte through a generic iterator (about 250 instructions a byte, 16k for a 64-byte
    /// `kSecValueData`; callgrind, issue 29).
    static func data(_ value: Any) -> Data? {
        if let object = value as? NSData {
            return object.length == 0 ? Data() : Data(bytes: object.bytes, count: object.length)
        }
        if let data = value as? Data { return data }
        return nil
    }

    /// A `CFData` value (or a Swift `Data`) copied once into ``SecureBytes``: what ``data(_:)`` and then
    /// `SecureBytes(copying:)` gave, without the `Data` in between (its allocation, its release, and the
    /// unspecialized generic copy out of it: about 2k of a `SecItemUpdate`'s instructions, issue 29).
    static func secureBytes(_ value: Any) -> SecureBytes? {
        if let object = value as? NSData {
            let length = object.length
            guard length > 0 else { return SecureBytes(count: 0) { _ in } }
            let source = UnsafeRawBufferPointer(start: object.bytes, count: length)
            return SecureBytes(count: length) { $0.copyMemory(from: source) }
        }
        if let data = value as? Data { return SecureBytes(copying: data) }
        return nil
    }

    /// The bytes of a `CFData` value (or a Swift `Data`), as the engine keeps attribute values and
    /// persistent references: copied once from the object's buffer, with no `Data` in between.
    static func bytes(_ value: Any) -> [UInt8]? {
        if let object = value as? NSData { return bytes(of: object) }
        if let data = value as? Data { return Array(data) }
        return nil
    }

    /// The bytes of `object`, copied once.
    static func bytes(of object: NSData) -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: object.bytes, count: object.length))
    }

    /// The `SecKey`, `SecCertificate` or `SecIdentity` a dictionary value holds.
    static func reference(_ value: Any) -> AnyObject? {
        if let key = value as? SecKey { return key }
        if let certificate = value as? SecCertificate { return certificate }
        if let identity = value as? SecIdentity { return identity }
        return nil
    }

    /// A persistent reference starts with its class's four raw bytes.
    static func classOf(persistentRef: [UInt8]) -> ItemClass? {
        guard persistentRef.count == 20 else { return nil }
        return ItemClass(rawValue: String(decoding: persistentRef.prefix(4), as: UTF8.self))
    }

    static func boolean(_ value: Any) throws(KeychainStatus) -> Bool {
        if let number = value as? NSNumber {
            // What `as? Bool` then `integer` answer for an NSNumber, without the generic casts.
            var flag: Bool?
            if Bool._conditionallyBridgeFromObjectiveC(number, result: &flag), let flag { return flag }
            let integer = number.int64Value
            if integer == 0 || integer == 1 { return integer == 1 }
            throw .param
        }
        if let flag = value as? Bool { return flag }
        if let number = integer(value), number == 0 || number == 1 { return number == 1 }
        throw .param
    }

    static func integer(_ value: Any) -> Int64? {
        if let number = value as? NSNumber { return number.int64Value }
        if value is NSString || value is String { return nil }
        if let number = value as? any BinaryInteger { return Int64(truncatingIfNeeded: number) }
        if let flag = value as? Bool { return flag ? 1 : 0 }
        return nil
    }

    static func typed(_ value: Any, _ kind: AttributeDescriptor.Kind) throws(KeychainStatus) -> AttributeValue {
        switch kind {
        case .blob:
            if let string = Self.string(value) { return .string(string) }
            if let bytes = Self.bytes(value) { return .data(bytes) }
        case .string:
            if let string = Self.string(value) { return .string(string) }
        case .number:
            if let number = integer(value) { return .integer(number) }
            // [S SecDbItem.c copyNumber] a string that is an Int32 printed back ("1234") becomes that
            // number; any other string ("Creator Test") is kept as a string.
            if let string = Self.string(value) {
                if let number = Int32(string), String(number) == string { return .integer(Int64(number)) }
                return .string(string)
            }
        case .bool:
            return .bool(try boolean(value))
        case .date:
            if let date = value as? NSDate {
                return .date(AbsoluteTime(secondsSinceReferenceDate: date.timeIntervalSinceReferenceDate))
            }
            if let date = value as? Date {
                return .date(AbsoluteTime(secondsSinceReferenceDate: date.timeIntervalSinceReferenceDate))
            }
        }
        throw .param
    }
}
