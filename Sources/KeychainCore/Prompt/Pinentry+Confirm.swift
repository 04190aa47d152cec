/// Three-answer questions through pinentry (Assuan `SETOK`, `SETNOTOK`, `SETCANCEL`, then `CONFIRM`):
/// pinentry's OK button is "Allow", its "not OK" button "Always Allow", and Cancel (or Escape, or
/// closing the dialog) "Deny", so that the safe answer is the one a dismissed dialog gives. A pinentry
/// that shows only OK and Cancel (``showsThirdButton(flavor:program:)``: GNOME's) asks "Always Allow"
/// as a second question after "Allow".
extension Pinentry {
    /// Asks `confirmation` through a new pinentry process. Under ``Prompters/withCancellation(_:_:)``,
    /// a ``PromptCancellation/cancel()`` closes it.
    /// - Returns: `OK` → `.allowOnce`; `ERR` with GnuPG's `GPG_ERR_NOT_CONFIRMED` (114) → `.alwaysAllow`;
    ///   `ERR` with `GPG_ERR_CANCELED` (99) or `GPG_ERR_FULLY_CANCELED` (198) → `.deny`. With a
    ///   two-button pinentry, `OK` asks ``AccessConfirmation/alwaysText`` next (Always / Not now):
    ///   Always → `.alwaysAllow`; Not now, a dismissed dialog or a follow-up that cannot be shown →
    ///   `.allowOnce` (the user did allow this use).
    /// - Throws: `.interactionNotAllowed` when pinentry cannot be started or fails otherwise (the
    ///   question was not shown); `.userCanceled` when the cancellation came before it was shown.
    package func confirm(_ confirmation: AccessConfirmation) throws(KeychainFailure) -> AccessConfirmation.Answer {
        let buttons = [
            "SETOK " + AssuanConnection.percentEncode(AccessConfirmation.allowOnceLabel),
            "SETCANCEL " + AssuanConnection.percentEncode(AccessConfirmation.denyLabel),
        ]
        let notOK = "SETNOTOK " + AssuanConnection.percentEncode(AccessConfirmation.alwaysAllowLabel)
        var threeButtons = true
        let button = try ask(
            title: AccessConfirmation.title, description: confirmation.text, buttons: buttons, notOK: notOK,
            threeButtons: &threeButtons)
        switch button {
        case .ok:
            guard !threeButtons else { return .allowOnce }
            let always = try? confirm(
                title: AccessConfirmation.title, description: confirmation.alwaysText,
                ok: AccessConfirmation.alwaysLabel, cancel: AccessConfirmation.notNowLabel)
            return always == true ? .alwaysAllow : .allowOnce
        case .notOK: return .alwaysAllow
        case .cancel: return .deny
        }
    }

    /// Asks a yes/no question through a new pinentry process: `ok` is pinentry's OK button, `cancel` its
    /// Cancel button (and Escape, and closing the dialog), so that a dismissed dialog answers no.
    /// - Parameters:
    ///   - title: the dialog's title.
    ///   - description: the question.
    ///   - ok: the OK button's label.
    ///   - cancel: the Cancel button's label.
    /// - Returns: `true` for OK; `false` for Cancel (`GPG_ERR_CANCELED`, `GPG_ERR_FULLY_CANCELED`, or
    ///   `GPG_ERR_NOT_CONFIRMED`).
    /// - Throws: `.interactionNotAllowed` when pinentry cannot be started or fails otherwise;
    ///   `.userCanceled` when a ``Prompters/withCancellation(_:_:)`` cancellation came before it was shown.
    package func confirm(title: String, description: String, ok: String, cancel: String) throws(KeychainFailure)
        -> Bool
    {
        let buttons = [
            "SETOK " + AssuanConnection.percentEncode(ok), "SETCANCEL " + AssuanConnection.percentEncode(cancel),
        ]
        var threeButtons = false
        return try ask(title: title, description: description, buttons: buttons, threeButtons: &threeButtons) == .ok
    }

    /// Which button a CONFIRM answer names.
    private enum Button { case ok, notOK, cancel }

    /// Asks one CONFIRM. `notOK` (a `SETNOTOK` command) is sent only when the pinentry shows a third
    /// button (`GETINFO flavor`, ``showsThirdButton(flavor:program:)``); `threeButtons` tells which.
    private func ask(
        title: String, description: String, buttons: [String], notOK: String? = nil, threeButtons: inout Bool
    ) throws(KeychainFailure) -> Button {
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
        var commands =
            [
                "SETTITLE " + AssuanConnection.percentEncode(title),
                "SETDESC " + AssuanConnection.percentEncode(description),
            ] + buttons
        if let notOK {
            threeButtons = Self.showsThirdButton(flavor: try Self.flavor(of: connection), program: program)
            if threeButtons { commands.append(notOK) }
        }
        if let ttyName { commands.append("OPTION ttyname=" + ttyName) }
        if let ttyType { commands.append("OPTION ttytype=" + ttyType) }
        for command in commands { _ = try connection.transact(command) }
        switch try connection.transact("CONFIRM") {
        case .ok: return .ok
        case .error(let code, _):
            switch code & 0xFFFF {
            case 114: return .notOK
            case 99, 198: return .cancel
            default:
                throw KeychainFailure(.interactionNotAllowed, "pinentry could not ask (error \(code))")
            }
        }
    }
}
