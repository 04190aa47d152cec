import Foundation
import KeychainServices

/// The API floor: what any implementation of `SecItemCopyMatching` pays with no store at all, measured
/// in the same process and run as ours and the C floor (tracker issue 29).
///
/// Per call: reading the caller's bridged dictionary as the call must (class, the primary-key
/// attributes or the persistent reference, the return keys and the limit: `object(forKey:)` with each
/// key, a cast, and a `String` or `Data` bridged from each value), then building the result Apple
/// returns as fresh Foundation objects: an `NSData` of the secret's bytes, or one `NSDictionary` per
/// item with the same keys and value types as ours (a fresh `NSString`, `NSNumber`, `NSDate` or `NSData`
/// per value; an `NSObject` stands for the `SecAccessControl` object). Keys are `NSString`s made once,
/// as any implementation would keep them. Nothing is looked up, decrypted or copied from storage:
/// the values come from the benchmark's data set.
///
/// Ours is then reported as a ratio to C floor + API floor: the part of the call that is the store's
/// and the part that is the API's, each at its cheapest.
enum APIFloor {
    // The query keys a copy reads, bridged once. Immutable NSStrings, never mutated after
    // initialization, so sharing them across threads is safe.
    nonisolated(unsafe) static let classKey = kSecClass as NSString
    nonisolated(unsafe) static let serviceKey = kSecAttrService as NSString
    nonisolated(unsafe) static let accountKey = kSecAttrAccount as NSString
    nonisolated(unsafe) static let groupKey = kSecAttrAccessGroup as NSString
    nonisolated(unsafe) static let returnDataKey = kSecReturnData as NSString
    nonisolated(unsafe) static let returnAttributesKey = kSecReturnAttributes as NSString
    nonisolated(unsafe) static let persistentRefKey = kSecValuePersistentRef as NSString
    nonisolated(unsafe) static let limitKey = kSecMatchLimit as NSString

    /// What a copy must learn from its query before it can search.
    struct Parsed {
        var itemClass: String?
        var service: String?
        var account: String?
        var persistentRef: Data?
        var returnData = false
        var returnAttributes = false
        var limit: String?
    }

    /// Reads `query` as a copy must: every key it may hold, each value cast and bridged to its Swift type.
    @inline(never)
    static func parse(_ query: NSDictionary) -> Parsed {
        var parsed = Parsed()
        parsed.itemClass = (query.object(forKey: classKey) as? NSString).map(String.init)
        parsed.service = (query.object(forKey: serviceKey) as? NSString).map(String.init)
        parsed.account = (query.object(forKey: accountKey) as? NSString).map(String.init)
        _ = query.object(forKey: groupKey)
        parsed.persistentRef = (query.object(forKey: persistentRefKey) as? NSData).map { Data(referencing: $0) }
        parsed.returnData = (query.object(forKey: returnDataKey) as? NSNumber)?.boolValue ?? false
        parsed.returnAttributes = (query.object(forKey: returnAttributesKey) as? NSNumber)?.boolValue ?? false
        parsed.limit = (query.object(forKey: limitKey) as? NSString).map(String.init)
        return parsed
    }

    /// A copy returning data: the query read, then a fresh `NSData` of `secret`.
    @inline(never)
    static func copyData(_ query: NSDictionary, secret: [UInt8]) -> AnyObject? {
        let parsed = parse(query)
        guard parsed.returnData, parsed.itemClass != nil else { return nil }
        return secret.withUnsafeBytes { NSData(bytes: $0.baseAddress, length: $0.count) }
    }

    /// One item's result dictionary: `keys` with fresh values of the types ours returns.
    /// - Parameters:
    ///   - keys: the keys of our result for the same item (bridged once, outside the timing).
    ///   - kinds: for each key, the kind of value to make.
    ///   - service, account: the item's strings; `secret` is added under `v_Data` when given.
    static func item(keys: [NSObject], kinds: [ValueKind], service: String, account: String, secret: [UInt8]?)
        -> NSDictionary
    {
        var objects: [AnyObject] = []
        objects.reserveCapacity(keys.count)
        for kind in kinds {
            switch kind {
            case .service: objects.append(service._bridgeToObjectiveC())
            case .account: objects.append(account._bridgeToObjectiveC())
            case .string(let text): objects.append(text._bridgeToObjectiveC())
            case .number(let value): objects.append(NSNumber(value: value))
            case .date: objects.append(NSDate(timeIntervalSinceReferenceDate: 786_000_000))
            case .data(let count): objects.append(NSData(bytes: [UInt8](repeating: 0x42, count: count), length: count))
            case .secret:
                let bytes = secret ?? []
                objects.append(bytes.withUnsafeBytes { NSData(bytes: $0.baseAddress, length: $0.count) })
            case .object: objects.append(NSObject())
            }
        }
        return objects.withUnsafeBufferPointer { objects in
            keys.withUnsafeBufferPointer { keys in
                NSDictionary(objects: objects.baseAddress, forKeys: keys.baseAddress, count: keys.count)
            }
        }
    }

    /// The kind of object one result key holds.
    enum ValueKind {
        case service, account, string(String), number(Int), date, data(Int), secret, object

        /// The kind of `value`, found in our result for the item whose strings are `service` and `account`.
        init(_ key: String, _ value: Any, service: String, account: String) {
            if key == kSecValueData as String {
                self = .secret
            } else if let text = value as? String {
                self = text == service ? .service : text == account ? .account : .string(text)
            } else if let number = value as? NSNumber {
                self = .number(number.intValue)
            } else if value is Date || value is NSDate {
                self = .date
            } else if let data = value as? Data {
                self = .data(data.count)
            } else {
                self = .object
            }
        }
    }

    /// The shape of our result dictionary for one item: its keys (bridged once) and their kinds.
    static func shape(of result: [String: Any], service: String, account: String) -> (
        keys: [NSObject], kinds: [ValueKind]
    ) {
        let sorted = result.sorted { $0.key < $1.key }
        return (
            sorted.map { $0.key._bridgeToObjectiveC() as NSObject },
            sorted.map { ValueKind($0.key, $0.value, service: service, account: account) }
        )
    }

    /// A copy returning one item's attributes (and its data when `secret` is given).
    @inline(never)
    static func copyAttributes(
        _ query: NSDictionary, keys: [NSObject], kinds: [ValueKind], service: String, account: String
    ) -> AnyObject? {
        let parsed = parse(query)
        guard parsed.returnAttributes, let service = parsed.service, let account = parsed.account else { return nil }
        return item(keys: keys, kinds: kinds, service: service, account: account, secret: nil)
    }

    /// An enumeration: the query read, then an `NSArray` of `accounts.count` item dictionaries.
    @inline(never)
    static func enumerate(
        _ query: NSDictionary, keys: [NSObject], kinds: [ValueKind], accounts: [String], secrets: [[UInt8]]?
    ) -> NSArray {
        let parsed = parse(query)
        let service = parsed.service ?? ""
        var items: [AnyObject] = []
        items.reserveCapacity(accounts.count)
        for index in accounts.indices {
            items.append(
                item(keys: keys, kinds: kinds, service: service, account: accounts[index], secret: secrets?[index]))
        }
        return NSArray(array: items)
    }
}
