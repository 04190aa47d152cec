/// Which access groups a search, update or delete covers: every group, or these groups.
///
/// Only KeychainCore builds one: ``ItemGateway`` from the caller's entitlements
/// (``ItemGateway/searchScope(named:)``, ``ItemGateway/callerScope``), and every group only for the
/// management identity (``ApplicationIdentity/manager``, the `security` tool's Keychain Access role).
/// A front end reads a scope but cannot make one, so no query reaches the store with groups the
/// gateway did not choose (issue 23, item 2; docs/APPLE-SEMANTICS.md rules 8 and 9).
package struct GroupScope: Sendable, Equatable, CustomStringConvertible {
    /// What a scope covers.
    package enum Coverage: Sendable, Equatable {
        /// Every access group (the management identity's view).
        case all
        /// Only these groups; none when empty (a caller without groups finds nothing).
        case groups([String])
    }

    /// What this scope covers.
    package let coverage: Coverage

    /// Whether an item of access group `group` is in this scope.
    package func covers(_ group: String) -> Bool {
        switch coverage {
        case .all: true
        case .groups(let groups): groups.contains(group)
        }
    }

    package var description: String {
        switch coverage {
        case .all: "every group"
        case .groups(let groups): "groups \(groups)"
        }
    }

    // MARK: - Internal

    init(_ coverage: Coverage) {
        self.coverage = coverage
    }

    /// Every access group.
    static let all = GroupScope(.all)

    /// Only `groups`.
    static func groups(_ groups: [String]) -> GroupScope { GroupScope(.groups(groups)) }
}
