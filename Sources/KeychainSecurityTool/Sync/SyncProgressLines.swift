internal import KeychainSync
internal import KeychainToolSupport

/// Where `security sync` shows ``SyncEngine/progress`` lines: standard error, flushed at once, only when standard
/// error is a terminal (scripts, and the systemd units, see nothing), and at most one line a second, the first at
/// once, so that a first sync of a large keychain shows that it moves without scrolling the terminal away.
final class SyncProgressLines {
    /// The least time between two lines shown, in milliseconds.
    static let interval: UInt64 = 1000

    private let clock: () -> UInt64
    private let write: (String) -> Void
    private var lastShown: UInt64?

    /// Shows lines through `write`, timed by `clock` (Unix milliseconds; tests give both).
    init(clock: @escaping () -> UInt64 = SyncEngine.nowMilliseconds, write: @escaping (String) -> Void) {
        self.clock = clock
        self.write = write
    }

    /// The progress handler for a command run with `io`: nil (silent) when its standard error is not a terminal;
    /// else one that writes each line shown to standard error at once.
    static func handler(for io: CommandIO) -> ((String) -> Void)? {
        guard io.error.isTerminal else { return nil }
        let error = io.error
        let lines = SyncProgressLines { line in
            error.line(line)
            error.flush()
        }
        return { lines.show($0) }
    }

    /// Passes `line` on, unless a line was shown less than ``interval`` ago.
    func show(_ line: String) {
        let now = clock()
        if let lastShown, now >= lastShown, now - lastShown < Self.interval { return }
        lastShown = now
        write(line)
    }
}
