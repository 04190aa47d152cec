package import KeychainCore

/// A git remote (any URL git can push to), through a private clone of this device's own under
/// `$XDG_STATE_HOME/keychains/sync/<device id>/` and the `git` program.
///
/// Pull commits anything left uncommitted by an interrupted run, fetches, and rebases this device's commits
/// onto the remote's sync branch; since every device adds only files of its own, the rebase never conflicts.
/// The branch is the remote's HEAD branch when it has one (`git ls-remote --symref`, or for an empty remote the
/// unborn HEAD the first `git clone` of it learns), else `main`; it is chosen once and kept in the clone's config as `swkc.branch`, so a
/// later change of the remote's HEAD never moves the logs. (A clone from before the choice, which already has
/// `origin/main`, keeps `main`.)
/// Publish commits as the device (`-c user.name=<device> -c user.email=<id>@swift-keychain.invalid`, so no
/// git identity is needed) and pushes, fetching and rebasing again when the push is refused because another
/// device pushed first. A failed push keeps the commit, which the next run pushes: nothing is lost.
package struct GitTransport: SyncTransport {
    package let url: String
    package let clone: String
    let device: SyncDeviceID
    let git: GitProcess
    let credentialOptions: [String]

    package init(url: String, clone: String, device: SyncDeviceID, environment: [String: String]) {
        self.url = url
        self.clone = clone
        self.device = device
        git = GitProcess(environment: environment)
        // The user's credential helpers (global config only) keep working for https remotes.
        if url.hasPrefix("http://") || url.hasPrefix("https://") {
            let helpers = git.run(["config", "--global", "--get-all", "credential.helper"], in: nil, isolated: false)
            credentialOptions =
                helpers.succeeded
                ? helpers.output.split(separator: "\n").flatMap { ["-c", "credential.helper=\($0)"] } : []
        } else {
            credentialOptions = []
        }
    }

    package var displayName: String { url }

    /// The clone's folder for a keychain's device: `$XDG_STATE_HOME/keychains/sync/<device id>`.
    package static func clonePath(device: SyncDeviceID, environment: [String: String]) -> String {
        let state =
            environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? FileSystem.homeDirectory()) + "/.local/state"
        return state + "/keychains/sync/\(device)"
    }

    package func pull() throws(SyncError) {
        try prepare()
        try commitPending(message: "sync: finish an interrupted run")
        let fetch = run(["fetch", "-q", "origin"])
        guard fetch.succeeded else {
            throw SyncError(.remote, "cannot fetch from \(url): \(Self.lastLine(fetch.output))")
        }
        let branch = syncBranch()
        guard run(["rev-parse", "-q", "--verify", "refs/remotes/origin/\(branch)"]).succeeded else { return }
        if run(["rev-parse", "-q", "--verify", "HEAD"]).succeeded {
            let rebase = run(["rebase", "-q", "origin/\(branch)"])
            if !rebase.succeeded {
                _ = run(["rebase", "--abort"])
                throw SyncError(.remote, "cannot rebase onto \(url): \(Self.lastLine(rebase.output))")
            }
        } else {
            let reset = run(["reset", "-q", "--hard", "origin/\(branch)"])
            guard reset.succeeded else {
                throw SyncError(.remote, "cannot check out \(url): \(Self.lastLine(reset.output))")
            }
        }
    }

    package func list(_ directory: String) throws(SyncError) -> [String] {
        try folder.list(directory)
    }

    package func folders(_ directory: String) throws(SyncError) -> [String] {
        try folder.folders(directory)
    }

    package func read(_ path: String) throws(SyncError) -> [UInt8]? {
        try folder.read(path)
    }

    package func write(_ files: [(path: String, bytes: [UInt8])]) throws(SyncError) {
        try prepare()
        try folder.write(files)
    }

    package func remove(_ paths: [String]) throws(SyncError) {
        try folder.remove(paths)
    }

    package func publish(message: String) throws(SyncError) {
        try commitPending(message: message)
        guard run(["rev-parse", "-q", "--verify", "HEAD"]).succeeded else { return }
        CrashPoint.reach("sync.git-committed")
        var last = ""
        let branch = syncBranch()
        for _ in 0..<3 {
            let push = run(["push", "-q", "origin", "HEAD:refs/heads/\(branch)"])
            if push.succeeded { return }
            last = Self.lastLine(push.output)
            // Refused because another device pushed first: take its commits and try again.
            try pull()
        }
        throw SyncError(.remote, "cannot push to \(url): \(last) (the changes stay queued for the next sync)")
    }

    // MARK: - Private

    private var folder: FolderTransport { FolderTransport(root: clone) }

    private func run(_ arguments: [String]) -> GitProcess.Outcome {
        git.run(
            ["-c", "core.hooksPath=/dev/null", "-c", "commit.gpgsign=false"] + credentialOptions + arguments, in: clone,
            repository: clone)
    }

    /// Makes the clone on first use: `git clone` of the URL, which learns the remote's HEAD branch even when the
    /// remote is empty (stored as `swkc.branch`); when the remote cannot be reached, `git init -b main` with
    /// `origin` = the URL (the branch is then chosen by the first run that reaches it).
    private func prepare() throws(SyncError) {
        if FileSystem.exists(clone + "/.git") { return }
        do { try FileSystem.makePrivateDirectory(clone) } catch {
            throw SyncError(.remote, "cannot make \(clone): \(error.detail ?? "I/O error")")
        }
        let cloned = git.run(
            ["-c", "core.hooksPath=/dev/null"] + credentialOptions + ["clone", "-q", "--no-hardlinks", url, clone],
            in: nil)
        if cloned.succeeded {
            // The remote's HEAD branch; but when HEAD names no branch yet while `main` exists (a group made by a
            // build that always used `main`), `main`.
            let head = run(["symbolic-ref", "HEAD"])
            if head.succeeded, head.output.hasPrefix("refs/heads/"),
                var branch = Self.branchName(String(head.output.dropFirst("refs/heads/".count)))
            {
                if !run(["rev-parse", "-q", "--verify", "refs/remotes/origin/\(branch)"]).succeeded,
                    run(["rev-parse", "-q", "--verify", "refs/remotes/origin/main"]).succeeded
                {
                    branch = "main"
                }
                _ = run(["config", Self.branchConfig, branch])
            }
            return
        }
        guard !FileSystem.exists(clone + "/.git") else {
            throw SyncError(.remote, "git clone failed: \(Self.lastLine(cloned.output))")
        }
        let initialize = git.run(["init", "-q", "-b", "main", clone], in: nil)
        guard initialize.succeeded else {
            throw SyncError(.remote, "git init failed: \(Self.lastLine(initialize.output))")
        }
        let remote = run(["remote", "add", "origin", url])
        guard remote.succeeded else {
            throw SyncError(.remote, "git remote add failed: \(Self.lastLine(remote.output))")
        }
    }

    /// The branch the logs live on: `swkc.branch` in the clone's config, else chosen now and stored there (see the
    /// type's documentation). While the remote cannot be reached the choice is not stored, and `main` is used (a
    /// fetch or push then fails anyway and the next run chooses).
    func syncBranch() -> String {
        let stored = run(["config", "--get", Self.branchConfig])
        if stored.succeeded, let name = Self.branchName(stored.output) { return name }
        var chosen: String?
        if run(["rev-parse", "-q", "--verify", "refs/remotes/origin/main"]).succeeded {
            chosen = "main"
        } else {
            let remote = run(["ls-remote", "--symref", "origin", "HEAD"])
            if remote.succeeded {
                chosen = Self.symbolicHead(remote.output) ?? "main"
            }
        }
        guard let chosen else { return "main" }
        _ = run(["config", Self.branchConfig, chosen])
        return chosen
    }

    static let branchConfig = "swkc.branch"

    /// The branch of `ref: refs/heads/NAME<TAB>HEAD` in `git ls-remote --symref` output.
    static func symbolicHead(_ output: String) -> String? {
        for line in output.split(separator: "\n") where line.hasPrefix("ref: refs/heads/") && line.hasSuffix("\tHEAD") {
            return branchName(String(line.dropFirst("ref: refs/heads/".count).dropLast("\tHEAD".count)))
        }
        return nil
    }

    /// A branch name as git printed it, trimmed; nil when empty or not a plain name.
    static func branchName(_ text: String) -> String? {
        let name = text.split(whereSeparator: \.isWhitespace).first.map(String.init) ?? ""
        guard !name.isEmpty, !name.hasPrefix("-"), !name.contains("..") else { return nil }
        return name
    }

    private func commitPending(message: String) throws(SyncError) {
        _ = run(["add", "-A"])
        guard !run(["diff", "--cached", "--quiet"]).succeeded else { return }
        let commit = run([
            "-c", "user.name=swift-keychain \(device)", "-c", "user.email=\(device)@swift-keychain.invalid",
            "commit", "-q", "--no-verify", "-m", message,
        ])
        guard commit.succeeded else { throw SyncError(.remote, "git commit failed: \(Self.lastLine(commit.output))") }
    }

    private static func lastLine(_ output: String) -> String {
        output.split(separator: "\n").last.map(String.init) ?? "git failed"
    }
}
