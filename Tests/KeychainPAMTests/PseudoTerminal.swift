import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A program run on a pseudo-terminal of its own, as on a user's terminal: its standard input, output and
/// error are the terminal, which is also its controlling terminal (`/dev/tty`), so that `security`'s
/// no-echo password prompt and echoed answers behave as they do for a user. The test reads everything the
/// terminal shows (``transcript``), waits for a prompt, sees whether echo is off, and types.
///
/// The program runs under `setsid --ctty --wait` (util-linux): a session of its own, with the terminal as
/// its controlling one. Closing the terminal (``close()``, or `deinit`) hangs it up, which ends the
/// program if it still runs; `setsid` is then killed and reaped, so that nothing is left behind.
final class PseudoTerminal {
    /// Everything the program wrote to the terminal, with the echo of what was typed, `\r\n` as `\n`.
    var transcript: String { String(decoding: output, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n") }

    /// Starts `arguments` (an absolute path first) with `environment` on a new terminal.
    /// - Throws: when no pseudo-terminal can be made or the program cannot start.
    init(_ arguments: [String], environment: [String: String]) throws {
        // posix_openpt, grantpt and ptsname are not visible to Swift, nor are the _IOW/_IOR ioctl macros:
        // /dev/ptmx with TIOCSPTLCK (unlock) and TIOCGPTN (number), whose values asm-generic/ioctls.h gives.
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { throw Failure("open /dev/ptmx: errno \(errno)") }
        var unlock: CInt = 0
        var number: CUnsignedInt = 0
        guard ioctl(master, UInt(0x4004_5431), &unlock) == 0, ioctl(master, UInt(0x8004_5430), &number) == 0 else {
            Glibc.close(master)
            throw Failure("unlocking the pseudo-terminal: errno \(errno)")
        }
        guard let slave = FileHandle(forUpdatingAtPath: "/dev/pts/\(number)") else {
            Glibc.close(master)
            throw Failure("open /dev/pts/\(number)")
        }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["--ctty", "--wait"] + arguments
        process.environment = environment
        process.standardInput = slave
        process.standardOutput = slave
        process.standardError = slave
        do { try process.run() } catch {
            Glibc.close(master)
            throw error
        }
        // Only the program holds the terminal now, so that its end is seen as a hang-up here.
        try? slave.close()
    }

    /// How many bytes the terminal has shown so far: a position for ``waitFor(_:after:seconds:)``.
    var shownBytes: Int { output.count }

    /// Reads what the terminal shows until `text` is in it (after byte `from`, with `\r\n` as `\n`), the
    /// program closes it, or `seconds` pass. - Returns: whether `text` was seen.
    @discardableResult
    func waitFor(_ text: String, after from: Int = 0, seconds: Double = 60) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let shown = String(decoding: output[min(from, output.count)...], as: UTF8.self)
            if shown.replacingOccurrences(of: "\r\n", with: "\n").contains(text) { return true }
            guard Date() < deadline, readSome(until: deadline) else { return false }
        }
    }

    /// Waits until the terminal's echo is off (the program's no-echo prompt has set it, discarding any
    /// input typed before), reading its output meanwhile. - Returns: `false` after `seconds`.
    func waitForEchoOff(seconds: Double = 60) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            var settings = termios()
            // On Linux the master's termios calls reach the terminal's own settings.
            if tcgetattr(master, &settings) == 0, settings.c_lflag & tcflag_t(ECHO) == 0 { return true }
            _ = readSome(until: Date().addingTimeInterval(0.02))
        }
        return false
    }

    /// Whether the terminal's echo is on now.
    var echoes: Bool {
        var settings = termios()
        return tcgetattr(master, &settings) == 0 && settings.c_lflag & tcflag_t(ECHO) != 0
    }

    /// Types `text` on the terminal.
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Reads the rest of the output, then waits for the program to end (at most `seconds`).
    /// - Returns: its exit status, or `nil` when it did not end in time (it is then hung up and killed).
    func finish(seconds: Double = 60) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, readSome(until: deadline) {}
        while process.isRunning && Date() < deadline { usleep(20_000) }
        guard !process.isRunning else {
            close()
            return nil
        }
        close()
        return process.terminationStatus
    }

    /// Hangs the terminal up and stops `setsid` if it still runs; nothing is left running.
    func close() {
        if master >= 0 {
            Glibc.close(master)
            master = -1
        }
        if process.isRunning {
            usleep(100_000)  // the hang-up ends the program, and setsid --wait with it
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    deinit { close() }

    // MARK: - Private

    private var master: CInt
    private let process = Process()
    private var output: [UInt8] = []

    /// Reads what is there, waiting until `deadline` for something. - Returns: `false` once the program
    /// has closed the terminal (end of file or EIO) or the deadline passed with nothing to read.
    private func readSome(until deadline: Date) -> Bool {
        guard master >= 0 else { return false }
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        let milliseconds = max(0, Int32(deadline.timeIntervalSinceNow * 1000))
        guard poll(&descriptor, 1, milliseconds) > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(master, &buffer, buffer.count)
        guard count > 0 else { return false }
        output += buffer[0..<count]
        return true
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
