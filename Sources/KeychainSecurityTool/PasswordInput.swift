internal import KeychainCore
internal import KeychainToolSupport

/// Where the keychain-management commands get keychain passwords from.
///
/// As macOS `security` does: a `-p` value (kept for compatibility; anyone on the machine can read
/// it in the process list), else a no-echo prompt on the terminal (`getpass(3)`). Unlike macOS,
/// when standard input is not a terminal the password is read from it, one line each (the
/// newline is not part of the password), so scripts need not put it in argv.
final class PasswordInput {
    let context: SecurityContext
    private var reader: LineReader

    init(_ context: SecurityContext) {
        self.context = context
        self.reader = LineReader(context.io.input)
    }

    /// The longest password line accepted, in bytes.
    static let maximumBytes = 64 * 1024

    /// Whether the last ``nextLine()`` returned `nil` because the line was longer than ``maximumBytes``.
    private(set) var lastLineTooLong = false

    /// Whether answers come from the terminal (prompts are shown) rather than from standard input.
    var isInteractive: Bool { context.io.input.isTerminal }

    /// One password: `given`, else a prompt, else the next line of standard input.
    /// - Returns: `nil` when the user cancelled (end of input).
    func read(given: String?, prompt: String) -> SecureBytes? {
        if let given { return SecureBytes(copying: Array(given.utf8)) }
        if isInteractive { return context.io.terminal.readSecret(prompt: prompt) }
        return nextLine()
    }

    /// A new password: `given`, else asked twice on the terminal (up to `tries` times; with more
    /// than one try, `mismatch` is printed after each mismatch), else the next line of standard input.
    /// - Returns: the password, or `nil` when the user cancelled or never typed it the same twice.
    func readNew(
        given: String?, prompt: String, retype: String, tries: Int = 3, mismatch: String = "passwords don't match"
    ) -> SecureBytes? {
        if let given { return SecureBytes(copying: Array(given.utf8)) }
        guard isInteractive else { return nextLine() }
        for _ in 0..<tries {
            guard let first = context.io.terminal.readSecret(prompt: prompt),
                let second = context.io.terminal.readSecret(prompt: retype)
            else { return nil }
            if first.constantTimeEquals(second) { return first }
            if tries > 1 { context.io.error.line(mismatch) }
        }
        return nil
    }

    /// The next line of standard input, without its newline (and a CR before it).
    /// - Returns: `nil` at the end of input or for a line over ``maximumBytes``.
    func nextLine() -> SecureBytes? {
        lastLineTooLong = false
        switch reader.next(limit: Self.maximumBytes) {
        case .line(var bytes):
            if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
            let secret = SecureBytes(copying: bytes)
            bytes.wipe()
            return secret
        case .tooLong:
            lastLineTooLong = true
            return nil
        case .end:
            return nil
        }
    }
}

/// Option help shared by the commands that take a keychain password with `-p`.
enum PasswordOptionHelp {
    /// The warning every `-p` help line carries.
    static let warning = "insecure: other users of this machine can read it in the process list"
    /// The trailer lines of commands that take keychain passwords.
    static let trailer = [
        "Without -p the password is prompted for without echo, or read from standard input (one line)",
        "when standard input is not a terminal.",
    ]
}
