/// What a client made of one alias with `SetAlias` (Secret Service API, `Service.SetAlias`), kept over
/// the built-in rule for it (``KeychainSecretStore/resolveAlias(_:)``) and in the aliases file.
///
/// An enum in place of `CollectionID?` inside a dictionary's optional, where "no entry" (the built-in
/// rule) and "removed" were `nil` and `.some(nil)`. Its case is `removed`, not `none`, so that it cannot be
/// mistaken for `Optional.none`, which would delete the entry instead.
enum AliasOverride: Equatable {
    /// The alias names this collection.
    case collection(CollectionID)
    /// The alias was removed (`SetAlias(name, "/")`): it resolves to nothing, even a built-in one.
    case removed
}
