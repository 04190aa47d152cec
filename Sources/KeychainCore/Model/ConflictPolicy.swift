/// What a restore or an import does with an item whose primary key is already in the keychain.
package enum ConflictPolicy: String, Sendable, CaseIterable {
    /// Keep the existing item and count the incoming one as skipped.
    case skip
    /// Delete the existing item and store the incoming one (with its own dates and attributes).
    case replace
    /// Stop with `errSecDuplicateItem` (-25299); the whole operation is rolled back.
    case fail
}
