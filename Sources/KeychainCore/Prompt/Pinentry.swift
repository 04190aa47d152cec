#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// The prompter that runs a pinentry program (GnuPG's password dialog: `pinentry-gnome3`, `-qt`,
/// `-curses`, `-tty`), one process per question, as gpg-agent does.
///
/// The program is chosen by ``PinentryLocator``. Terminal flavours get the terminal as gpg-agent
/// gives it: `OPTION ttyname=` from `$GPG_TTY` or standard input's terminal, `OPTION ttytype=` from `$TERM`.
package struct Pinentry: Prompter {
    /// The program's path.
    package let program: String
    /// The terminal to use (`/dev/pts/N`), if any.
    package let ttyName: String?
    /// `$TERM`, if set.
    package let ttyType: String?

    package init(program: String, ttyName: String? = nil, ttyType: String? = nil) {
        self.program = program
        self.ttyName = ttyName
        self.ttyType = ttyType
    }

    /// The pinentry for this process's environment.
    /// - Throws: `.interactionNotAllowed` when no pinentry is installed, or when neither a terminal
    ///   nor a display is available to show one (unless `$KEYCHAIN_PINENTRY` names a program, which
    ///   is then always used).
    /// - Parameters:
    ///   - environment: the variables to read (`KEYCHAIN_PINENTRY`, `GNUPGHOME`, `HOME`, `PATH`,
    ///     `DISPLAY`, `WAYLAND_DISPLAY`, `GPG_TTY`, `TERM`); the process's by default.
    ///   - terminal: the terminal standard input is on, if any; found with `ttyname(0)` by default.
    package static func fromEnvironment(
        _ environment: [String: String] = ProcessEnvironment.current(),
        terminal: String? = standardInputTerminal()
    ) throws(KeychainFailure) -> Pinentry {
        let tty = environment["GPG_TTY"].flatMap { $0.isEmpty ? nil : $0 } ?? terminal
        let locator = PinentryLocator(environment: environment)
        guard let (path, source) = locator.locate(hasTerminal: tty != nil) else {
            throw KeychainFailure(
                .interactionNotAllowed,
                "no pinentry program to ask for the password: install pinentry-tty (or another pinentry), or set \(PinentryLocator.overrideVariable)"
            )
        }
        if source != .override && tty == nil && !locator.hasDisplay {
            throw KeychainFailure(
                .interactionNotAllowed, "no terminal and no display to ask for the password (pinentry \(path))")
        }
        return Pinentry(program: path, ttyName: tty, ttyType: environment["TERM"])
    }

    /// The terminal standard input is on (`/dev/pts/N`), or `nil`.
    package static func standardInputTerminal() -> String? {
        isatty(0) == 1 ? ttyname(0).map { String(cString: $0) } : nil
    }

    /// Asks through a new pinentry process. Under ``Prompters/withCancellation(_:_:)``, a
    /// ``PromptCancellation/cancel()`` closes it (`.interactionNotAllowed`: the pinentry stopped), or,
    /// when it came first, refuses to ask (`.userCanceled`).
    package func requestPassword(_ prompt: PasswordPrompt) throws(KeychainFailure) -> SecureBytes {
        var arguments: [String] = []
        if let ttyName { arguments += ["--ttyname", ttyName] }
        if let ttyType { arguments += ["--ttytype", ttyType] }
        let cancellation = Prompters.cancellation
        if cancellation?.isCancelled == true {
            throw KeychainFailure(.userCanceled, "the password prompt was dismissed")
        }
        let connection = try AssuanConnection(program: program, arguments: arguments)
        // Registered while it asks, so that the current cancellation can close it; unregistered before
        // the connection (which reaps the process) goes.
        if let cancellation, !cancellation.register(connection.processIdentifier) {
            throw KeychainFailure(.userCanceled, "the password prompt was dismissed")
        }
        defer { withExtendedLifetime(connection) { cancellation?.unregister(connection.processIdentifier) } }
        var commands = [
            "SETTITLE " + AssuanConnection.percentEncode(prompt.title),
            "SETDESC " + AssuanConnection.percentEncode(prompt.description),
            "SETPROMPT " + AssuanConnection.percentEncode(prompt.label),
        ]
        if let error = prompt.error { commands.append("SETERROR " + AssuanConnection.percentEncode(error)) }
        if let ttyName { commands.append("OPTION ttyname=" + ttyName) }
        if let ttyType { commands.append("OPTION ttytype=" + ttyType) }
        for command in commands {
            // Options an older pinentry does not know are answered with ERR; the dialog still works.
            _ = try connection.transact(command)
        }
        switch try connection.transact("GETPIN") {
        case .ok(let pin):
            return pin ?? SecureBytes(count: 0) { _ in }
        case .error(let code, _):
            // GPG_ERR_CANCELED (99) and GPG_ERR_FULLY_CANCELED (198), in the low 16 bits of the code.
            let gpgError = code & 0xFFFF
            if gpgError == 99 || gpgError == 198 {
                throw KeychainFailure(.userCanceled, "the password prompt was canceled")
            }
            throw KeychainFailure(.interactionNotAllowed, "pinentry could not ask for the password (error \(code))")
        }
    }
}
