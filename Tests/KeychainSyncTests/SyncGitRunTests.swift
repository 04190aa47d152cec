import Foundation
import KeychainCore
import KeychainTesting
import Testing

@testable import KeychainSecurityTool
@testable import KeychainSync

/// Sync runs over git as a user with no git identity runs them (issue 26): a lost push race, runs that overlap on
/// one device, git's own message, and a failed join.
@Suite("Sync over git: lost push races, overlapping runs, git's messages, failed joins")
struct SyncGitRunTests {
    static let passphrase = "a recovery passphrase for the tests\n"

    @Test("a device that loses the push race rebases its commit as the device, with no git identity, and goes on")
    func lostRace() throws {
        let group = try SyncGroup(.git, devices: 2)
        try group.setUp()
        try group.syncAll()
        let first = SyncItemID.random()
        let second = SyncItemID.random()
        group.replica(0).write(first, "from device 0")
        group.replica(1).write(second, "from device 1")
        // Device 0 pushes while device 1 is between its fetch and its push: device 1's push is refused, and it
        // must replay its local commit on top of device 0's.
        var raced = false
        group.engine(1).step = { (name: String) throws(SyncError) in
            guard name == "fetched", !raced else { return }
            raced = true
            _ = try group.engine(0).syncNow()
        }
        _ = try group.engine(1).syncNow()
        group.engine(1).step = nil
        #expect(raced)
        _ = try group.engine(1).syncNow()
        _ = try group.engine(0).syncNow()
        #expect(group.replica(0).value(second) == "from device 1")
        #expect(group.replica(1).value(first) == "from device 0")
    }

    @Test("git failing in the clone is a local failure (exit 5), not an unreachable remote (exit 3)")
    func localFailure() throws {
        let group = try SyncGroup(.git, devices: 2)
        try group.setUp()
        let clone = GitTransport.clonePath(
            device: try group.replica(0).syncDeviceID(), environment: group.environment(0))
        // Another git holds the clone's index: the commit cannot be made.
        #expect(FileManager.default.createFile(atPath: clone + "/.git/index.lock", contents: Data()))
        let item = SyncItemID.random()
        group.replica(0).write(item, "queued")
        #expect(throws: SyncError.self) { _ = try group.engine(0).syncNow() }
        do {
            _ = try group.engine(0).syncNow()
        } catch {
            #expect(error.kind == .local, "\(error)")
            #expect(error.message.hasPrefix("git add failed: fatal: Unable to create"), "\(error)")
            guard case .message(_, let status) = SyncCommand.failure(error, verb: "now") else {
                Issue.record("not a message")
                return
            }
            #expect(status == 5)
        }
        try FileManager.default.removeItem(atPath: clone + "/.git/index.lock")
        _ = try group.engine(0).syncNow()
        _ = try group.engine(1).syncNow()
        #expect(group.replica(1).value(item) == "queued")
    }

