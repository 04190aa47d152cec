/// Three-answer questions through pinentry (Assuan `SETOK`, `SETNOTOK`, `SETCANCEL`, then `CONFIRM`):
/// pinentry's OK button is "Allow", its "not OK" button "Always Allow", and Cancel (or Escape, or
/// closing the dialog) "Deny", so that the safe answer is the one a dismissed dialog gives.
extension Pinentry {
    /// Asks `confirmation` through a new pinentry process. Under ``Prompters/withCancellation(_:_:)``,
    /// a ``PromptCancellation/cancel()`` closes it.
    /// - Returns: `OK` → `.allowOnce`; `ERR` with GnuPG's `GPG_ERR_NOT_CONFIRMED` (114) → `.alwaysAllow`;
    ///   `ERR` with `GPG_ERR_CANCELED` (99) or `GPG_ERR_FULLY_CANCELED` (198) → `.deny`.
    /// - Throws: `.interactionNotAllowed` when pinentry cannot be started or fails otherwise (the
    ///   question was not shown); `.userCanceled` when the cancellation came before it was shown.
    package func confirm(_ confirmation: AccessConfirmation) throws(KeychainFailure) -> AccessConfirmation.Answer {
        var arguments: [String] = []
        if let ttyName { arguments += ["--ttyname", ttyName] }
        if let ttyType { arguments += ["--ttytype", ttyType] }
        let cancellation = Prompters.cancellation
        if cancellation?.isCancelled == true { throw KeychainFailure(.userCanceled, "the question was dismissed") }
        let connection = try AssuanConnection(program: program, arguments: arguments)
        if let cancellation, !cancellation.register(connection.processIdentifier) {
            throw KeychainFailure(.userCanceled, "the question was dismissed")
        }
        defer { withExtendedLifetime(connection) { cancellation?.unregister(connection.processIdentifier) } }
        var commands = [
            "SETTITLE " + AssuanConnection.percentEncode(AccessConfirmation.title),
            "SETDESC " + AssuanConnection.percentEncode(confirmation.text),
            "SETOK " + AssuanConnection.percentEncode(AccessConfirmation.allowOnceLabel),
            "SETNOTOK " + AssuanConnection.percentEncode(AccessConfirmation.alwaysAllowLabel),
            "SETCANCEL " + AssuanConnection.percentEncode(AccessConfirmation.denyLabel),
        ]
        if let ttyName { commands.append("OPTION ttyname=" + ttyName) }
        if let ttyType { commands.append("OPTION ttytype=" + ttyType) }
        for command in commands { _ = try connection.transact(command) }
        switch try connection.transact("CONFIRM") {
        case .ok: return .allowOnce
        case .error(let code, _):
            switch code & 0xFFFF {
            case 114: return .alwaysAllow
            case 99, 198: return .deny
            default:
                throw KeychainFailure(.interactionNotAllowed, "pinentry could not ask (error \(code))")
            }
        }
    }
}
