package import KeychainCore

/// How a command of the three tools (`security`, `git-credential-keychain`,
/// `docker-credential-keychain`) ends when it does not succeed. Every command throws it, and
/// ``report(to:io:)`` turns it into the message and the exit status, in one place for all three
/// tools (the role of swift-argument-parser's `ExitCode` and its error-to-message mapping).
/// Commands print only their results; they never print their own failures.
package enum CommandFailure: Error {
    /// A usage error: an optional line, then (for `security`) the command's usage and summary on
    /// stderr; exit 2.
    case usage(String?)
    /// A line of text, then exit with `status`.
    case message(String, status: Int32)
    /// An engine failure during `operation` (`security`: the API name Apple's tool prints, such as
    /// `SecKeychainSearchCopyNext`; the helpers: their action). `exit` replaces the status's
    /// exit code where Apple's tool exits 1 instead.
    case keychain(String, KeychainFailure, exit: Int32? = nil)
    /// An engine failure of a backup, restore, import or export: the reason is a second sentence.
    case transfer(String, KeychainFailure)
    /// The command already said why (a prompt gave up, a result was printed); exit with `status`.
    case exit(Int32)

    /// An engine status during `operation`, without a detail.
    package static func keychain(_ operation: String, _ status: KeychainStatus, exit: Int32? = nil) -> CommandFailure {
        .keychain(operation, KeychainFailure(status, nil), exit: exit)
    }

    /// An `OSStatus` from a SecItem call during `operation`.
    package static func keychain(_ operation: String, osStatus: Int32) -> CommandFailure {
        .keychain(operation, KeychainStatus(osStatus))
    }

    /// The tool whose conventions a failure is reported with.
    package enum Tool {
        /// `security`: messages on stderr as `security: <operation>: <Apple's message>`; the exit
        /// status is the `OSStatus`'s low 8 bits; a usage error prints `usage` (the command's usage
        /// and summary) and exits 2.
        case security(usage: String?)
        /// `git-credential-keychain`: messages on stderr;
        /// `git-credential-keychain: failed to <action>: <message> (<status>)`; exit 1.
        case gitCredential
        /// `docker-credential-keychain`: messages on **stdout**, as docker reads them;
        /// `credentials not found in native keychain`, else `<message> (<status>)`; exit 1.
        case dockerCredential
    }

    /// Runs a command and returns its exit status: 0 when `body` returns, else the status of the
    /// failure it throws, reported as `tool` reports it (``report(to:io:)``).
    /// - Parameters:
    ///   - tool: whose conventions apply.
    ///   - io: the streams.
    ///   - body: the command.
    /// - Returns: the process's exit status.
    package static func exitStatus(_ tool: Tool, io: CommandIO, _ body: () throws(CommandFailure) -> Void) -> Int32 {
        do {
            try body()
            return 0
        } catch {
            return error.report(to: tool, io: io)
        }
    }

    /// Prints the failure as `tool` reports it and returns the exit status.
    /// - Parameters:
    ///   - tool: whose conventions apply.
    ///   - io: the streams.
    /// - Returns: the process's exit status (never 0).
    package func report(to tool: Tool, io: CommandIO) -> Int32 {
        switch (self, tool) {
        case (.exit(let status), _):
            return status
        case (.usage(let message), .security(let usage)):
            if let message { io.error.line(message) }
            if let usage { io.error.write(usage) }
            return 2
        case (.usage(let message), .gitCredential), (.usage(let message), .dockerCredential):
            if let message { Self.stream(tool, io).line(message) }
            return 1
        case (.message(let text, let status), _):
            Self.stream(tool, io).line(text)
            return status
        case (.keychain(let operation, let failure, let exit), .security):
            io.error.line("security: \(operation): \(failure.status.message)")
            // A keychain file the engine refused (bad mode or owner, not a keychain, newer schema,
            // I/O): a second line with the engine's reason, which names the file and what to do
            // (never a secret or an item's name).
            if failure.status == .diskFull {
                // Reads still work and nothing was written; a delete too needs room for SQLite's journal (issue 24).
                io.error.line(
                    "security: the file system that holds the keychain is full, and nothing was changed; free space on it "
                        + "(remove other files there) and try again: even a delete needs a little room for its journal")
            } else if let detail = Self.printedDetail(failure) {
                io.error.line("security: \(detail)")
                // A damaged file: the same advice as the Secret Service provider gives (issue 24).
                if let path = DamagedFile.path(of: failure) {
                    // The engine's reason starts with the file's path: the command to type names it.
                    io.error.line(
                        "security: the file is left untouched; restore it from a backup with "
                            + "`security restore-keychain -i BACKUP \(Self.shellWord(path))`, or move it away to start a new keychain"
                    )
                }
            }
            return exit ?? CommandFailure.securityExitStatus(failure.status)
        case (.transfer(let operation, let failure), _):
            // A wrong passphrase prints Apple's message alone: there is nothing more to say.
            var line = "security: \(operation): \(failure.status.message)"
            if failure.status != .authFailed, let detail = failure.detail, !detail.isEmpty {
                line += " " + Self.sentence(detail, operation: operation)
            }
            Self.stream(tool, io).line(line)
            return CommandFailure.securityExitStatus(failure.status)
        case (.keychain(let action, let failure, _), .gitCredential):
            io.error.line(
                "\(CredentialHelpers.gitName): failed to \(action): \(failure.status.message) (\(failure.status.rawValue))"
                    + Self.lockedAdvice(failure.status))
            // The engine's reason on a line of its own, as `security` prints it (an entitlements file
            // refused, a keychain file refused): git shows the helper's stderr as it is.
            if let detail = Self.printedDetail(failure) { io.error.line("\(CredentialHelpers.gitName): \(detail)") }
            return 1
        case (.keychain(_, let failure, _), .dockerCredential):
            if failure.status == .itemNotFound {
                // docker compares the whole output with this text: nothing may follow it.
                io.output.line(CredentialHelpers.dockerNotFound)
                return 1
            }
            io.output.line(
                "\(failure.status.message) (\(failure.status.rawValue))" + Self.lockedAdvice(failure.status))
            // docker prints the helper's whole output in its error: the engine's reason as a second line.
            if let detail = Self.printedDetail(failure) { io.output.line(detail) }
            return 1
        }
    }

    /// The engine's reason the three tools print under a failure's message, or `nil`: the detail of a
    /// failure that is advice (``KeychainFailure/isAdvice``), of a keychain file the engine refused (bad
    /// mode or owner, not a keychain, newer schema, I/O: `.invalidKeychain`, `.wrongSecVersion`, `.io`),
    /// or of entitlements it refused (`.missingEntitlement`: the `KEYCHAIN_ENTITLEMENTS` file is missing,
    /// not a property list, has a key of the wrong type, or libplist is not installed; the caller lacks
    /// the access group). These details name files, variables and libraries, never a secret, an account
    /// or a service (``KeychainFailure``), so the credential helpers print them as `security` does.
    /// - Parameter failure: the engine's failure.
    /// - Returns: its detail when it is one of those, else `nil`.
    package static func printedDetail(_ failure: KeychainFailure) -> String? {
        guard
            failure.isAdvice || [.invalidKeychain, .wrongSecVersion, .io, .missingEntitlement].contains(failure.status)
        else { return nil }
        return failure.detail
    }

    /// A transfer failure's detail as the second sentence of its line, ending with a period. Its first
    /// letter is capitalised only when it starts with one of the engine's own words ("cannot read …",
    /// "the backup is damaged"): a first word of lowercase letters a–z alone that does not begin the file
    /// the command names (the text after the command's name, followed by a non-letter). A detail that starts with a path or a name ("d2 is shorter than …",
    /// "/k/login.keychain-db already exists") or a number keeps its case: `d2` is never printed as `D2`.
    /// - Parameters:
    ///   - detail: the engine's detail, not empty.
    ///   - operation: the command and its file (`import-passwords d2`), as the line names it.
    /// - Returns: the sentence.
    static func sentence(_ detail: String, operation: String) -> String {
        let end = detail.hasSuffix(".") ? "" : "."
        let firstWord = detail.prefix { $0 != " " }
        let operand = operation.firstIndex(of: " ").map { operation[operation.index(after: $0)...] } ?? ""
        let startsWithOperand =
            !operand.isEmpty && detail.hasPrefix(operand) && !(detail.dropFirst(operand.count).first?.isLetter ?? false)
        let isEngineWord =
            !firstWord.isEmpty && firstWord.utf8.allSatisfy { (0x61...0x7A).contains($0) } && !startsWithOperand
        guard isEngineWord, let first = detail.first else { return detail + end }
        return first.uppercased() + detail.dropFirst() + end
    }

    /// `security`'s exit status for a status: its low 8 bits, or 1 when those are 0 for a failure.
    package static func securityExitStatus(_ status: KeychainStatus) -> Int32 {
        let low = Int32(UInt32(bitPattern: status.rawValue) & 0xFF)
        return status.rawValue != 0 && low == 0 ? 1 : low
    }

    /// What the credential helpers add to a locked keychain's error (issue 24, item 5: they printed only
    /// "User interaction is not allowed."): the state and how to leave it.
    /// `text` as one word a POSIX shell reads back unchanged: as it is when it holds only characters no
    /// shell treats specially, otherwise in single quotes (each `'` written as `'\''`).
    static func shellWord(_ text: String) -> String {
        let plain =
            !text.isEmpty
            && text.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || "/._-+@%:,".utf8.contains(byte)
            }
        if plain { return text }
        return "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    private static func lockedAdvice(_ status: KeychainStatus) -> String {
        status == .interactionNotAllowed ? " The keychain is locked: unlock it with `security unlock-keychain`." : ""
    }

    /// Where `tool` prints its failures: stdout for docker, stderr for the others.
    private static func stream(_ tool: Tool, _ io: CommandIO) -> OutputBuffer {
        if case .dockerCredential = tool { return io.output }
        return io.error
    }
}
