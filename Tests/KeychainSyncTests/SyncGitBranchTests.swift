import Foundation
import KeychainCore
import Testing

@testable import KeychainSync

/// Which branch of a git remote the logs live on (issue 26): the remote's HEAD branch, else `main`, chosen once and
/// kept in the clone's config as `swkc.branch`; and commits that need no git identity of the user's.
@Suite("Sync over git: the remote's own branch, and no git identity needed")
struct SyncGitBranchTests {
    func trimmed(_ text: String) -> String { text.trimmingCharacters(in: .whitespacesAndNewlines) }

    @Test("a bare repository whose HEAD is master gets the logs on master, so git log works there")
    func masterHead() throws {
        let group = try SyncGroup(.git, devices: 2, branch: "master")
        try group.setUp()
        let item = SyncItemID.random()
        group.replica(0).write(item, "on master")
        try group.syncAll()
        #expect(group.replica(1).value(item) == "on master")
        #expect(
            trimmed(try SyncGroup.git(["--git-dir", group.url, "branch", "--format=%(refname:short)"])) == "master")
        let log = try SyncGroup.git(["--git-dir", group.url, "log", "--format=%an <%ae>"])
        #expect(!log.isEmpty)
        for index in 0..<2 {
            let device = try group.replica(index).syncDeviceID()
            let clone = GitTransport.clonePath(device: device, environment: group.environment(index))
            #expect(
                trimmed(try SyncGroup.git(["--git-dir", clone + "/.git", "config", "swkc.branch"])) == "master",
                "device \(index)")
            // The commits name the device: the user has no git identity here (SyncGroup removes it).
            #expect(log.contains("swift-keychain \(device) <\(device)@swift-keychain.invalid>"), "device \(index)")
        }
    }

    @Test("a remote whose HEAD is main keeps main, and the clone remembers it")
    func mainHead() throws {
        let group = try SyncGroup(.git, devices: 2)
        try group.setUp()
        try group.syncAll()
        #expect(trimmed(try SyncGroup.git(["--git-dir", group.url, "branch", "--format=%(refname:short)"])) == "main")
        let clone = GitTransport.clonePath(
            device: try group.replica(1).syncDeviceID(), environment: group.environment(1))
        #expect(trimmed(try SyncGroup.git(["--git-dir", clone + "/.git", "config", "swkc.branch"])) == "main")
    }

    @Test("symbolic HEAD lines from git ls-remote are read, and anything else is not a branch")
    func lsRemoteParsing() {
        #expect(GitTransport.symbolicHead("ref: refs/heads/master\tHEAD\n0123abcd\tHEAD\n") == "master")
        #expect(GitTransport.symbolicHead("ref: refs/heads/trunk\tHEAD") == "trunk")
        #expect(GitTransport.symbolicHead("") == nil)
        #expect(GitTransport.symbolicHead("0123abcd\tHEAD\n") == nil)
        #expect(GitTransport.branchName("-x") == nil)
        #expect(GitTransport.branchName("a..b") == nil)
        #expect(GitTransport.branchName("main\n") == "main")
    }
}
