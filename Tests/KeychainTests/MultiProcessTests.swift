import Foundation
import KeychainCore
import KeychainTestProcess
import KeychainTesting
import Testing

@testable import Keychain

/// The high-level API across real processes: `keychain-test-helper` runs each command in a process
/// of its own on this test's keychain (as its login keychain, through `XDG_DATA_HOME`/`XDG_STATE_HOME`),
/// and several helpers start their work together at a gate.
@Suite("Several processes (Keychain API)")
struct KeychainMultiProcessTests {
    @Test("upserts from two processes at once: no error surfaces, and the final value is one writer's last")
    func concurrentUpserts() throws {
        let temp = try TemporaryKeychain(opening: true)
        let rounds = 150
        let outputs = try HelperProcess.race(
            [["kc-set", "race", "shared", "w0", "\(rounds)"], ["kc-set", "race", "shared", "w1", "\(rounds)"]],
            environment: temp.environment, in: temp.directory)
        for lines in outputs {
            #expect(lines == Array(repeating: "0", count: rounds))
        }
        let keychain = Keychain(service: "race").context(temp.context())
        #expect(try keychain.allItems().count == 1)
        let final = try #require(try keychain.string(forKey: "shared"))
        #expect(["w0-\(rounds - 1)", "w1-\(rounds - 1)"].contains(final))
        // A process started afterwards reads the same value.
        #expect(try HelperProcess.run(["kc-get", "race", "shared"], environment: temp.environment) == "0 \(final)")
    }

