internal import KeychainCore

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Every libc call the command-line tools make: terminal checks, no-echo prompts, echoed answers, raw reads and
/// writes on file descriptors, and process exit. Nothing else in `KeychainCLI` touches libc.
package enum Platform {
    /// Whether file descriptor `descriptor` is a terminal (`isatty(3)`).
    /// - Parameter descriptor: 0 for standard input, 1 for output, 2 for error.
    /// - Returns: `true` for a terminal.
    package static func isTerminal(_ descriptor: Int32) -> Bool {
        isatty(descriptor) == 1
    }

    /// The process environment as a dictionary (``ProcessEnvironment/current()``, read from `environ(7)`).
    /// - Returns: each variable's value by name.
    package static func environment() -> [String: String] {
        ProcessEnvironment.current()
    }

    /// Reads up to `count` bytes from `descriptor` into `buffer` (`read(2)`, retried on `EINTR`).
    /// - Returns: the number of bytes read; 0 at end of file; -1 on an error.
    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let result = Glibc_read(descriptor, base, buffer.count)
            if result < 0 && errno == EINTR { continue }
            return result
        }
    }

    /// Writes all of `bytes` to `descriptor` (`write(2)`, retried on `EINTR` and short writes).
    /// - Returns: `false` when the descriptor refuses the bytes (a closed pipe, for example).
    @discardableResult
    static func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let result = Glibc_write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if result < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += result
        }
        return true
    }

    /// Runs `program` (an absolute path) with `arguments` and `environment`, on this process's standard
    /// input, output and error, and waits for it (``ChildProcess/run(_:_:environment:searchPath:input:output:)``).
    /// - Returns: its exit status (128 + the signal when a signal ended it), or `nil` when it could not start.
    package static func run(_ program: String, _ arguments: [String], environment: [String: String]) -> Int32? {
        try? ChildProcess.run(program, arguments, environment: environment, output: .inherit).get().status
    }

    /// This program's file (`/proc/self/exe`), or `nil` when it cannot be read.
    package static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Removes the folder at `path` only if it is empty (`rmdir(2)`, which never removes anything else).
    /// - Returns: whether it was removed; false when it holds anything, is missing or cannot be removed.
    @discardableResult
    package static func removeEmptyDirectory(_ path: String) -> Bool {
        rmdir(path) == 0
    }

    /// Ends the process with `status` (`exit(3)`).
    package static func exit(_ status: Int32) -> Never {
        Glibc_exit(status)
    }

    /// Shows `prompt` on the controlling terminal and reads one line with echo turned off,
    /// as `getpass(3)` does (which macOS `security` uses), but into zeroising storage.
    ///
    /// Reads from `/dev/tty`, so standard input and output stay free for data.
    /// - Parameter prompt: text written to the terminal before reading.
    /// - Returns: the line without its newline, or `nil` when there is no terminal or it reached
    ///   end of file before a newline (the user pressed Ctrl-D).
    static func readSecretFromTerminal(prompt: String) -> SecureBytes? {
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard tty >= 0 else { return nil }
        defer { close(tty) }
        var promptBytes = Array(prompt.utf8)
        promptBytes.withUnsafeBytes { _ = write(tty, $0) }
        var original = termios()
        let haveTermios = tcgetattr(tty, &original) == 0
        if haveTermios {
            var silent = original
            silent.c_lflag &= ~tcflag_t(ECHO)
            silent.c_lflag |= tcflag_t(ECHONL)
            _ = tcsetattr(tty, TCSAFLUSH, &silent)
        }
        defer {
            if haveTermios { _ = tcsetattr(tty, TCSAFLUSH, &original) }
        }
        // Read byte by byte into a fixed buffer that is wiped afterwards.
        let capacity = 64 * 1024
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 1)
        defer {
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            buffer.deallocate()
        }
        var length = 0
        var sawNewline = false
        while length < capacity {
            let result = Glibc_read(tty, buffer.baseAddress! + length, 1)
            if result < 0 && errno == EINTR { continue }
            if result <= 0 { break }
            if buffer[length] == UInt8(ascii: "\n") {
                sawNewline = true
                break
            }
            length += 1
        }
        promptBytes.removeAll()
        guard sawNewline else { return nil }
        return SecureBytes(copying: UnsafeRawBufferPointer(rebasing: buffer[0..<length]))
    }

    /// Shows `prompt` on the controlling terminal and reads one short answer with echo left as it is
    /// (on), for questions such as a `[y/N]` whose answer is no secret.
    ///
    /// Reads from `/dev/tty`, as ``readSecretFromTerminal(prompt:)`` does, so standard input and output
    /// stay free for data. The terminal's settings are not changed.
    /// - Parameter prompt: text written to the terminal before reading.
    /// - Returns: the line without its newline (cut at 256 bytes, invalid UTF-8 replaced), or `nil` when
    ///   there is no terminal or it reached end of file before a newline (the user pressed Ctrl-D).
    static func readAnswerFromTerminal(prompt: String) -> String? {
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard tty >= 0 else { return nil }
        defer { close(tty) }
        Array(prompt.utf8).withUnsafeBytes { _ = write(tty, $0) }
        var answer: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let result = Glibc_read(tty, &byte, 1)
            if result < 0 && errno == EINTR { continue }
            if result <= 0 { return nil }
            if byte == UInt8(ascii: "\n") { break }
            if answer.count < 256 { answer.append(byte) }
        }
        return String(decoding: answer, as: UTF8.self)
    }
}

// Module-qualified names so the wrappers above do not call themselves.
#if canImport(Glibc)
    private func Glibc_read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        Glibc.read(fd, buffer, count)
    }
    private func Glibc_write(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        Glibc.write(fd, buffer, count)
    }
    private func Glibc_exit(_ status: Int32) -> Never { Glibc.exit(status) }
#elseif canImport(Musl)
    private func Glibc_read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        Musl.read(fd, buffer, count)
    }
    private func Glibc_write(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        Musl.write(fd, buffer, count)
    }
    private func Glibc_exit(_ status: Int32) -> Never { Musl.exit(status) }
#elseif canImport(Darwin)
    private func Glibc_read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        Darwin.read(fd, buffer, count)
    }
    private func Glibc_write(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        Darwin.write(fd, buffer, count)
    }
    private func Glibc_exit(_ status: Int32) -> Never { Darwin.exit(status) }
#endif
