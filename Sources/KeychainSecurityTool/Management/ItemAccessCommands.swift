internal import KeychainCore
internal import KeychainToolSupport

/// `security show-item-access [-l label] [keychain]`: prints the access list of each Secret Service
/// item (issue 27, item 2), as Keychain Access's "Access Control" tab shows it:
///
///     "Mail password" (item 3)
///         owner: exe:/usr/bin/thunderbird
///         allowed: flatpak:org.example.Mail
///         policy: confirm
///
/// `owner: (none yet)` marks an item made before access lists: its next user becomes its owner. The
/// keychain's policy (`confirm` or `open`, set with `set-keychain-settings --access-policy`) ends the
/// output. Works while the keychain is locked (the lists are sealed with the readable metadata).
/// Errors print `security: SecKeychainItemCopyAccess <keychain|<NULL>>: <message>`.
struct ShowItemAccess: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "show-item-access", synopsis: "[-l label] [keychain]",
        options: [OptionSpec("l", value: "label", "Show only Secret Service items with this label")],
        summary: "Show which applications may use Secret Service items without asking.")

    let label: String?
    let keychain: String?

    init(_ options: ParsedOptions) throws(CommandFailure) {
        label = options.value("l")
        keychain = try KeychainOperand.single(options)
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
            context.io.output.line("policy: \(try store.secretAccessPolicy().rawValue)")
        } catch {
            throw CommandFailure.keychain(
                "SecKeychainItemCopyAccess \(KeychainOperand.display(keychain))", error.status)
        }
    }
}

/// `security revoke-item-access -T identity [-l label] [keychain]`: removes an application from the
/// access lists of the Secret Service items (with `label`, only those), so that its next use asks
/// again. Removing the owner leaves the item without one (every application then asks under the
/// `confirm` policy). The keychain must be unlocked (the lists are re-sealed).
/// Exits with `errSecItemNotFound` (-25300) when no item listed the identity.
/// Errors print `security: SecKeychainItemSetAccess <keychain|<NULL>>: <message>`.
struct RevokeItemAccess: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "revoke-item-access", synopsis: "-T identity [-l label] [keychain]",
        options: [
            OptionSpec("T", value: "identity", "The application to remove (as show-item-access prints it)"),
            OptionSpec("l", value: "label", "Change only Secret Service items with this label"),
        ],
        summary: "Stop letting an application use Secret Service items without asking.")

    let identity: String
    let label: String?
    let keychain: String?

    init(_ options: ParsedOptions) throws(CommandFailure) {
        guard let identity = options.value("T"), !identity.isEmpty else {
            throw .usage("security: revoke-item-access: -T identity is required")
        }
        self.identity = identity
        label = options.value("l")
        keychain = try KeychainOperand.single(options)
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
        } catch {
            throw CommandFailure.keychain(operation, error.status)
        }
        guard revoked > 0 else { throw CommandFailure.keychain(operation, .itemNotFound) }
        context.io.output.line("revoked \(identity) from \(revoked) item\(revoked == 1 ? "" : "s")")
    }
}
