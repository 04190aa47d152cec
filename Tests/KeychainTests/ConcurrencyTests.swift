import Foundation
import KeychainCore
import KeychainTesting
import Synchronization
import Testing

@testable import Keychain

/// Concurrency across connections. Two `Keystore` instances on one file are two SQLite connections,
/// the same situation as two processes (the separate-process helper belongs to another suite); the
/// upsert's single `BEGIN IMMEDIATE` transaction is what keeps them from colliding.
@Suite("Concurrency")
struct ConcurrencyTests {
    @Test("concurrent upserts from two connections never fail and leave exactly one item")
    func upsertFromTwoConnections() throws {
        let temp = try TemporaryKeychain(opening: true)
        let connections = [temp.context(), try temp.otherConnection()]
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 40) { index in
            let keychain = Keychain(service: "race").context(connections[index % 2])
            do {
                try keychain.set("value-\(index)", forKey: "shared")
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let keychain = Keychain(service: "race").context(temp.context())
        #expect(try keychain.allItems().count == 1)
        let value = try #require(try keychain.string(forKey: "shared"))
        #expect(value.hasPrefix("value-"))
        // The other connection sees the same single item.
        let other = Keychain(service: "race").context(connections[1])
        #expect(try other.string(forKey: "shared") == value)
    }

    @Test("a device identifier created concurrently by two connections is the same everywhere")
    func deviceIdentifierRace() throws {
        let temp = try TemporaryKeychain(opening: true)
        let connections = [temp.context(), try temp.otherConnection()]
        let seen = Mutex<Set<UUID>>([])
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            do {
                let id = try DeviceIdentifier().context(connections[index % 2]).value()
                seen.withLock { _ = $0.insert(id) }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(seen.withLock { $0.count } == 1)
        let stored = try DeviceIdentifier().context(temp.context()).value()
        #expect(seen.withLock { $0 } == [stored])
        let item = try #require(
            try Keychain(service: DeviceIdentifier.defaultService).context(temp.context()).allItems().first)
        #expect(item.accessibility == .afterFirstUnlockThisDeviceOnly)
    }

    @Test("many tasks hammering one Keychain see only values that were written")
    func hammer() async throws {
        let temp = try TemporaryKeychain(opening: true)
        let keychain = Keychain(service: "hammer").context(temp.context())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<32 {
                group.addTask {
                    for round in 0..<10 {
                        let own = "task-\(task)"
                        try await keychain.set("\(round)", forKey: own)
                        #expect(try await keychain.string(forKey: own) == "\(round)")
                        try await keychain.set("\(task)-\(round)", forKey: "shared")
                        let shared = try #require(try await keychain.string(forKey: "shared"))
                        let parts = shared.split(separator: "-").compactMap { Int($0) }
                        #expect(
                            parts.count == 2 && (0..<32).contains(parts[0]) && (0..<10).contains(parts[1]), "\(shared)")
                        if round % 3 == 1 {  // the last round (9) leaves the key in place
                            try await keychain.remove(forKey: own)
                            #expect(try await !keychain.contains(own))
                        }
                        _ = try await keychain.allKeys()
                    }
                }
            }
            try await group.waitForAll()
        }
        let keys = Set(try await keychain.allKeys())
        #expect(keys == Set((0..<32).map { "task-\($0)" } + ["shared"]))
        #expect(try await keychain.allItems().count == 33)
    }
}
