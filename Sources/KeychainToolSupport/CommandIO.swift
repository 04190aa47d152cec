package import KeychainCore

/// The streams, environment and terminal a command runs with.
///
/// The executables build one with ``standard()``; tests build one with in-memory streams, so every
/// command runs in-process with exact stdout, stderr and exit status to compare. Output is
/// collected in memory and written by ``flush()`` when the command ends.
package final class CommandIO {
    /// Standard input.
    package let input: any ByteInput
    /// Standard output.
    package let output: OutputBuffer
    /// Standard error.
    package let error: OutputBuffer
    /// The process environment (`HOME`, `XDG_DATA_HOME`, `XDG_STATE_HOME`, `KEYCHAIN_ENTITLEMENTS`).
    package let environment: [String: String]
    /// The terminal used for no-echo password prompts.
    package let terminal: any SecretPrompter

    /// Creates an IO context.
    /// - Parameters:
    ///   - input: standard input.
    ///   - environment: the environment the command sees.
    ///   - terminal: the prompter for `-w` without a value.
    ///   - errorIsTerminal: whether standard error is a terminal (``OutputBuffer/isTerminal``); tests set it to see
    ///     what a user at a terminal sees.
    package init(
        input: any ByteInput, environment: [String: String], terminal: any SecretPrompter, errorIsTerminal: Bool = false
    ) {
        self.input = input
        self.output = OutputBuffer(descriptor: 1, isTerminal: false)
        self.error = OutputBuffer(descriptor: 2, isTerminal: errorIsTerminal)
        self.environment = environment
        self.terminal = terminal
    }

    /// The real process streams (descriptors 0, 1, 2), environment and terminal.
    package static func standard(environment: [String: String]) -> CommandIO {
        CommandIO(
            input: FileInput(descriptor: 0), environment: environment, terminal: TerminalPrompter(),
            errorIsTerminal: Platform.isTerminal(2))
    }

    /// Writes the collected output to descriptors 1 and 2, then wipes the buffers.
    package func flush() {
        output.flush()
        error.flush()
    }
}

/// Collected output of one stream, as bytes.
package final class OutputBuffer {
    /// Everything written so far.
    package private(set) var bytes: [UInt8] = []
    private let descriptor: Int32
    /// Whether the stream is a terminal, so that a long command may show progress on it (only standard error's is
    /// ever checked; false for standard output).
    package let isTerminal: Bool

    init(descriptor: Int32, isTerminal: Bool) {
        self.descriptor = descriptor
        self.isTerminal = isTerminal
    }

    /// The output decoded as UTF-8 (invalid bytes replaced), for tests.
    package var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Appends the UTF-8 bytes of `string`.
    package func write(_ string: String) { bytes.append(contentsOf: string.utf8) }

    /// Appends raw bytes.
    package func write<Bytes: Sequence>(bytes more: Bytes) where Bytes.Element == UInt8 {
        bytes.append(contentsOf: more)
    }

    /// Appends `string` and a newline.
    package func line(_ string: String) {
        write(string)
        bytes.append(UInt8(ascii: "\n"))
    }

    /// Writes the bytes to the descriptor and zeroes the buffer (it may hold a password printed with `-w`).
    package func flush() {
        bytes.withUnsafeBytes { _ = Platform.write(descriptor, $0) }
        bytes.wipe()
        bytes.removeAll()
    }
}

/// A source of input bytes: standard input, or memory in tests.
package protocol ByteInput: AnyObject {
    /// Reads up to `maximum` bytes.
    /// - Returns: the bytes read; empty at end of input.
    func read(maximum: Int) -> [UInt8]
    /// Whether this input is an interactive terminal.
    var isTerminal: Bool { get }
}

/// Standard input read with `read(2)`.
package final class FileInput: ByteInput {
    private let descriptor: Int32

    /// Reads from `descriptor`.
    package init(descriptor: Int32) { self.descriptor = descriptor }

    package func read(maximum: Int) -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: max(1, min(maximum, 65536)))
        let count = chunk.withUnsafeMutableBytes { Platform.read(descriptor, into: $0) }
        if count <= 0 { return [] }
        chunk.removeSubrange(count...)
        return chunk
    }

    package var isTerminal: Bool { Platform.isTerminal(descriptor) }
}

