import Foundation
import KeychainCore
import KeychainSecurityTool
import KeychainSync
import KeychainTesting
import KeychainToolSupport
import Testing

/// One device for the end-to-end tests: a keychain of its own in its own home, reached through
/// `security sync …` run in-process and through the engine's gateway for items.
final class SyncDevice {
    let keychain: TemporaryKeychain
    let store: Keystore
    /// The environment `security` runs in (and passes on to the git that sync starts).
    var environment: [String: String]

    init() throws {
        keychain = try TemporaryKeychain(opening: true)
        store = try #require(keychain.firstConnection)
        var environment = keychain.environment
        environment["HOME"] = keychain.directory
        environment["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        environment["KEYCHAIN_KDF"] = "testing"
        environment["KEYCHAIN_KEYRING"] = ClassKeyStore.keyringName
        self.environment = environment
    }

    /// Another installation with a copy of `original`'s keychain file (and its write-ahead log), in a home of its
    /// own without a device key: the first unlock with the password adopts the copy.
    init(copying original: SyncDevice) throws {
        keychain = try TemporaryKeychain()
        try FileManager.default.createDirectory(
            atPath: keychain.keychainDirectory, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        for suffix in ["", "-wal"]
        where FileManager.default.fileExists(atPath: original.keychain.location.databasePath + suffix) {
            try FileManager.default.copyItem(
                atPath: original.keychain.location.databasePath + suffix,
                toPath: keychain.location.databasePath + suffix)
        }
        store = try Keystore(location: keychain.location, create: false)
        var environment = original.environment
        environment.merge(keychain.environment) { _, new in new }
        environment["HOME"] = keychain.directory
        self.environment = environment
    }

    var gateway: ItemGateway { ItemGateway(keystore: store, identity: .manager) }

    /// `security <arguments>` in-process: (status, stdout, stderr).
    @discardableResult
    func security(_ arguments: String..., stdin: String = "") -> (status: Int32, out: String, err: String) {
        let io = CommandIO(input: MemoryInput(stdin), environment: environment, terminal: ScriptedPrompter([]))
        let status = SecurityTool.run(arguments, context: SecurityContext(io: io))
        return (status, io.output.text, io.error.text)
    }

    func add(service: String, account: String, secret: String, synchronizable: Bool = true, protection: String = "ak")
        throws
    {
        _ = try gateway.add(
            NewItem(
                .genericPassword,
                attributes: [
                    "svce": .string(service), "acct": .string(account), "labl": .string("label-\(service)"),
                    "sync": .bool(synchronizable), "pdmn": .string(protection),
                ], secret: SecureBytes(copying: Array(secret.utf8))))
    }

    func update(service: String, secret: String) throws {
        _ = try gateway.update(
            ItemQuery(
                itemClass: .genericPassword, filters: ["svce": .string(service)], scope: gateway.callerScope,
                synchronizable: .any),
            changes: [:],
            secret: SecureBytes(copying: Array(secret.utf8)))
    }

    func delete(service: String) throws {
        _ = try gateway.delete(
            ItemQuery(
                itemClass: .genericPassword, filters: ["svce": .string(service)], scope: gateway.callerScope,
                synchronizable: .any))
    }

    /// The secret of the item of `service`, or nil when there is none.
    func secret(service: String) throws -> String? {
        var authorizer = AccessAuthorizer(keystore: store, context: nil, ui: .fail, reason: nil)
        let found = try gateway.search(
            ItemQuery(
                itemClass: .genericPassword, filters: ["svce": .string(service)], scope: gateway.callerScope,
                synchronizable: .any),
            projection: [.attributes], release: &authorizer)
        return found.first?.secret.map { String(decoding: $0.unprotectedCopy, as: UTF8.self) }
    }
}

@Suite("security sync end to end: three keychains with their own homes, over git and over a folder")
struct SyncKeychainTests {
    static let passphrase = "a recovery passphrase for the tests\n"

    /// Three devices joined to one group at `url`: 0 by init, 1 by approval, 2 by recovery.
    func group(_ kind: SyncGroup.Kind, home: TemporaryKeychain) throws -> (devices: [SyncDevice], url: String) {
        let url: String
        switch kind {
        case .folder:
            url = home.directory + "/shared"
            try FileManager.default.createDirectory(atPath: url, withIntermediateDirectories: true)
        case .git:
            url = home.directory + "/remote.git"
            try SyncGroup.git(["init", "-q", "--bare", "-b", "main", url])
        }
        let devices = try (0..<3).map { _ in try SyncDevice() }
        let started = devices[0].security("sync", "init", url, stdin: Self.passphrase)
        try #require(started.status == 0, "\(started)")
        let asked = devices[1].security("sync", "join", "--no-wait", url)
        try #require(asked.status == 0, "\(asked)")
        let code = try #require(asked.out.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
        let approved = devices[0].security("sync", "approve", code)
        try #require(approved.status == 0, "\(approved)")
        try #require(devices[1].security("sync", "now").status == 0)
        let recovered = devices[2].security("sync", "join", "--recovery", url, stdin: Self.passphrase)
        try #require(recovered.status == 0, "\(recovered)")
        return (devices, url)
    }

    func syncAll(_ devices: [SyncDevice]) {
        for _ in 0..<2 {
            for device in devices {
                let outcome = device.security("sync", "now")
                #expect(outcome.status == 0, "\(outcome)")
            }
        }
    }

    @Test(
        "Add, update and delete reach every device; the remote never holds a secret, label, service or account",
        arguments: SyncEngineTests.kinds)
    func endToEnd(kind: SyncGroup.Kind) throws {
        let home = try TemporaryKeychain()
        let (devices, url) = try group(kind, home: home)
        try devices[0].add(service: "svc-synced", account: "acct-synced", secret: "secret-synced")
        try devices[0].add(service: "svc-local", account: "acct-local", secret: "secret-local", synchronizable: false)
        try devices[0].add(
            service: "svc-device", account: "acct-device", secret: "secret-device", synchronizable: false,
            protection: "aku")
        syncAll(devices)
        for device in devices[1...] {
            #expect(try device.secret(service: "svc-synced") == "secret-synced")
            #expect(try device.secret(service: "svc-local") == nil)
            #expect(try device.secret(service: "svc-device") == nil)
        }
        try devices[1].update(service: "svc-synced", secret: "secret-updated")
        syncAll(devices)
        for device in devices { #expect(try device.secret(service: "svc-synced") == "secret-updated") }
        try devices[2].delete(service: "svc-synced")
        syncAll(devices)
        for device in devices { #expect(try device.secret(service: "svc-synced") == nil) }

        let group = SyncGroup.Inspector(kind: kind, url: url, scratch: home.directory)
        let words = [
            "secret-synced", "secret-updated", "secret-local", "secret-device", "svc-synced", "svc-local", "svc-device",
            "acct-synced", "acct-local", "acct-device", "label-svc", "recovery passphrase",
        ]
        let blobs = try group.everyBlob()
        #expect(blobs.count > 5)
        for blob in blobs {
            for word in words { #expect(!SyncEngineTests.contains(blob, Array(word.utf8)), "the remote holds \(word)") }
        }
    }

    @Test(
        "Concurrent offline edits converge everywhere, and security sync conflicts lists the loser",
        arguments: SyncEngineTests.kinds)
    func concurrentEdits(kind: SyncGroup.Kind) throws {
        let home = try TemporaryKeychain()
        let (devices, _) = try group(kind, home: home)
        try devices[0].add(service: "svc-both", account: "acct", secret: "base")
        syncAll(devices)
        try devices[0].update(service: "svc-both", secret: "edit on 0")
        // Offline from each other, but device 1's edit a few milliseconds later, so that its clock is the greater
        // one. Two edits within one millisecond are ordered by device id (SyncClock), and when device 0's wins,
        // device 1 keeps the copy of its own edit and never sends it, so device 0 would have none to list.
        usleep(3_000)
        try devices[1].update(service: "svc-both", secret: "edit on 1")
        syncAll(devices)
        let values = try devices.map { try $0.secret(service: "svc-both") }
        #expect(Set(values) == ["edit on 1"])
        let listed = devices[0].security("sync", "conflicts")
        #expect(listed.status == 0)
        #expect(listed.out.split(separator: "\n").filter { $0.contains("lost against") }.count == 1, "\(listed)")
        #expect(!listed.out.contains("edit on"))
    }

    @Test(
        "Delete on one device and a concurrent edit on another: the later one wins on all three, with no conflict copy",
        arguments: SyncEngineTests.kinds)
    func deleteAgainstEdit(kind: SyncGroup.Kind) throws {
        let home = try TemporaryKeychain()
        let (devices, _) = try group(kind, home: home)
        try devices[0].add(service: "svc-edit-wins", account: "acct", secret: "base")
        try devices[0].add(service: "svc-delete-wins", account: "acct", secret: "base")
        syncAll(devices)
        // Offline from each other: 0 deletes, then 1 edits the same item; 1 edits, then 0 deletes the other.
        try devices[0].delete(service: "svc-edit-wins")
        usleep(5_000)
        try devices[1].update(service: "svc-edit-wins", secret: "edited after the delete")
        try devices[1].update(service: "svc-delete-wins", secret: "edited before the delete")
        usleep(5_000)
        try devices[0].delete(service: "svc-delete-wins")
        syncAll(devices)
        for device in devices {
            #expect(try device.secret(service: "svc-edit-wins") == "edited after the delete")
            #expect(try device.secret(service: "svc-delete-wins") == nil)
            #expect(device.security("sync", "conflicts").out == "no conflicts\n")
        }
    }

    @Test("A removed device reads nothing added after its removal; devices lists the rest")
    func removedDevice() throws {
        let home = try TemporaryKeychain()
        let (devices, _) = try group(.folder, home: home)
        let removed = try devices[2].store.syncDeviceID()
        let outcome = devices[0].security("sync", "remove-device", removed.description)
        #expect(outcome.status == 0, "\(outcome)")
        try devices[0].add(service: "svc-after", account: "acct", secret: "after removal")
        syncAll(Array(devices[0...1]))
        #expect(try devices[1].secret(service: "svc-after") == "after removal")
        let refused = devices[2].security("sync", "now")
        #expect(refused.status == 1)
        #expect(refused.err.contains("this device was removed"))
        #expect(try devices[2].secret(service: "svc-after") == nil)
        let listed = devices[0].security("sync", "devices")
        #expect(listed.out.split(separator: "\n").count == 2)
        #expect(!listed.out.contains(removed.description))
    }

    @Test("A segment tampered with makes security sync now exit 4 naming the device, and applies nothing from it")
    func tamperedExitStatus() throws {
        let home = try TemporaryKeychain()
        let (devices, url) = try group(.folder, home: home)
        try devices[0].add(service: "svc-tampered", account: "acct", secret: "never applied")
        #expect(devices[0].security("sync", "now").status == 0)
        let folder = url + "/devices/\(try devices[0].store.syncDeviceID())"
        let name = try #require(
            try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".seg") }.max())
        var bytes = Array(try #require(FileManager.default.contents(atPath: folder + "/" + name)))
        bytes[bytes.count - 80] ^= 1
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + name))
        let outcome = devices[1].security("sync", "now")
        #expect(outcome.status == 4)
        #expect(outcome.err.contains("device \(try devices[0].store.syncDeviceID()): bad signature"))
        #expect(try devices[1].secret(service: "svc-tampered") == nil)
    }

    @Test("sync now on a locked keychain says so once, exits 36, and applies the changes after unlock")
    func lockedOnce() throws {
        let home = try TemporaryKeychain()
        let (devices, _) = try group(.folder, home: home)
        try devices[0].add(service: "svc-while-locked", account: "acct", secret: "waits in the remote")
        #expect(devices[0].security("sync", "now").status == 0)
        let password = SecureBytes(copying: Array("device 1 password".utf8))
        try devices[1].store.setPassword(password, current: nil, parameters: .testing)
        try devices[1].store.withdrawAllClassKeys()
        let locked = devices[1].security("sync", "now")
        #expect(locked.status == 36)
        #expect(locked.out.isEmpty)
        let lines = locked.err.split(separator: "\n")
        #expect(lines.count == 1, "\(locked)")
        #expect(lines.first?.hasPrefix("security: sync now: the keychain is locked (") == true, "\(locked)")
        #expect(lines.first?.hasSuffix("): unlock it with security unlock-keychain") == true, "\(locked)")
        // The path unit's run is no failure while locked: the timer's run after unlock sends the changes.
        let automatic = devices[1].security("sync", "now", "--if-changed")
        #expect(automatic.status == 0, "\(automatic)")
        #expect(automatic.out == "the keychain is locked: its changes go out at the first sync after unlock\n")
        try devices[1].store.unlock(password: password)
        #expect(devices[1].security("sync", "now").status == 0)
        #expect(try devices[1].secret(service: "svc-while-locked") == "waits in the remote")
        #expect(devices[1].security("sync", "now", "--if-changed").out == "nothing to send\n")
        #expect(devices[1].security("sync", "now", "--if-changed", "--recovery").status == 2)
    }

    @Test("find-generic-password shows \"sync\"<uint32>=0x00000001 before \"type\" for a synchronizable item only")
    func findShowsSync() throws {
        let device = try SyncDevice()
        try device.add(service: "svc-synced", account: "acct", secret: "s1")
        try device.add(service: "svc-local", account: "acct", secret: "s2", synchronizable: false)
        let synced = device.security("find-generic-password", "-s", "svc-synced")
        #expect(synced.status == 0, "\(synced)")
        let lines = synced.out.split(separator: "\n")
        let sync = try #require(lines.firstIndex(of: "    \"sync\"<uint32>=0x00000001 "), "\(synced)")
        #expect(lines[sync - 1].hasPrefix("    \"svce\"<blob>="))
        #expect(lines[sync + 1] == "    \"type\"<uint32>=<NULL>")
        let local = device.security("find-generic-password", "-s", "svc-local")
        #expect(local.status == 0, "\(local)")
        #expect(!local.out.contains("\"sync\""))
        #expect(synced.out.split(separator: "\n").count == local.out.split(separator: "\n").count + 1)
    }

    @Test("security sync usage errors exit 2; help sync prints the verbs")
    func usage() throws {
        let device = try SyncDevice()
        #expect(device.security("sync").status == 2)
        #expect(device.security("sync", "bogus").status == 2)
        #expect(device.security("sync", "init").status == 2)
        #expect(device.security("sync", "resolve", "00", "maybe").status == 2)
        #expect(device.security("sync", "now", "--recovery").status == 2)
        let help = device.security("help", "sync")
        #expect(help.status == 0)
        #expect(help.out.hasPrefix("Usage: sync init URL"))
    }

    @Test("Commands before set-up say how to set up and exit 1")
    func notSetUp() throws {
        let device = try SyncDevice()
        let outcome = device.security("sync", "now")
        #expect(outcome.status == 1)
        #expect(outcome.err.contains("security sync init URL"))
        #expect(device.security("sync", "status").out.hasPrefix("not syncing"))
    }
}
