/// `kSecAttrSynchronizable` in a request, parsed once: `false`, `true`, or
/// `kSecAttrSynchronizableAny`.
///
/// Source: SecItem.h; docs/APPLE-SEMANTICS.md rule 11 (a query without it sees only
/// non-synchronizable items; `any` removes that filter in searches, updates and deletes and is
/// ignored by an add).
package enum Synchronizable: Sendable, Equatable {
    /// Not synchronizable (`false`, and the implicit default of a query).
    case no
    /// Synchronizable (`true`).
    case yes
    /// `kSecAttrSynchronizableAny`: both.
    case any

    /// From a flag.
    package init(_ flag: Bool) { self = flag ? .yes : .no }

    /// The stored attribute of a new item: `any` stores a non-synchronizable item (rule 11).
    package var attribute: AttributeValue { .bool(self == .yes) }
}
