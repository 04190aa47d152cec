internal import KeychainCore
internal import KeychainToolSupport

/// The search shared by the find and delete commands: the first item matching the filters in the
/// keychains given (macOS `find_first_generic_password` / `find_first_internet_password`).
struct ItemLookup {
    var itemClass: ItemClass
    /// Attribute filters by raw name.
    var filters: [String: AttributeValue]
    /// `--access-group`, or `nil` for every group (the management tool's view).
    var accessGroup: String?

    /// Builds the filters for the options of a find or delete command.
    ///
    /// As in Apple's `keychain_find.c`, when the whole primary key is given (generic: account and
    /// service; internet: account, security domain, server, protocol, authentication type, port and
    /// path) only the primary key is searched, so non-key options do not narrow the search.
    init(_ itemClass: ItemClass, _ options: ParsedOptions) throws(CommandFailure) {
        self.itemClass = itemClass
        var nonKey = ItemOptions.strings(options, ["D": .description, "j": .comment, "l": .label])
        if let creator = try ItemOptions.codeNumber(options, "c") { nonKey[.creator] = creator }
        if let type = try ItemOptions.codeNumber(options, "C") { nonKey[.type] = type }
        var key: [String: AttributeValue]
        if itemClass == .genericPassword {
            nonKey.merge(ItemOptions.strings(options, ["G": .generic])) { $1 }
            key = ItemOptions.strings(options, ["a": .account, "s": .service])
        } else {
            key = ItemOptions.strings(options, ["a": .account, "d": .securityDomain, "s": .server, "p": .path])
            if let port = ItemOptions.port(options), port != 0 { key[.port] = .integer(port) }
            if let protocolCode = try ItemOptions.fourCharCode(options, "r") {
                key[.`protocol`] = .string(protocolCode)
            }
            if let authentication = try ItemOptions.fourCharCode(options, "t") {
                key[.authenticationType] = .string(authentication)
            }
        }
        let complete = ItemGateway.primaryKeyNames(itemClass).allSatisfy { key[$0] != nil }
        filters = complete ? key : key.merging(nonKey) { $1 }
        accessGroup = options.value("access-group")
    }

    enum Outcome {
        /// The item, the keychain it is in, and that keychain opened (for a delete to use).
        case found(StoredItem, SecurityContext.Target, ItemGateway)
        case failed(KeychainFailure)
        /// The item was found, but its secret was not released: the user's proof was not given.
        case notReleased(KeychainFailure)
    }

    /// The search in one keychain: the filters, the gateway's groups for `--access-group`
    /// (``ItemGateway/searchScope(named:)``: every group without one), any synchronizable state.
    /// - Parameters:
    ///   - gateway: the keychain's gateway.
    ///   - limit: at most this many items (`nil` for all).
    func query(_ gateway: ItemGateway, limit: Int? = 1) throws(KeychainFailure) -> ItemQuery {
        ItemQuery(
            itemClass: itemClass, filters: filters, scope: try gateway.searchScope(named: accessGroup),
            synchronizable: .any, limit: limit)
    }

    /// The first match across `targets`, with attributes, and the secret when `withSecret`: released by
    /// the gateway as SecItemCopyMatching releases it, after the user proves presence (pinentry) for an
    /// access-controlled item, never silently (issue 16).
    func first(in targets: [SecurityContext.Target], context: SecurityContext, withSecret: Bool) -> Outcome {
        var lastFailure = KeychainFailure(.itemNotFound)
        for target in targets {
            var searched = false
            do {
                let gateway = try context.gateway(target)
                let found: [StoredItem]
                if withSecret {
                    var authorizer = AccessAuthorizer(
                        keystore: gateway.keystore, context: nil, ui: .allow,
                        reason: "security wants to show a protected keychain item.")
                    found = try gateway.search(try query(gateway), projection: [.attributes], release: &authorizer) {
                        found, _ in
                        searched = true
                        return found
                    }
                } else {
                    found = try gateway.search(try query(gateway), projection: [.attributes])
                }
                if let item = found.first { return .found(item, target, gateway) }
            } catch  where searched {
                return .notReleased(error)
            } catch  where error.status == .noSuchKeychain && targets.count > 1 {
                // A search list entry whose file is gone is skipped: a miss stays "not found" (44).
                continue
            } catch {
                lastFailure = error
            }
        }
        return .failed(lastFailure)
    }
}