/// Input from memory, for tests.
package final class MemoryInput: ByteInput {
    private var bytes: [UInt8]
    private var offset = 0
    /// Whether to pretend to be a terminal.
    package let isTerminal: Bool

    /// Serves `bytes`, then end of input.
    package init(_ bytes: [UInt8], isTerminal: Bool = false) {
        self.bytes = bytes
        self.isTerminal = isTerminal
    }

    /// Serves the UTF-8 bytes of `text`.
    package convenience init(_ text: String, isTerminal: Bool = false) {
        self.init(Array(text.utf8), isTerminal: isTerminal)
    }

    package func read(maximum: Int) -> [UInt8] {
        let end = min(bytes.count, offset + max(1, maximum))
        defer { offset = end }
        return Array(bytes[offset..<end])
    }
}

/// Reads lines of bounded length from a ``ByteInput``.
package struct LineReader {
    package enum Line {
        /// A line without its `\n`.
        case line([UInt8])
        /// A line longer than the limit; the rest of the input was not read.
        case tooLong
        /// End of input.
        case end
    }

    private let input: any ByteInput
    private var pending: [UInt8] = []
    private var pendingStart = 0
    private var atEnd = false

    package init(_ input: any ByteInput) { self.input = input }

    /// The next line, at most `limit` bytes long (not counting the newline).
    /// A last line without a newline is returned as a line.
    package mutating func next(limit: Int) -> Line {
        var line: [UInt8] = []
        while true {
            if pendingStart == pending.count {
                if atEnd { return line.isEmpty ? .end : .line(line) }
                pending = input.read(maximum: 4096)
                pendingStart = 0
                if pending.isEmpty {
                    atEnd = true
                    continue
                }
            }
            let slice = pending[pendingStart...]
            if let newline = slice.firstIndex(of: UInt8(ascii: "\n")) {
                line.append(contentsOf: pending[pendingStart..<newline])
                pendingStart = newline + 1
                return line.count > limit ? .tooLong : .line(line)
            }
            line.append(contentsOf: slice)
            pendingStart = pending.count
            if line.count > limit { return .tooLong }
        }
    }

    /// Everything left, up to `limit` bytes; `nil` when there is more.
    package mutating func rest(limit: Int) -> [UInt8]? {
        var all = Array(pending[pendingStart...])
        pendingStart = pending.count
        while !atEnd {
            let chunk = input.read(maximum: 65536)
            if chunk.isEmpty { atEnd = true } else { all += chunk }
            if all.count > limit { return nil }
        }
        return all.count > limit ? nil : all
    }
}

/// Asks the user for a secret without echo, or for a short answer that is no secret, with echo.
package protocol SecretPrompter {
    /// Shows `prompt` and reads one line without echo.
    /// - Returns: the secret, or `nil` when no terminal is available or the user ended input.
    func readSecret(prompt: String) -> SecureBytes?

    /// Shows `prompt` and reads one line with echo: the answer to a question such as `[y/N]`.
    /// - Returns: the answer, or `nil` when no terminal is available or the user ended input.
    func readAnswer(prompt: String) -> String?
}

/// The controlling terminal (`/dev/tty`), as `getpass(3)` uses it.
package struct TerminalPrompter: SecretPrompter {
    package init() {}

    package func readSecret(prompt: String) -> SecureBytes? {
        Platform.readSecretFromTerminal(prompt: prompt)
    }

    package func readAnswer(prompt: String) -> String? {
        Platform.readAnswerFromTerminal(prompt: prompt)
    }
}

/// Answers prompts from a script, for tests. Records each prompt shown.
package final class ScriptedPrompter: SecretPrompter {
    private var answers: [String?]
    /// The prompts shown, in order, by both readers.
    package private(set) var prompts: [String] = []
    /// The prompts shown by ``readAnswer(prompt:)`` (read with echo), in order.
    package private(set) var echoedPrompts: [String] = []

    /// Answers prompts with `answers` in order; `nil` (or running out) means end of input.
    package init(_ answers: [String?]) { self.answers = answers }

    package func readSecret(prompt: String) -> SecureBytes? {
        prompts.append(prompt)
        guard !answers.isEmpty, let answer = answers.removeFirst() else { return nil }
        return SecureBytes(copying: Array(answer.utf8))
    }

    package func readAnswer(prompt: String) -> String? {
        prompts.append(prompt)
        echoedPrompts.append(prompt)
        guard !answers.isEmpty, let answer = answers.removeFirst() else { return nil }
        return answer
    }
}
