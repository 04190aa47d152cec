import Foundation
import KeychainTesting

@testable import KeychainCore

/// A synchronizable generic password's attributes.
func syncItem(_ service: String, _ account: String, _ protection: ProtectionClass = .whenUnlocked)
    -> [String: AttributeValue]
{
    var attributes = genericItem(service, account, protection)
    attributes["sync"] = .bool(true)
    return attributes
}

/// The secret of the synchronizable item `service`/`account`, or nil when there is none.
func syncSecret(_ keystore: Keystore, _ service: String, _ account: String) throws -> String? {
    var query = query(service, account)
    query.synchronizable = .yes
    return try keystore.search(query, projection: [.secret]).first?.secret.map {
        $0.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }
}

/// Every synchronizable generic password as "service/account=secret", sorted.
func syncContents(_ keystore: Keystore) throws -> [String] {
    let items = try keystore.search(
        ItemQuery(itemClass: .genericPassword, scope: .all, synchronizable: .yes), projection: [.attributes, .secret])
    return items.map { item in
        let service = item.attributes["svce"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? "?"
        let account = item.attributes["acct"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? "?"
        let value = item.secret.map { $0.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } } ?? ""
        return "\(service)/\(account)=\(value)"
    }.sorted()
}

/// Devices on one machine (each its own temporary home and keychain file) that exchange changes directly,
/// with one cursor per sender and receiver.
final class SyncDevices {
    let homes: [TemporaryKeychain]
    let stores: [Keystore]
    private var cursors: [Int: UInt64] = [:]

    init(_ count: Int = 2) throws {
        homes = try (0..<count).map { _ in try TemporaryKeychain() }
        stores = try homes.map { try $0.open() }
    }

    subscript(_ index: Int) -> Keystore { stores[index] }

    /// Sends what device `from` changed since its last send to `to`.
    @discardableResult
    func send(_ from: Int, to: Int) throws -> SyncApplyReport {
        let key = from * 100 + to
        let (changes, through) = try stores[from].syncChanges(after: cursors[key] ?? 0)
        cursors[key] = through
        return try stores[to].applySyncChanges(changes)
    }

    /// Every device sends to every other, twice round (so that what one applied reaches nobody twice, and
    /// every device has seen every change).
    func exchangeAll() throws {
        for _ in 0..<2 {
            for from in stores.indices { for to in stores.indices where to != from { try send(from, to: to) } }
        }
    }
}

/// Waits long enough for the wall clock's millisecond to move, so that the next stamp is later on every device.
func tick() { usleep(3_000) }
