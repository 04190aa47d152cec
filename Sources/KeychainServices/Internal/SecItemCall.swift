import Foundation
internal import KeychainCore

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

    /// The access group of a new item: the one named, if held, else the process's first group.
    static func accessGroupForAdd(_ request: SecItemRequest, _ identity: ApplicationIdentity) throws(KeychainFailure)
        -> String
    {
        if case .string(let group)? = request.attributes["agrp"] {
            guard identity.holds(group) else { throw KeychainFailure(.missingEntitlement) }
            return group
        }
        guard let group = identity.defaultAccessGroup else { throw KeychainFailure(.missingEntitlement) }
        return group
    }

    /// The engine query for a parsed copy, update or delete.
    static func query(_ request: SecItemRequest, _ identity: ApplicationIdentity) throws(KeychainFailure) -> ItemQuery {
        guard !identity.accessGroups.isEmpty || identity.seesAllGroups else {
            throw KeychainFailure(.missingEntitlement)
        }
        var filters = request.attributes
        var groups = identity.searchGroups
        if case .string(let group)? = filters.removeValue(forKey: "agrp") {
            guard identity.holds(group) else { throw KeychainFailure(.missingEntitlement) }
            groups = [group]
        }
        var synchronizable: Bool? = false
        if case .bool(let flag)? = filters.removeValue(forKey: "sync") { synchronizable = flag }
        if request.synchronizableAny || request.persistentRef != nil { synchronizable = nil }
        var protection: ProtectionClass?
        if case .string(let raw)? = filters.removeValue(forKey: "pdmn") { protection = ProtectionClass(rawValue: raw) }
        return ItemQuery(
            itemClass: request.itemClass, filters: filters, accessGroups: groups, synchronizable: synchronizable,
            protection: protection, persistentRef: request.persistentRef, limit: nil)
    }

    static func projection(_ request: SecItemRequest) -> ItemProjection {
        var projection: ItemProjection = []
        if request.returnAttributes { projection.insert(.attributes) }
        if request.returnData { projection.insert(.secret) }
        return projection
    }

    /// Builds the result object Apple returns for these items and return keys.
    static func shape(_ items: [ItemRecord], _ request: SecItemRequest) -> AnyObject {
        let single = request.returnData && !request.returnAttributes && !request.returnPersistentRef
            || request.returnPersistentRef && !request.returnAttributes && !request.returnData
        func one(_ item: ItemRecord) -> AnyObject {
            let data = item.secret.map { secret in secret.withUnsafeBytes { Data($0) } } ?? Data()
            if single {
                return NSData(data: request.returnData ? data : item.persistentRef)
            }
            var dictionary: [String: Any] = [:]
            if request.returnAttributes {
                dictionary["class"] = item.itemClass.rawValue
                for (name, value) in item.attributes { dictionary[name] = foundationValue(value) }
            }
            if request.returnData { dictionary["v_Data"] = data }
            if request.returnPersistentRef { dictionary["v_PersistentRef"] = item.persistentRef }
            return NSDictionary(dictionary: dictionary)
        }
        if request.limitGiven && request.limit != 1 {
            return NSArray(array: items.map(one))
        }
        return one(items[0])
    }

    static func foundationValue(_ value: AttributeValue) -> Any {
        switch value {
        case .string(let s): s
        case .data(let d): d
        case .integer(let i): NSNumber(value: i)
        case .bool(let b): NSNumber(value: b)
        case .date(let d): d
        }
    }
}

extension KeychainFailure {
    init(_ status: KeychainStatus) { self.init(status, nil) }
}
