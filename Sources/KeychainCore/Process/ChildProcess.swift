#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// A child process started with `posix_spawn`: the one wrapper through which the project starts
/// programs (`security portal-migrate` starting the provider, sync's `git`, the pinentry of
/// ``AssuanConnection``), and its one decoding of a wait status.
///
/// Arguments and the environment are copied into C strings for the call only; a secret never goes
/// there (secrets reach children on pipes or sockets).
///
/// The value is the child's pid; whoever started it waits for it once (``wait()``, ``reapIfExited()``).
package struct ChildProcess: Sendable {
    /// Where one of the child's standard streams goes.
    package enum Stream: Sendable, Equatable {
        /// This process's own stream.
        case inherit
        /// `/dev/null` (opened for reading as input, for writing as output).
        case null
        /// This descriptor, duplicated onto the stream in the child.
        case descriptor(Int32)
    }

    /// What ``run(_:_:environment:searchPath:input:output:)`` does with the child's standard output and error.
    package enum Output: Sendable {
        /// They are this process's.
        case inherit
        /// Both go into one pipe, read to its end and returned.
        case capture
    }

    /// A start that failed: `posix_spawn`'s error number (`ENOENT`, `EACCES`, `ETXTBSY`, …).
    package struct StartError: Error, Sendable, Equatable, CustomStringConvertible {
        package let code: Int32
        package var description: String { String(cString: strerror(code)) }
    }

    /// The child's process id.
    package let pid: Int32

    /// Starts `program` with `arguments`.
    /// - Parameters:
    ///   - program: an absolute path, or with `searchPath` a name looked up on `PATH` (`posix_spawnp`).
    ///   - arguments: the arguments after `argv[0]`, which is `program`.
    ///   - environment: the child's environment; `nil`: this process's.
    ///   - searchPath: look `program` up on `PATH`.
    ///   - input, output, error: the child's standard streams.
    ///   - defaultSignals: start the child with every signal unblocked and at its default disposition,
    ///     whatever this process blocks or ignores (a daemon ignoring `SIGPIPE` must not pass that on).
    /// - Returns: the child, or the error number of a start that failed.
    package static func start(
        _ program: String, _ arguments: [String], environment: [String: String]? = nil, searchPath: Bool = false,
        input: Stream = .inherit, output: Stream = .inherit, error: Stream = .inherit, defaultSignals: Bool = false
    ) -> Result<ChildProcess, StartError> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (stream, target, mode) in [(input, Int32(0), O_RDONLY), (output, 1, O_WRONLY), (error, 2, O_WRONLY)] {
            switch stream {
            case .inherit: break
            case .null: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", mode, 0)
            case .descriptor(let descriptor): posix_spawn_file_actions_adddup2(&actions, descriptor, target)
            }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        if defaultSignals {
            var none = sigset_t()
            sigemptyset(&none)
            posix_spawnattr_setsigmask(&attributes, &none)
            var all = sigset_t()
            sigfillset(&all)
            posix_spawnattr_setsigdefault(&attributes, &all)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        }
        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map {
            $0.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { for entry in envp ?? [] { free(entry) } }
        var child: pid_t = 0
        let code = envp.withEnvironment { environment in
            searchPath
                ? posix_spawnp(&child, program, &actions, &attributes, argv, environment)
                : posix_spawn(&child, program, &actions, &attributes, argv, environment)
        }
        return code == 0 ? .success(ChildProcess(pid: child)) : .failure(StartError(code: code))
    }

    /// Runs `program` to its end (``start(_:_:environment:searchPath:input:output:error:defaultSignals:)``,
    /// then ``wait()``).
    /// - Parameters:
    ///   - input: the child's standard input.
    ///   - output: whether its standard output and error are this process's or captured together.
    /// - Returns: the exit status (``exitStatus(fromWaitStatus:)``) and what it printed (empty unless
    ///   captured); the error number when it could not start, or a pipe could not be made (`EMFILE`…).
    package static func run(
        _ program: String, _ arguments: [String], environment: [String: String]? = nil, searchPath: Bool = false,
        input: Stream = .inherit, output: Output
    ) -> Result<(status: Int32, output: [UInt8]), StartError> {
        guard case .capture = output else {
            return start(program, arguments, environment: environment, searchPath: searchPath, input: input)
                .map { (status: $0.wait(), output: []) }
        }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return .failure(StartError(code: errno)) }
        // Close-on-exec (the child gets the writing end through dup2, which clears it), so that a program
        // started later does not hold the writing end open. (Glibc's Swift module does not export pipe2.)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let started = start(
            program, arguments, environment: environment, searchPath: searchPath, input: input,
            output: .descriptor(ends[1]), error: .descriptor(ends[1]))
        close(ends[1])
        defer { close(ends[0]) }
        return started.map { child in
            var printed: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(ends[0], $0.baseAddress!, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                printed += buffer[0..<count]
            }
            return (status: child.wait(), output: printed)
        }
    }

    /// Waits for the child to end (retrying when a signal interrupts the wait).
    /// - Returns: its exit status (``exitStatus(fromWaitStatus:)``); 127 when it cannot be waited for
    ///   (already reaped, or not this process's child).
    package func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return 127 }
        }
        return Self.exitStatus(fromWaitStatus: status)
    }

    /// Reaps the child if it has ended, without waiting.
    /// - Returns: `true` when it is gone (reaped now, or cannot be waited for); `false` while it runs.
    package func reapIfExited() -> Bool {
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped < 0 && errno == EINTR { continue }
            return reaped != 0
        }
    }

    /// Sends `signal` to the child.
    package func signal(_ signal: Int32) { kill(pid, signal) }

    /// A shell's exit status from a `waitpid` status: the exit code, or 128 + the signal that ended the
    /// child (`WIFEXITED`/`WEXITSTATUS`/`WTERMSIG` are macros Swift cannot call, so decoded here, once).
    package static func exitStatus(fromWaitStatus status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}

extension Optional where Wrapped == [UnsafeMutablePointer<CChar>?] {
    /// Gives `body` this environment's `envp`, or this process's (`environ`) when `nil`.
    fileprivate func withEnvironment<R>(_ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
        switch self {
        case .some(let entries): entries.withUnsafeBufferPointer { body($0.baseAddress!) }
        case .none: body(environ)
        }
    }
}
