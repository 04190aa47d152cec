/// Asks the user for a password. The one way the keychain asks anything: access control,
/// `LAContext.evaluatePolicy`, and later the Secret Service provider's unlock prompts.
package protocol Prompter: Sendable {
    /// Shows `prompt` and returns what the user typed, in zeroising memory.
    /// - Throws: `.userCanceled` (-128) when the user cancels; `.interactionNotAllowed` (-25308)
    ///   when no prompt can be shown (no pinentry, no terminal or display, the program failed).
    func requestPassword(_ prompt: PasswordPrompt) throws(KeychainFailure) -> SecureBytes

    /// Asks whether an application may use an item's secret (``AccessConfirmation``: Deny, Allow,
    /// Always Allow), as a SecItem item's trusted-application list needs (``TrustedApplications``).
    /// ``Pinentry`` asks through pinentry's CONFIRM; a prompter that cannot ask keeps the default.
    /// - Returns: the answer.
    /// - Throws: `.interactionNotAllowed` (-25308) when the question cannot be shown (the default).
    func confirm(_ confirmation: AccessConfirmation) throws(KeychainFailure) -> AccessConfirmation.Answer
}

extension Prompter {
    /// A prompter that only asks for passwords cannot ask this: `.interactionNotAllowed`.
    package func confirm(_ confirmation: AccessConfirmation) throws(KeychainFailure) -> AccessConfirmation.Answer {
        throw KeychainFailure(
            .interactionNotAllowed, "this prompter cannot ask whether an application may read an item")
    }
}

/// Which prompter a call uses: a task's override (tests), else pinentry chosen from the environment.
package enum Prompters {
    @TaskLocal private static var override: (any Prompter)?
    @TaskLocal private static var currentCancellation: PromptCancellation?

    /// The cancellation a ``Pinentry`` started now registers with (``withCancellation(_:_:)``), if any.
    package static var cancellation: PromptCancellation? { currentCancellation }

    /// Runs `body` (on this thread) with `cancellation` current, so that ``PromptCancellation/cancel()``
    /// from another thread closes the pinentry dialogs `body` shows.
    package static func withCancellation<R>(_ cancellation: PromptCancellation, _ body: () throws -> R) rethrows -> R {
        try $currentCancellation.withValue(cancellation, operation: body)
    }

    /// Runs `body` with `prompter` as the current task's prompter.
    package static func withOverride<R>(_ prompter: any Prompter, _ body: () throws -> R) rethrows -> R {
        try $override.withValue(prompter, operation: body)
    }

    /// Runs `body` with `prompter` as the current task's prompter.
    package static func withOverride<R>(_ prompter: any Prompter, _ body: () async throws -> R) async rethrows -> R {
        try await $override.withValue(prompter, operation: body)
    }

    /// The current prompter.
    /// - Throws: `.interactionNotAllowed` with a detail saying why when there is no way to ask: no
    ///   pinentry program, or none that can be shown (no terminal and no display).
    package static func current() throws(KeychainFailure) -> any Prompter {
        if let override { return override }
        return try Pinentry.fromEnvironment()
    }
}
