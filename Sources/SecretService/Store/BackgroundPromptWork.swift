/// A prompt's work split for the provider's worker thread (see ``SecretStore/backgroundCreateCollection(label:)``):
/// ``ask`` asks the user (it may show pinentry and take minutes) on a worker thread; ``apply`` then
/// makes the change on the provider's thread, only when ``ask`` answered `true` and the prompt had not
/// been dismissed meanwhile (Secret Service API, "Prompts and Prompting": a dismissed prompt changes nothing).
package struct BackgroundPromptWork<Outcome> {
    /// Runs on a worker thread. - Returns: `true` when the user answered, `false` when they cancelled
    /// (or gave 3 wrong passwords), `nil` when no prompt could be shown.
    package let ask: @Sendable () -> Bool?
    /// Runs on the provider's thread after ``ask`` returned `true`; throws the store's errors.
    package let apply: () throws(SecretStoreError) -> Outcome

    package init(ask: @escaping @Sendable () -> Bool?, apply: @escaping () throws(SecretStoreError) -> Outcome) {
        self.ask = ask
        self.apply = apply
    }
}
