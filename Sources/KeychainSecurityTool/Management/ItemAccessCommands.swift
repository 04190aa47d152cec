internal import KeychainCore
internal import KeychainToolSupport

/// `security show-item-access [-l label] [keychain]`: prints the access list of each Secret Service
/// item (issue 27, item 2), then the trusted-application list of each SecItem password item that has
/// one (`add-generic-password -T`), as Keychain Access's "Access Control" tab shows them:
///
///     "Mail password" (item 3)
///         owner: exe:/usr/bin/thunderbird
///         allowed: flatpak:org.example.Mail
///     "git.example.com" (internet password, account "me")
///         trusted: exe:/usr/bin/git
///     policy: confirm
///
/// `owner: (none yet)` marks an item made before access lists: its next user becomes its owner. The
/// keychain's policy (`confirm` or `open`, set with `set-keychain-settings --access-policy`) ends the
/// output. Secret Service lists are shown while the keychain is locked (they are sealed with the
/// readable metadata); SecItem lists only for the items whose protection class is unlocked.
/// Errors print `security: SecKeychainItemCopyAccess <keychain|<NULL>>: <message>`.
struct ShowItemAccess: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "show-item-access", synopsis: "[-l label] [keychain]",
        options: [OptionSpec("l", value: "label", "Show only items with this label")],
        summary: "Show which applications may use keychain items without asking.")

    let label: String?
    let keychain: String?

    init(_ options: ParsedOptions) throws(CommandFailure) {
        label = options.value("l")
        keychain = try KeychainOperand.single(options, command: Self.spec.name)
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        do {
            let store = try context.open(context.target(keychain))
            for item in try store.secretItems(matching: [:]) where label == nil || item.label == label {
                context.io.output.line("\"\(item.label)\" (item \(item.number))")
                let owner = item.access?.owner ?? ""
                context.io.output.line("    owner: \(owner.isEmpty ? "(none yet)" : owner)")
                for identity in item.access?.allowed ?? [] { context.io.output.line("    allowed: \(identity)") }
                if item.access?.anyApplication == true { context.io.output.line("    allowed: any application") }
            }
            for item in try TrustedItems.items(store) where label == nil || TrustedItems.label(item) == label {
                guard case .present(let list) = TrustedApplications.of(item.attributes) else { continue }
                context.io.output.line(TrustedItems.heading(item))
                for identity in list.identities { context.io.output.line("    trusted: \(identity)") }
                if list.identities.isEmpty { context.io.output.line("    trusted: (no application)") }
            }
            context.io.output.line("policy: \(try store.secretAccessPolicy().rawValue)")
        } catch {
            throw CommandFailure.keychain(
                "SecKeychainItemCopyAccess \(KeychainOperand.display(keychain))", error.status)
        }
    }
}

/// `security revoke-item-access -T identity [-l label] [keychain]`: removes an application from the
/// access lists of the Secret Service items and the trusted-application lists of the SecItem items
/// (with `label`, only those), so that its next use asks again. Removing the owner leaves the item without one (every application then asks under the
/// `confirm` policy). The keychain must be unlocked (the lists are re-sealed).
/// Exits with `errSecItemNotFound` (-25300) when no item listed the identity.
/// Errors print `security: SecKeychainItemSetAccess <keychain|<NULL>>: <message>`.
struct RevokeItemAccess: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "revoke-item-access", synopsis: "-T identity [-l label] [keychain]",
        options: [
            OptionSpec("T", value: "identity", "The application to remove (as show-item-access prints it)"),
            OptionSpec("l", value: "label", "Change only items with this label"),
        ],
        summary: "Stop letting an application use keychain items without asking.")

    let identity: String
    let label: String?
    let keychain: String?

    init(_ options: ParsedOptions) throws(CommandFailure) {
        guard let identity = options.value("T"), !identity.isEmpty else {
            throw .usage("security: revoke-item-access: -T identity is required")
        }
        self.identity = identity
        label = options.value("l")
        keychain = try KeychainOperand.single(options, command: Self.spec.name)
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        let operation = "SecKeychainItemSetAccess \(KeychainOperand.display(keychain))"
        var revoked = 0
        do {
            let store = try context.open(context.target(keychain))
            for item in try store.secretItems(matching: [:]) where label == nil || item.label == label {
                guard var access = item.access, access.revoke(identity) else { continue }
                try store.setSecretItemAccess(item.number, access)
                revoked += 1
            }
            var lists: [(ItemClass, [UInt8], TrustedApplications)] = []
            for item in try TrustedItems.items(store) where label == nil || TrustedItems.label(item) == label {
                guard case .present(var list) = TrustedApplications.of(item.attributes), list.remove(identity) else {
                    continue
                }
                lists.append((item.itemClass, item.persistentRef, list))
            }
            try ItemGateway(keystore: store, identity: .manager).setTrustedApplications(lists)
            revoked += lists.count
        } catch {
            throw CommandFailure.keychain(operation, error.status)
        }
        guard revoked > 0 else { throw CommandFailure.keychain(operation, .itemNotFound) }
        context.io.output.line("revoked \(identity) from \(revoked) item\(revoked == 1 ? "" : "s")")
    }
}

/// The SecItem password items whose trusted-application lists `show-item-access` and `revoke-item-access`
/// cover, and how they are named.
enum TrustedItems {
    /// The generic and internet passwords of every access group whose class keys are unlocked (a locked
    /// class's items are left out: their lists cannot be read).
    static func items(_ store: Keystore) throws(KeychainFailure) -> [StoredItem] {
        let gateway = ItemGateway(keystore: store, identity: .manager)
        var items: [StoredItem] = []
        for itemClass in [ItemClass.genericPassword, .internetPassword] {
            for protection in ProtectionClass.allCases {
                let query = ItemQuery(
                    itemClass: itemClass, scope: gateway.callerScope, synchronizable: .any, protection: protection)
                do {
                    items += try gateway.search(query, projection: .attributes)
                } catch  where error.status == .interactionNotAllowed {}
            }
        }
        return items
    }

    /// The item's label (`labl`), or `nil`.
    static func label(_ item: StoredItem) -> String? { item.attributes.string(.label) }

    /// `"label" (generic password, service "svc", account "me")`.
    static func heading(_ item: StoredItem) -> String {
        let kind = item.itemClass == .internetPassword ? "internet password" : "generic password"
        var parts = [kind]
        if item.itemClass == .genericPassword, let service = item.attributes.string(.service) {
            parts.append("service \"\(service)\"")
        }
        if item.itemClass == .internetPassword, let server = item.attributes.string(.server) {
            parts.append("server \"\(server)\"")
        }
        if let account = item.attributes.string(.account) { parts.append("account \"\(account)\"") }
        return "\"\(label(item) ?? "")\" (\(parts.joined(separator: ", ")))"
    }
}
