internal import Glibc

/// Runs the `git` program (found on `PATH`) with `posix_spawnp` and collects its output, as pass does:
/// no libgit2 (design brief, "Sync").
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
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { return Outcome(status: 127, output: "cannot make a pipe") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 2)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        let location = directory.map { ["-C", $0] } ?? []
        let argv: [UnsafeMutablePointer<CChar>?] = (["git"] + location + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for entry in envp { free(entry) } }
        var child: pid_t = 0
        let code = posix_spawnp(&child, "git", &actions, nil, argv, envp)
        close(pipeEnds[1])
        guard code == 0 else {
            close(pipeEnds[0])
            return Outcome(status: 127, output: "cannot run git: \(String(cString: strerror(code)))")
        }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(pipeEnds[0], $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            output += buffer[0..<n]
        }
        close(pipeEnds[0])
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS are macros: decode the wait status by hand.
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Outcome(status: exit, output: String(decoding: output, as: UTF8.self))
    }
}
