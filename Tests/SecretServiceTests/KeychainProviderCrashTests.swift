import CGIO
import Foundation
import KeychainDBus
import Testing

@testable import KeychainCore
@testable import SecretService

/// Crash safety and concurrent writers for keychain-backed collections (issue 17, "Crash and concurrency").
@Suite("keychain-secret-service crash and concurrency")
struct KeychainProviderCrashTests: SecretServiceSuite {

    /// `CreateItem` on the login collection; `nil` when the call fails (the provider was killed).
    static func tryCreate(_ bus: PrivateBus, _ index: Int, _ session: String) -> String? {
        let properties = Variant.variantMap([
            ("org.freedesktop.Secret.Item.Label", Variant.string("item \(index)")),
            ("org.freedesktop.Secret.Item.Attributes", Variant.stringMap(["n": String(index)])),
        ])
        let secret = Variant.tuple([
            Variant.objectPath(session), Variant.bytes([]), Variant.bytes(Array("secret \(index)".utf8)),
            Variant.string("text/plain"),
        ])
        guard
            case .success(let reply) = bus.call(
                login, "org.freedesktop.Secret.Collection", "CreateItem", [properties, secret, Variant.boolean(false)])
        else { return nil }
        defer { g_variant_unref(reply) }
        return Variant.withChild(reply, 0, Variant.readString)
    }

    @Test(
        "SIGKILL in the middle of a stream of CreateItem calls: every acknowledged item is there, the keychain verifies",
        arguments: 0..<3)
    func killDuringCreates(trial: Int) throws {
        let home = try KeychainHome()
        defer { home.remove() }
        try PrivateBus.with(startProvider: false) { bus in
            try bus.startProvider(keychainHome: home.root)
            let session = try bus.openPlainSession()
            let pid = try #require(bus.provider).processIdentifier
            // The kill comes from another thread after a random delay, while calls keep going.
            let delay = UInt32.random(in: 20_000...150_000) + UInt32(trial) * 10_000
            let killer = Thread {
                usleep(delay)
                kill(pid, SIGKILL)
            }
            var acknowledged: [Int: String] = [:]
            for index in 0..<100_000 {
                guard let path = Self.tryCreate(bus, index, session) else { break }
                acknowledged[index] = path
                // Armed once an item is acknowledged, so that every trial has items to find.
                if index == 0 { killer.start() }
            }
            #expect(!acknowledged.isEmpty)
            bus.provider?.waitUntilExit()
            let keystore = try Keystore(location: home.location("login"), create: false)
            #expect(try keystore.verifyIntegrity() >= acknowledged.count)
            for (index, path) in acknowledged {
                let found = try keystore.secretItems(matching: ["n": String(index)])
                #expect(found.count == 1 && path.hasSuffix("/\(found.first?.number ?? -1)"), "item \(index) lost")
                if let number = found.first?.number {
                    let secret = try keystore.secretItemSecret(number)
                    #expect(secret.value.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } == "secret \(index)")
                }
            }
        }
    }

    @Test("The provider, the security tool and SecItem callers writing the same keychain at once lose nothing")
    func concurrentWriters() throws {
        let home = try KeychainHome()
        defer { home.remove() }
        try home.createKeychain("login", password: nil)
        try PrivateBus.with(startProvider: false) { bus in
            try bus.startProvider(keychainHome: home.root)
            let session = try bus.openPlainSession()
            let environment = ProcessInfo.processInfo.environment.merging(home.environment) { _, new in new }
            let security = URL(fileURLWithPath: PrivateBus.providerExecutable).deletingLastPathComponent()
                .appendingPathComponent("security").path
            let location = home.location("login")
            let toolFailures = Atomic(0)
            let tool = Thread {
                for index in 0..<10 {
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: security)
                    process.arguments = [
                        "add-generic-password", "-a", "tool\(index)", "-s", "concurrency", "-w", "pw",
                        location.databasePath,
                    ]
                    process.environment = environment
                    process.standardOutput = FileHandle.nullDevice
                    process.standardError = FileHandle.nullDevice
                    do {
                        try process.run()
                        process.waitUntilExit()
                        if process.terminationStatus != 0 { toolFailures.add(1) }
                    } catch {
                        toolFailures.add(1)
                    }
                }
            }
            // The engine calls SecItemAdd makes, from this process's own connection, at the same time.
            let engineFailures = Atomic(0)
            let secItem = Thread {
                guard let keystore = try? Keystore(location: location, create: false) else {
                    engineFailures.add(100)
                    return
                }
                for index in 0..<40 {
                    do {
                        _ = try keystore.add(
                            .genericPassword,
                            attributes: [
                                "svce": .string("concurrency"), "acct": .string("secitem\(index)"),
                                "agrp": .string("test"),
                            ],
                            secret: SecureBytes(copying: Array("pw".utf8)))
                    } catch {
                        engineFailures.add(1)
                    }
                }
            }
            // SecItemAdd in other processes: the test helper (KeychainServices) on the same login keychain.
            let helper = URL(fileURLWithPath: PrivateBus.providerExecutable).deletingLastPathComponent()
                .appendingPathComponent("keychain-test-helper").path
            let helperFailures = Atomic(0)
            let helpers = Thread {
                for index in 0..<10 {
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: helper)
                    process.arguments = ["add", "concurrency", "helper\(index)", "pw"]
                    process.environment = environment.filter { $0.key != "KEYCHAIN_ENTITLEMENTS" }
                    let output = Pipe()
                    process.standardOutput = output
                    process.standardError = FileHandle.nullDevice
                    do {
                        try process.run()
                        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                        process.waitUntilExit()
                        if text.trimmingCharacters(in: .whitespacesAndNewlines) != "0" { helperFailures.add(1) }
                    } catch {
                        helperFailures.add(1)
                    }
                }
            }
            tool.start()
            secItem.start()
            helpers.start()
            var created = 0
            for index in 0..<60 where Self.tryCreate(bus, index, session) != nil { created += 1 }
            while !tool.isFinished || !secItem.isFinished || !helpers.isFinished { usleep(10_000) }
            #expect(created == 60)
            #expect(toolFailures.value == 0 && engineFailures.value == 0 && helperFailures.value == 0)
            let keystore = try Keystore(location: location, create: false)
            #expect(try keystore.secretItems(matching: [:]).count == 60)
            let passwords = try keystore.search(
                ItemQuery(
                    itemClass: .genericPassword, filters: ["svce": .string("concurrency")], scope: .all,
                    synchronizable: .any),
                projection: [.attributes])
            #expect(passwords.count == 60)
            #expect(try keystore.verifyIntegrity() == 120)
        }
    }
}

/// A counter shared with helper threads.
final class Atomic: @unchecked Sendable {  // every access holds `lock`
    private let lock = NSLock()
    private var count: Int

    init(_ count: Int) { self.count = count }

    func add(_ amount: Int) { lock.withLock { count += amount } }

    var value: Int { lock.withLock { count } }
}