    @Test("a missing remote is reported with git's fatal lines, not only its last line")
    func missingRemoteMessage() throws {
        let group = try SyncGroup(.git, devices: 1)
        try group.setUp()
        try FileManager.default.moveItem(atPath: group.url, toPath: group.url + ".away")
        do {
            _ = try group.engine(0).syncNow()
            Issue.record("synced with no remote")
        } catch {
            #expect(error.kind == .remote)
            let lines = error.message.split(separator: "\n")
            #expect(
                lines.first
                    == "cannot fetch from \(group.url): fatal: '\(group.url)' does not appear to be a git repository",
                "\(error)")
            #expect(lines.allSatisfy { !$0.hasPrefix("and the repository exists") }, "\(error)")
        }
    }

    @Test("git's messages keep fatal and error lines, and never a URL's password")
    func gitMessages() {
        #expect(
            GitTransport.gitMessage(
                "fatal: 'x' does not appear to be a git repository\nfatal: Could not read from remote repository.\n\n"
                    + "Please make sure you have the correct access rights\nand the repository exists.\n")
                == "fatal: 'x' does not appear to be a git repository\nfatal: Could not read from remote repository.")
        #expect(GitTransport.gitMessage("  hint: one\n two \n") == "hint: one\ntwo")
        #expect(GitTransport.gitMessage("\n") == "git failed")
        #expect(
            GitTransport.gitMessage("fatal: unable to access 'https://me:hunter2@example.org/r.git/': 403")
                == "fatal: unable to access 'https://example.org/r.git/': 403")
        #expect(
            GitTransport.withoutCredentials("ssh://git@host/r and https://u:p@h:8443/x")
                == "ssh://host/r and https://h:8443/x")
        #expect(GitTransport.withoutCredentials("/tmp/a://b") == "/tmp/a://b")
        #expect(GitTransport.withoutCredentials("no url: here") == "no url: here")
    }

    @Test("runs of sync now on one device at once wait for each other: none fails, and the result converges")
    func overlappingRuns() throws {
        let home = try TemporaryKeychain()
        let url = home.directory + "/remote.git"
        try SyncGroup.git(["init", "-q", "--bare", "-b", "main", url])
        let device = try SyncDevice()
        let other = try SyncDevice()
        for name in ["GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"] {
            device.environment[name] = nil
        }
        try #require(device.security("sync", "init", url, stdin: Self.passphrase).status == 0)
        for round in 0..<2 {
            for index in 0..<3 { try device.add(service: "svc-\(round)-\(index)", account: "me", secret: "s\(index)") }
            let environment = device.environment
            let outcomes = Outcomes()
            DispatchQueue.concurrentPerform(iterations: 6) { index in
                let arguments = index == 5 ? ["sync", "now", "--if-changed"] : ["sync", "now"]
                let outcome = try? SecurityProcess.run(arguments, environment: environment)
                outcomes.append(outcome ?? .init(status: -2, out: "", err: "could not start security"))
            }
            for outcome in outcomes.all { #expect(outcome.status == 0, "\(outcome)") }
        }
        #expect(device.security("sync", "status").out.contains("pending changes: 0"))
        #expect(other.security("sync", "join", "--recovery", url, stdin: Self.passphrase).status == 0)
        for round in 0..<2 {
            for index in 0..<3 { #expect(try other.secret(service: "svc-\(round)-\(index)") == "s\(index)") }
        }
        // No lock file stays behind once the keychain stops syncing.
        let lock = SyncRunLock.path(device: try device.store.syncDeviceID(), environment: device.environment)
        #expect(FileManager.default.fileExists(atPath: lock))
        #expect(device.security("sync", "leave").status == 0)
        #expect(!FileManager.default.fileExists(atPath: lock))
        #expect(!FileManager.default.fileExists(atPath: FileSystem.directory(of: lock)))
    }

    /// The outcomes of runs on several threads.
    final class Outcomes: @unchecked Sendable {  // every access holds `lock`
        private let lock = NSLock()
        private var list: [SecurityProcess.Outcome] = []
        func append(_ outcome: SecurityProcess.Outcome) { lock.withLock { list.append(outcome) } }
        var all: [SecurityProcess.Outcome] { lock.withLock { list } }
    }

    @Test(
        "a join that fails (wrong recovery passphrase, or an unreachable remote) removes the clone it made",
        arguments: [true, false])
    func failedJoin(wrongPassphrase: Bool) throws {
        let home = try TemporaryKeychain()
        let url = home.directory + "/remote.git"
        try SyncGroup.git(["init", "-q", "--bare", "-b", "main", url])
        let starter = try SyncDevice()
        try #require(starter.security("sync", "init", url, stdin: Self.passphrase).status == 0)
        let joiner = try SyncDevice()
        let clone = GitTransport.clonePath(device: try joiner.store.syncDeviceID(), environment: joiner.environment)
        let joined =
            wrongPassphrase
            ? joiner.security("sync", "join", "--recovery", url, stdin: "not the passphrase\n")
            : joiner.security("sync", "join", "--recovery", url + ".missing", stdin: Self.passphrase)
        #expect(joined.status == (wrongPassphrase ? 1 : 3), "\(joined)")
        #expect(!FileManager.default.fileExists(atPath: clone), "\(joined)")
        #expect(!FileManager.default.fileExists(atPath: FileSystem.directory(of: clone)))
        #expect(joiner.security("sync", "status").out.hasPrefix("not syncing"))
        // A later join with the right passphrase works from a clean start.
        let again = joiner.security("sync", "join", "--recovery", url, stdin: Self.passphrase)
        #expect(again.status == 0, "\(again)")
    }

    @Test("devices, remove-device of this device and resolve of an unknown copy say why, with exit 1")
    func notApplicable() throws {
        let device = try SyncDevice()
        let devices = device.security("sync", "devices")
        #expect(devices.status == 1)
        #expect(
            devices.err
                == "security: sync devices: this keychain does not sync: run security sync init URL or security sync join URL\n"
        )
        let home = try TemporaryKeychain()
        let url = home.directory + "/remote.git"
        try SyncGroup.git(["init", "-q", "--bare", "-b", "main", url])
        try #require(device.security("sync", "init", url, stdin: Self.passphrase).status == 0)
        let me = try device.store.syncDeviceID()
        let removed = device.security("sync", "remove-device", me.description)
        #expect(removed.status == 1)
        #expect(
            removed.err
                == "security: sync remove-device: \(me) is this device: security sync leave takes it out of the group\n"
        )
        let unknown = SyncItemID.random()
        let resolved = device.security("sync", "resolve", unknown.description, "winner")
        #expect(resolved.status == 1, "\(resolved)")
        #expect(
            resolved.err == "security: sync resolve: no conflict copy \(unknown): security sync conflicts lists them\n")
        #expect(device.security("sync", "leave").status == 0)
    }

    @Test("sync init and join store a local path remote absolute and normalised; URLs and scp-style remotes as given")
    func storedRemotePaths() {
        #expect(
            SyncEngine.storedRemote("../syncrepo.git", currentDirectory: "/home/u/t/sub") == "/home/u/t/syncrepo.git")
        #expect(SyncEngine.storedRemote("../fsync", currentDirectory: "/home/u/t/sub") == "/home/u/t/fsync")
        #expect(SyncEngine.storedRemote("./sub/../fsync/", currentDirectory: "/home/u/t") == "/home/u/t/fsync")
        #expect(
            SyncEngine.storedRemote("/home/u/t/sub/../syncrepo.git", currentDirectory: "/x") == "/home/u/t/syncrepo.git"
        )
        #expect(SyncEngine.storedRemote("./a:b", currentDirectory: "/home/u") == "/home/u/a:b")
        #expect(SyncEngine.storedRemote("/srv/a://b", currentDirectory: "/x") == "/srv/a:/b")
        #expect(SyncEngine.storedRemote("git@host:keys/sync.git", currentDirectory: "/x") == "git@host:keys/sync.git")
        #expect(SyncEngine.storedRemote("host:sync.git", currentDirectory: "/x") == "host:sync.git")
        #expect(SyncEngine.storedRemote("https://h/../r.git", currentDirectory: "/x") == "https://h/../r.git")
        #expect(SyncEngine.storedRemote("file:///srv/../r.git", currentDirectory: "/x") == "file:///srv/../r.git")
        #expect(SyncEngine.storedRemote("ssh://git@h/r.git", currentDirectory: "/x") == "ssh://git@h/r.git")
    }

    @Test("security sync init ../syncrepo.git and join --recovery ../fsync keep syncing after the current folder moves")
    func relativeRemoteSurvivesMove() throws {
        let home = try TemporaryKeychain()
        let repository = home.directory + "/syncrepo.git"
        try SyncGroup.git(["init", "-q", "--bare", "-b", "main", repository])
        let sub = home.directory + "/sub"
        try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: false)
        let device = try SyncDevice()
        for name in ["GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"] {
            device.environment[name] = nil
        }
        let started = try SecurityProcess.run(
            ["sync", "init", "../syncrepo.git"], environment: device.environment, stdin: Self.passphrase,
            directory: sub)
        #expect(started.status == 0, "\(started)")
        #expect(started.out.hasPrefix("sync set up with \(repository): this device is "), "\(started)")
        #expect(try device.store.syncState(named: "sync.remote") == Array(repository.utf8))
        // The folder of the init and join runs moves away; every later run starts elsewhere.
        try FileManager.default.moveItem(atPath: sub, toPath: home.directory + "/moved")
        try device.add(service: "svc", account: "me", secret: "s1")
        let synced = try SecurityProcess.run(["sync", "now"], environment: device.environment)
        #expect(synced.status == 0, "\(synced)")
        #expect(synced.out.hasPrefix("in sync with \(repository)\n"), "\(synced)")

        let folder = home.directory + "/fsync"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let other = try SyncDevice()
        let otherSub = home.directory + "/other"
        try FileManager.default.createDirectory(atPath: otherSub, withIntermediateDirectories: false)
        let folderStart = try SecurityProcess.run(
            ["sync", "init", "../fsync"], environment: other.environment, stdin: Self.passphrase, directory: otherSub)
        #expect(folderStart.status == 0, "\(folderStart)")
        #expect(folderStart.out.hasPrefix("sync set up with \(folder): this device is "), "\(folderStart)")
        let third = try SyncDevice()
        let joined = try SecurityProcess.run(
            ["sync", "join", "--recovery", "../fsync"], environment: third.environment, stdin: Self.passphrase,
            directory: otherSub)
        #expect(joined.status == 0, "\(joined)")
        #expect(try third.store.syncState(named: "sync.remote") == Array(folder.utf8))
        try FileManager.default.removeItem(atPath: otherSub)
        try other.add(service: "folder-svc", account: "me", secret: "f1")
        #expect(try SecurityProcess.run(["sync", "now"], environment: other.environment).status == 0)
        let thirdSynced = try SecurityProcess.run(["sync", "now"], environment: third.environment)
        #expect(thirdSynced.status == 0, "\(thirdSynced)")
        #expect(thirdSynced.out.hasPrefix("in sync with \(folder)\n"), "\(thirdSynced)")
        #expect(try third.secret(service: "folder-svc") == "f1")
    }
}
