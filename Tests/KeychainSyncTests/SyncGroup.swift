import Foundation
import KeychainCore
import KeychainSync
import KeychainTesting

/// Three (or more) devices on one machine sharing one remote: a plain folder, or a local bare git repository
/// with each device's private clone under its own `XDG_STATE_HOME`. Everything lives in one temporary
/// folder, removed with the group.
final class SyncGroup {
    enum Kind { case folder, git }

    let home: TemporaryKeychain
    let url: String
    let kind: Kind
    var devices: [(replica: MemoryReplica, engine: SyncEngine)] = []

    static let passphrase = "recovery words for the test"

    /// - Parameter branch: the bare repository's HEAD branch (git remotes only).
    init(_ kind: Kind, devices count: Int = 3, branch: String = "main") throws {
        home = try TemporaryKeychain()
        self.kind = kind
        switch kind {
        case .folder:
            url = home.directory + "/shared"
            try FileManager.default.createDirectory(atPath: url, withIntermediateDirectories: true)
        case .git:
            url = home.directory + "/remote.git"
            try Self.git(["init", "-q", "--bare", "-b", branch, url])
        }
        for index in 0..<count {
            let replica = MemoryReplica()
            let engine = SyncEngine(replica: replica, environment: environment(index))
            devices.append((replica, engine))
        }
    }

    func environment(_ index: Int) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_STATE_HOME"] = home.directory + "/device\(index)/state"
        environment["HOME"] = home.directory + "/device\(index)"
        // No git identity of the user's: sync's commits must name the device on their own.
        for name in ["GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"] {
            environment[name] = nil
        }
        return environment
    }

    func replica(_ index: Int) -> MemoryReplica { devices[index].replica }
    func engine(_ index: Int) -> SyncEngine { devices[index].engine }

    /// Device 0 starts the group, device 1 joins by approval, device 2 with the recovery passphrase.
    func setUp() throws {
        _ = try engine(0).initialize(url: url, passphrase: secret(Self.passphrase), parameters: .testing)
        if devices.count > 1 {
            let code = try engine(1).requestJoin(url: url)
            _ = try engine(0).approve(code: code)
            _ = try engine(1).syncNow()
        }
        if devices.count > 2 {
            _ = try engine(2).joinWithRecovery(url: url, passphrase: secret(Self.passphrase))
        }
    }

    /// Every device syncs, twice round, so each has seen every other's changes.
    func syncAll() throws {
        for _ in 0..<2 { for device in devices { _ = try device.engine.syncNow() } }
    }

    func secret(_ text: String) -> SecureBytes { SecureBytes(copying: Array(text.utf8)) }

    /// The folder the devices' files are in: the shared folder, or (git) a fresh checkout of the remote.
    var remoteFiles: String {
        switch kind {
        case .folder: return url
        case .git:
            let checkout = home.directory + "/inspect"
            try? FileManager.default.removeItem(atPath: checkout)
            _ = try? Self.git(["clone", "-q", url, checkout])
            return checkout
        }
    }

    /// Every byte the remote holds: each file of the folder, or every blob of the git remote's whole history.
    func everyRemoteBlob() throws -> [[UInt8]] {
        try Inspector(kind: kind, url: url, scratch: home.directory).everyBlob()
    }

    /// Reads a remote as its storage provider sees it.
    struct Inspector {
        let kind: Kind
        let url: String
        let scratch: String

        func everyBlob() throws -> [[UInt8]] {
            switch kind {
            case .folder:
                let enumerator = FileManager.default.enumerator(atPath: url)
                var blobs: [[UInt8]] = []
                while let path = enumerator?.nextObject() as? String {
                    if let data = FileManager.default.contents(atPath: url + "/" + path) { blobs.append(Array(data)) }
                }
                return blobs
            case .git:
                let objects = try SyncGroup.git(["--git-dir", url, "rev-list", "--objects", "--all"])
                return try objects.split(separator: "\n").compactMap { line -> [UInt8]? in
                    let hash = String(line.split(separator: " ")[0])
                    guard try SyncGroup.git(["--git-dir", url, "cat-file", "-t", hash]).hasPrefix("blob") else {
                        return nil
                    }
                    return Array(try SyncGroup.gitData(["--git-dir", url, "cat-file", "blob", hash]))
                }
            }
        }
    }

    @discardableResult
    static func git(_ arguments: [String]) throws -> String {
        String(decoding: try gitData(arguments), as: UTF8.self)
    }

    static func gitData(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["GIT_CONFIG_NOSYSTEM"] = "1"
        environment["GIT_CONFIG_GLOBAL"] = "/dev/null"
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SyncError(.remote, "git \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
        }
        return data
    }

    /// Changes a remote file as a hostile storage provider would, and (git) pushes it.
    func tamper(_ body: (String) throws -> Void) throws {
        switch kind {
        case .folder: try body(url)
        case .git:
            let checkout = home.directory + "/tamper"
            try? FileManager.default.removeItem(atPath: checkout)
            try Self.git(["clone", "-q", url, checkout])
            try body(checkout)
            try Self.git(["-C", checkout, "add", "-A"])
            try Self.git([
                "-C", checkout, "-c", "user.name=attacker", "-c", "user.email=a@example.invalid", "commit", "-q", "-m",
                "tamper",
            ])
            try Self.git(["-C", checkout, "push", "-q", "--force", "origin", "HEAD:main"])
        }
    }
}
