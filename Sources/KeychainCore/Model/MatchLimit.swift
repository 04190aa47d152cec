/// How many items a search returns: `kSecMatchLimit`, parsed once.
///
/// Sources: SecItem.h (`kSecMatchLimitOne`, `kSecMatchLimitAll`, or a number);
/// docs/APPLE-SEMANTICS.md rules 4 and 5.
package enum MatchLimit: Sendable, Equatable {
    /// `kSecMatchLimitOne` (or the number 1): one item, returned as a single object.
    case one
    /// `kSecMatchLimitAll`: every item, returned as an array.
    case all
    /// At most this many items (more than one), returned as an array.
    case count(Int)

    /// A numeric limit: `1` is ``one``.
    /// - Parameter count: a positive number.
    package init(count: Int) { self = count == 1 ? .one : .count(count) }

    /// The most items returned, `nil` for no limit.
    package var maximum: Int? {
        switch self {
        case .one: 1
        case .all: nil
        case .count(let count): count
        }
    }

    /// Whether the result is an array (rule 4): every limit but ``one``.
    package var returnsArray: Bool { self != .one }
}
