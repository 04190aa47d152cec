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
/// Every git run has the device as author and committer (`GIT_AUTHOR_NAME`/`GIT_COMMITTER_NAME` =
/// `swift-keychain <device id>`, `…_EMAIL` = `<device id>@swift-keychain.invalid` in its environment), so neither a
/// commit nor the rebase that replays one needs a git identity of the user's. Publish commits and pushes, fetching
/// and rebasing again when the push is refused because another
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
        git = GitProcess(environment: environment.merging(Self.identity(device)) { _, device in device })
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

    /// The device's git identity, for every commit sync makes or replays (see the type's documentation).
    static func identity(_ device: SyncDeviceID) -> [String: String] {
        let name = "swift-keychain \(device)"
        let email = "\(device)@swift-keychain.invalid"
        return [
            "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email, "GIT_COMMITTER_NAME": name,
            "GIT_COMMITTER_EMAIL": email,
        ]
    }

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
            throw SyncError(
                .remote, "cannot fetch from \(Self.withoutCredentials(url)): \(Self.gitMessage(fetch.output))")
        }
        let branch = syncBranch()
        guard run(["rev-parse", "-q", "--verify", "refs/remotes/origin/\(branch)"]).succeeded else { return }
        if run(["rev-parse", "-q", "--verify", "HEAD"]).succeeded {
            let rebase = run(["rebase", "-q", "origin/\(branch)"])
            if !rebase.succeeded {
                _ = run(["rebase", "--abort"])
                throw SyncError(
                    .local, "cannot rebase onto \(Self.withoutCredentials(url)): \(Self.gitMessage(rebase.output))")
            }
        } else {
            let reset = run(["reset", "-q", "--hard", "origin/\(branch)"])
            guard reset.succeeded else {
                throw SyncError(
                    .local, "cannot check out \(Self.withoutCredentials(url)): \(Self.gitMessage(reset.output))")
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
            last = Self.gitMessage(push.output)
            // Refused because another device pushed first: take its commits and try again.
            try pull()
        }
        throw SyncError(
            .remote,
            "cannot push to \(Self.withoutCredentials(url)): \(last) (the changes stay queued for the next sync)")
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
            throw SyncError(.local, "cannot make \(clone): \(error.detail ?? "I/O error")")
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
            throw SyncError(.remote, "git clone failed: \(Self.gitMessage(cloned.output))")
        }
        let initialize = git.run(["init", "-q", "-b", "main", clone], in: nil)
        guard initialize.succeeded else {
            throw SyncError(.local, "git init failed: \(Self.gitMessage(initialize.output))")
        }
        let remote = run(["remote", "add", "origin", url])
        guard remote.succeeded else {
            throw SyncError(.local, "git remote add failed: \(Self.gitMessage(remote.output))")
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
        let add = run(["add", "-A"])
        guard add.succeeded else { throw SyncError(.local, "git add failed: \(Self.gitMessage(add.output))") }
        guard !run(["diff", "--cached", "--quiet"]).succeeded else { return }
        let commit = run(["commit", "-q", "--no-verify", "-m", message])
        guard commit.succeeded else { throw SyncError(.local, "git commit failed: \(Self.gitMessage(commit.output))") }
    }

    /// What git said, for a message: its `fatal:` and `error:` lines, or when it printed none, its last 4 non-empty
    /// lines, each trimmed, with any `user:password@` of a URL taken out (``withoutCredentials(_:)``).
    static func gitMessage(_ output: String) -> String {
        let lines = output.split(separator: "\n").map {
            String($0.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        }.filter { !$0.isEmpty }
        let errors = lines.filter { $0.hasPrefix("fatal:") || $0.hasPrefix("error:") }
        let chosen = errors.isEmpty ? Array(lines.suffix(4)) : errors
        return chosen.isEmpty ? "git failed" : withoutCredentials(chosen.joined(separator: "\n"))
    }

    /// `text` with the user information of every `scheme://user:password@host` URL in it removed
    /// (`scheme://host`), so a message never shows a password that a URL carries.
    package static func withoutCredentials(_ text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let slash = rest.firstIndex(of: "/") {
            let next = rest.index(after: slash)
            guard slash > rest.startIndex, rest[rest.index(before: slash)] == ":", next < rest.endIndex,
                rest[next] == "/"
            else {
                result += rest[...slash]
                rest = rest[next...]
                continue
            }
            result += rest[...next]
            rest = rest[rest.index(after: next)...]
            let authority = rest.prefix { !$0.isWhitespace && $0 != "/" && $0 != "'" && $0 != "\"" }
            if let at = authority.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        }
        return result + rest
    }
}
