internal import KeychainCore

/// Runs the `git` program (found on `PATH`, started by KeychainCore's `ChildProcess`) and collects its
/// output, as pass does: no libgit2 (design brief, "Sync").
///
/// The child's environment is the caller's with `GIT_CONFIG_NOSYSTEM=1`, `GIT_TERMINAL_PROMPT=0` and
/// `GIT_CONFIG_GLOBAL=/dev/null`, so neither the system's nor the user's git settings change what sync
/// does (commit signing, hooks, aliases); `HOME` is left alone. The user's credential helpers are passed on
/// with `-c credential.helper=…` (read once from their global config), so https remotes still authenticate.
struct GitProcess {
    /// What one run printed (standard output and standard error together) and its exit status.
    struct Outcome {
        let status: Int32
        let output: String
        var succeeded: Bool { status == 0 }
    }

    let environment: [String: String]

    /// Runs `git arguments…` in `directory` (nil: the current one) with the isolating environment; with
    /// `repository`, on that clone only (`GIT_DIR`, `GIT_WORK_TREE`).
    /// - Returns: the outcome; a git that cannot be started gives status 127 and a message saying so.
    func run(_ arguments: [String], in directory: String?, isolated: Bool = true, repository: String? = nil) -> Outcome
    {
        var environment = self.environment
        // The clone's own repository exactly: git never searches upwards into a repository of the user's.
        if let repository {
            environment["GIT_DIR"] = repository + "/.git"
            environment["GIT_WORK_TREE"] = repository
        }
        if isolated {
            environment["GIT_CONFIG_NOSYSTEM"] = "1"
            environment["GIT_CONFIG_GLOBAL"] = "/dev/null"
        }
        environment["GIT_TERMINAL_PROMPT"] = "0"
        environment["LC_ALL"] = "C"
        let location = directory.map { ["-C", $0] } ?? []
        switch ChildProcess.run(
            "git", location + arguments, environment: environment, searchPath: true, input: .null, output: .capture)
        {
        case .success(let run): return Outcome(status: run.status, output: String(decoding: run.output, as: UTF8.self))
        case .failure(let error): return Outcome(status: 127, output: "cannot run git: \(error)")
        }
    }
}
