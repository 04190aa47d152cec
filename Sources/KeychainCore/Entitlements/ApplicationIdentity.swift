/// Who the calling process is, for access groups: the entitlements it holds.
///
/// Built from an entitlements property list with Apple's keys (design brief, "Application
/// identity and access groups"; Apple, "Sharing access to keychain items among a collection of apps"):
/// - `keychain-access-groups` (array of strings),
/// - `application-identifier` (string, `TEAMID.bundle.id`),
/// - `com.apple.security.application-groups` (array of strings).
///
/// The access-group list is in Apple's order: keychain access groups, then the application
/// identifier, then the application groups. An add without `kSecAttrAccessGroup` uses the first.
/// Xcode's `$(AppIdentifierPrefix)` and `$(TeamIdentifierPrefix)` are expanded with the team
/// prefix of `application-identifier`, as code signing does.
package struct ApplicationIdentity: Sendable, Equatable {
    /// The process's access groups, in Apple's order. Empty means every call fails with
    /// `errSecMissingEntitlement`.
    package let accessGroups: [String]
    /// `true` only for ``manager``, the user's own management tool (`security`, Keychain Access's
    /// role): it sees and manages every group. No other identity can be made with it.
    package let seesAllGroups: Bool

    /// The group shared by every process that has no entitlements (unsigned tools).
    package static let unsignedAccessGroup = "unsigned"

    /// A process without an entitlements file: one shared default group.
    package static let unsigned = ApplicationIdentity(accessGroups: [unsignedAccessGroup], seesAllGroups: false)

    /// The management identity: the `security` tool's view (Keychain Access's role on macOS), every
    /// group; adds go to the unsigned default group. The only identity whose gateway builds
    /// ``GroupScope/Coverage/all``.
    package static let manager = ApplicationIdentity(accessGroups: [unsignedAccessGroup], seesAllGroups: true)

    /// A process holding `accessGroups`, in Apple's order.
    package init(accessGroups: [String]) {
        self.init(accessGroups: accessGroups, seesAllGroups: false)
    }

    private init(accessGroups: [String], seesAllGroups: Bool) {
        self.accessGroups = accessGroups
        self.seesAllGroups = seesAllGroups
    }

    /// The group an add without `kSecAttrAccessGroup` uses, or `nil` when the process has none.
    package var defaultAccessGroup: String? { accessGroups.first }

    /// Whether the process may name `group`.
    package func holds(_ group: String) -> Bool { seesAllGroups || accessGroups.contains(group) }

    /// The groups a search without `kSecAttrAccessGroup` covers: every group for ``manager``, else
    /// the process's own.
    var searchScope: GroupScope { seesAllGroups ? .all : .groups(accessGroups) }

    /// Parses an entitlements property list (XML or binary, read with libplist: ``PropertyList``).
    ///
    /// The three keys are read as Foundation's `PropertyListDecoder` read them before (tracker issue 23):
    /// the top level must be a dictionary; each key may be absent, and when present must have its type
    /// (a string; arrays whose every element is a string); other keys are ignored.
    /// - Parameter data: the file's bytes.
    /// - Throws: `.missingEntitlement` with a detail when the data is not a property list or a
    ///   key has the wrong type, or when libplist (Debian libplist3) is not installed. A valid plist
    ///   without any of the keys gives an identity with no groups, whose calls fail with
    ///   `errSecMissingEntitlement`, as on Apple platforms.
    package init(entitlementsPlist data: some Sequence<UInt8>) throws(KeychainFailure) {
        let invalid = KeychainFailure(
            .missingEntitlement, "the entitlements file is not a valid entitlements property list")
        let list: PropertyList
        do {
            list = try PropertyList(parsing: Array(data))
        } catch {
            switch error {
            case .libraryMissing(let reason):
                throw KeychainFailure(
                    .missingEntitlement,
                    "cannot read the entitlements file: libplist (Debian libplist3) is not installed: \(reason)")
            case .malformed: throw invalid
            }
        }
        let root = list.rootNode
        guard root.entries != nil else { throw invalid }
        func strings(_ key: String) throws(KeychainFailure) -> [String] {
            guard let value = root.value(forKey: key) else { return [] }
            guard let elements = value.elements else { throw invalid }
            var strings: [String] = []
            for element in elements {
                guard let string = element.string else { throw invalid }
                strings.append(string)
            }
            return strings
        }
        var applicationIdentifier: String?
        if let value = root.value(forKey: "application-identifier") {
            guard let string = value.string else { throw invalid }
            applicationIdentifier = string
        }
        self.init(
            applicationIdentifier: applicationIdentifier,
            keychainAccessGroups: try strings("keychain-access-groups"),
            applicationGroups: try strings("com.apple.security.application-groups"))
    }

    /// The identity of Apple's three entitlement values, in Apple's order: `keychain-access-groups`,
    /// then `application-identifier`, then `com.apple.security.application-groups`, with
    /// `$(AppIdentifierPrefix)`/`$(TeamIdentifierPrefix)` expanded and duplicates dropped.
    package init(applicationIdentifier appID: String?, keychainAccessGroups: [String], applicationGroups: [String]) {
        let prefix = appID.flatMap { id in id.firstIndex(of: ".").map { String(id[...$0]) } } ?? ""
        func expand(_ group: String) -> String {
            for variable in ["$(AppIdentifierPrefix)", "$(TeamIdentifierPrefix)"] where group.hasPrefix(variable) {
                return prefix + group.dropFirst(variable.count)
            }
            return group
        }
        var groups: [String] = []
        for group in keychainAccessGroups.map(expand) + (appID.map { [$0] } ?? []) + applicationGroups.map(expand)
        where !group.isEmpty && !groups.contains(group) {
            groups.append(group)
        }
        self.init(accessGroups: groups)
    }

    /// The identity for this process: the plist at `$KEYCHAIN_ENTITLEMENTS`, or ``unsigned``.
    /// - Throws: `.missingEntitlement` when the variable names a file that cannot be read (the detail
    ///   names the file and `strerror`) or parsed (``init(entitlementsPlist:)``'s detail).
    package static func fromEnvironment(_ environment: [String: String] = ProcessEnvironment.current())
        throws(KeychainFailure) -> ApplicationIdentity
    {
        guard let path = environment["KEYCHAIN_ENTITLEMENTS"], !path.isEmpty else { return .unsigned }
        switch FileSystem.readContents(path) {
        case .success(let data): return try ApplicationIdentity(entitlementsPlist: data)
        case .failure(let error):
            throw KeychainFailure(
                .missingEntitlement,
                "cannot read the entitlements file named by KEYCHAIN_ENTITLEMENTS, \(path): \(error.message)")
        }
    }
}
