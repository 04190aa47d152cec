/// Prompt-driven operations, added to ``SecretStore`` with defaults (an additive change: stores
/// written before it keep working unchanged).
///
/// The provider calls these from a prompt's `Prompt` method (Secret Service API, "Prompts and
/// Prompting"); each returns `false` (or `nil`) when the user dismissed the prompt, which the provider
/// reports as `Completed(true, …)`.
extension SecretStore {
    /// Whether `CreateCollection` needs a prompt (to ask the new collection's password). Default: no.
    package var createCollectionNeedsPrompt: Bool { false }

    /// Whether `Collection.Delete` needs a prompt (a confirmation). Default: no.
    package func deleteCollectionNeedsPrompt(_ id: CollectionID) -> Bool { false }

    /// Unlocks a collection from its prompt. Default: ``SecretStore/unlock(_:)``, never dismissed.
    /// - Returns: `false` when the user dismissed the prompt.
    package func unlockFromPrompt(_ id: CollectionID) throws(SecretStoreError) -> Bool {
        try unlock(id)
        return true
    }

    /// Creates a collection from its prompt. Default: ``SecretStore/createCollection(label:)``.
    /// - Returns: `nil` when the user dismissed the prompt.
    package func createCollectionFromPrompt(label: String) throws(SecretStoreError) -> CollectionID? {
        try createCollection(label: label)
    }

    /// Deletes a collection from its prompt. Default: ``SecretStore/deleteCollection(_:)``.
    /// - Returns: `false` when the user dismissed the prompt.
    package func deleteCollectionFromPrompt(_ id: CollectionID) throws(SecretStoreError) -> Bool {
        try deleteCollection(id)
        return true
    }

    /// Whether an item exists. Default: ``SecretStore/item(_:in:)`` succeeds.
    package func hasItem(_ id: ItemID, in collection: CollectionID) -> Bool {
        (try? item(id, in: collection)) != nil
    }

    /// Item identifiers. Default: those of ``SecretStore/items(in:)``.
    package func itemIDs(in collection: CollectionID) throws(SecretStoreError) -> [ItemID] {
        try items(in: collection).map(\.id)
    }

    /// Default: `nil` (the prompt runs ``SecretStore/unlockFromPrompt(_:)`` on the provider's thread).
    package func backgroundUnlock(_ id: CollectionID) -> (@Sendable () -> Bool?)? { nil }

    /// Default: `nil` (the prompt runs ``SecretStore/createCollectionFromPrompt(label:)`` on the
    /// provider's thread). A store returns work whose question runs on a worker thread, so that the
    /// provider keeps serving while the user types; its `apply` returns the new collection.
    package func backgroundCreateCollection(label: String) -> BackgroundPromptWork<CollectionID>? { nil }

    /// Default: `nil` (the prompt runs ``SecretStore/deleteCollectionFromPrompt(_:)`` on the provider's
    /// thread). A store returns work whose confirmation runs on a worker thread; its `apply` deletes.
    package func backgroundDeleteCollection(_ id: CollectionID) -> BackgroundPromptWork<Void>? { nil }
}