    @Test(
        "Secret Service writes from other processes and from this one take strictly increasing change serials from the one journal"
    )
    func secretItemSerialsAcrossProcesses() throws {
        let temp = try TemporaryKeychain(opening: true)
        let keystore = try #require(temp.firstConnection)
        var serials: [Int64] = []
        for round in 0..<3 {
            let line = try HelperProcess.run(
                ["ss-create", "from a helper \(round)", "round", "helper-\(round)", "secret"],
                environment: temp.environment)
            let fields = line.split(separator: " ")
            #expect(fields.first == "0", "\(line)")
            serials.append(try #require(fields.last.flatMap { Int64($0) }))
            _ = try keystore.createSecretItem(
                label: "from the test \(round)", attributes: ["round": "test-\(round)"],
                secret: SecretItemSecret(value: SecureBytes(copying: Array("s".utf8)), contentType: ""), replace: false)
            serials.append(try #require(try keystore.journalChanges(after: 0).map(\.serial).max()))
        }
        #expect(zip(serials, serials.dropFirst()).allSatisfy { $0 < $1 }, "\(serials)")
        let changes = try keystore.journalChanges(after: 0)
        #expect(changes.map(\.serial) == serials)
        #expect(try keystore.secretItems(matching: [:]).count == 6)
    }

    @Test("processes racing to create the device identifier all get the same UUID")
    func deviceIdentifierRace() throws {
        let temp = try TemporaryKeychain(opening: true)
        let outputs = try HelperProcess.race(
            Array(repeating: ["device-id"], count: 4), environment: temp.environment, in: temp.directory)
        let lines = outputs.map { $0.joined(separator: "\n") }
        let ids = Set(lines)
        #expect(ids.count == 1, "\(lines)")
        let line = try #require(ids.first)
        #expect(line.hasPrefix("0 "))
        let stored = try DeviceIdentifier().context(temp.context()).value()
        #expect(line == "0 \(stored.uuidString)")
        #expect(try Keychain(service: DeviceIdentifier.defaultService).context(temp.context()).allKeys() == ["uuid"])
    }

    @Test("the PasswordManager cache is invalidated by another process's update and delete")
    func passwordManagerCacheAcrossProcesses() throws {
        let temp = try TemporaryKeychain(opening: true)
        let manager = PasswordManager(context: temp.context())
        try manager.register(key: "v1", for: "alice")
        #expect(try manager.key(for: "alice") == "v1")
        #expect(manager.cachedKeyCount == 1)

        #expect(
            try HelperProcess.run(["pm-register", manager.service, "alice", "v2"], environment: temp.environment) == "0"
        )
        #expect(try manager.key(for: "alice") == "v2")
        #expect(try manager.isValid(key: "v2", for: "alice"))
        #expect(try !manager.isValid(key: "v1", for: "alice"))

        #expect(try HelperProcess.run(["pm-key", manager.service, "alice"], environment: temp.environment) == "0 v2")
        #expect(try HelperProcess.run(["pm-delete", manager.service, "alice"], environment: temp.environment) == "0")
        #expect(try manager.key(for: "alice") == nil)
        #expect(try !manager.isValid(key: nil, for: "alice"))
    }

    @Test(
        "an unlock and a lock reach every process of the user",
        .enabled(if: KeychainFile.unlockScope == .userSession, "the kernel user keyring is unavailable here"))
    func lockAcrossProcesses() throws {
        let temp = try TemporaryKeychain(password: true)
        let keychain = Keychain(service: "svc").context(temp.context())
        try keychain.set("v", forKey: "k")
        let manager = PasswordManager(context: temp.context())
        try manager.register(key: "cached", for: "alice")
        #expect(try manager.key(for: "alice") == "cached")
        let id = try DeviceIdentifier().context(temp.context()).value()

        // Unlocked here, so unlocked in the helper too.
        #expect(try HelperProcess.run(["lock-state"], environment: temp.environment) == "0 unlocked")
        #expect(try HelperProcess.run(["kc-get", "svc", "k"], environment: temp.environment) == "0 v")

        // Another process locks: this process is locked too, and the cache stops serving.
        #expect(try HelperProcess.run(["lock"], environment: temp.environment) == "0")
        #expect(try temp.file.lockState == .locked)
        #expect(throws: KeychainError.interactionNotAllowed) { try manager.key(for: "alice") }
        #expect(manager.cachedKeyCount == 0)
        #expect(try HelperProcess.run(["kc-get", "svc", "k"], environment: temp.environment) == "-25308")
        // The device identifier (AfterFirstUnlockThisDeviceOnly) is still readable everywhere.
        #expect(try HelperProcess.run(["device-id"], environment: temp.environment) == "0 \(id.uuidString)")

        try temp.file.unlock(password: TemporaryKeychain.password)
        #expect(try HelperProcess.run(["kc-get", "svc", "k"], environment: temp.environment) == "0 v")
    }

    @Test(
        "KeychainFile.lockAll locks every keychain in every process, AfterFirstUnlock items too, as a logout does",
        .enabled(if: KeychainFile.unlockScope == .userSession, "the kernel user keyring is unavailable here"))
    func lockAllAcrossProcesses() throws {
        let temp = try TemporaryKeychain(password: true)
        let id = try DeviceIdentifier().context(temp.context()).value()
        try Keychain(service: "svc").context(temp.context()).set("v", forKey: "k")
        // The helpers keep their unlocks in a keyring of this test's own, so that lockAll leaves the
        // unlocks of the suites running beside it alone.
        var environment = temp.environment
        let keyring =
            "\(ProcessInfo.processInfo.environment["KEYCHAIN_KEYRING"] ?? "swift-keychain-test")-lock-all-\(UUID().uuidString.prefix(8))"
        environment["KEYCHAIN_KEYRING"] = keyring
        defer {
            if let ring = KernelKeyring.findKeyring(named: keyring) {
                KernelKeyring.withdraw(ring, from: KernelKeyring.userKeyring)
            }
        }
        #expect(try HelperProcess.run(["lock-state"], environment: environment) == "0 locked")
        #expect(
            try HelperProcess.run(["unlock", "correct horse battery staple"], environment: environment)
                == "0 userSession")
        #expect(try HelperProcess.run(["kc-get", "svc", "k"], environment: environment) == "0 v")
        #expect(try HelperProcess.run(["lock-all"], environment: environment) == "0")
        #expect(try HelperProcess.run(["lock-state"], environment: environment) == "0 locked")
        #expect(try HelperProcess.run(["kc-get", "svc", "k"], environment: environment) == "-25308")
        // Unlike lock(), the AfterFirstUnlock keys went too.
        #expect(try HelperProcess.run(["device-id"], environment: environment) == "-25308")
        // This process's own keyring was not touched.
        #expect(try DeviceIdentifier().context(temp.context()).value() == id)
    }
}
