/// What ``Keychain/migrate(keys:to:)-7f3mi`` moved.
public struct MigrationReport: Sendable, Hashable {
    /// The moved items with their new attributes, in the order they were stored. Never secrets.
    public let movedItems: [KeychainItem]

    /// Creates a report.
    /// - Parameter movedItems: the moved items.
    public init(movedItems: [KeychainItem]) { self.movedItems = movedItems }

    /// The keys of the moved items, in order.
    public var movedKeys: [String] { movedItems.map(\.key) }

    /// How many items were moved.
    public var count: Int { movedItems.count }
}
