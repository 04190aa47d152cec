/// The trusted-application check of a releasing search (issue 27, `security add-generic-password -T`):
/// an item with a list (``TrustedApplications``) releases its secret without asking only to a process
/// whose identity (``CallerIdentity/current``) is on it; any other process is asked through the prompter
/// (macOS's "*app* wants to use your confidential information stored in *item* in your keychain", with
/// Deny, Allow and Always Allow). Made in the reading process: see ``TrustedApplications``'s warning.
extension ItemGateway {
    // MARK: - Package

    /// Replaces the trusted-application lists of items (`security revoke-item-access`), each item re-sealed
    /// in one write transaction (its secret, dates and other attributes kept).
    /// - Parameter lists: each item's class, persistent reference and new list.
    /// - Throws: `.interactionNotAllowed` when a class key is locked; `.decode`; `.diskFull`.
    package func setTrustedApplications(_ lists: [(ItemClass, [UInt8], TrustedApplications)]) throws(KeychainFailure) {
        try Self.remember(lists, keystore: keystore)
    }

    // MARK: - Internal

    /// What the check decided for one item.
    enum TrustDecision {
        /// The secret may be released (the list names this process, or the user allowed it once).
        case release
        /// Released, and the identity is to be added to the list ("Always Allow").
        case remember(TrustedApplications)
        /// Not released: the item is left out (``ReleaseRefusal/omitsItem``) or loses its secret
        /// (``ReleaseRefusal/withholdsSecret``).
        case refuse
    }

    /// Decides whether `item`'s secret may be released to this process, asking when its list does not
    /// name it.
    /// - Parameters:
    ///   - item: an item read with its secret and its access entries.
    ///   - list: the item's trusted-application list, as ``TrustedApplications/of(_:)`` read it.
    ///   - authorizer: the call's authorizer (its UI setting, context and keystore).
    ///   - refusal: what a refusal does; under ``ReleaseRefusal/omitsItem`` a refusal throws, except a
    ///     skip (`kSecUseAuthenticationUISkip`), which leaves the item out.
    ///   - identity: the reading process's identity (``CallerIdentity/current``; tests give another).
    /// - Returns: the decision.
    /// - Throws: under ``ReleaseRefusal/omitsItem``: `.authFailed` (-25293) when the user answers Deny;
    ///   `.interactionNotAllowed` (-25308) when the call or its context forbids asking or no prompter can
    ///   ask; `.userCanceled` when the question was dismissed before it was shown.
    static func trustDecision(
        _ item: StoredItem, list: TrustedApplications, authorizer: AccessAuthorizer, refusal: ReleaseRefusal,
        identity: String
    ) throws(KeychainFailure) -> TrustDecision {
        if list.trusts(identity) { return .release }
        var list = list
        if authorizer.ui == .skip { return .refuse }
        do throws(KeychainFailure) {
            if authorizer.ui == .fail || authorizer.context?.interactionNotAllowed == true {
                throw KeychainFailure(
                    .interactionNotAllowed,
                    "the item trusts other applications and asking is not allowed for this call")
            }
            let question = AccessConfirmation(
                application: identity, itemLabel: try label(of: item, keystore: authorizer.keystore))
            switch try Prompters.current().confirm(question) {
            case .allowOnce: return .release
            case .alwaysAllow:
                list.add(identity)
                return .remember(list)
            case .deny:
                throw KeychainFailure(.authFailed, "the user denied this application the item's secret")
            }
        } catch {
            if refusal == .withholdsSecret { return .refuse }
            throw error
        }
    }

    /// Stores each item's new list ("Always Allow"), in one write transaction, re-sealing each item
    /// (``StoreSession/migrate(_:transform:)``: its secret, dates and other attributes kept).
    /// - Throws: `.interactionNotAllowed` when a class key is locked; `.decode`; `.diskFull`.
    static func remember(_ lists: [(ItemClass, [UInt8], TrustedApplications)], keystore: Keystore)
        throws(KeychainFailure)
    {
        guard !lists.isEmpty else { return }
        try keystore.write { (s: borrowing StoreSession) throws(KeychainFailure) in
            for (itemClass, ref, list) in lists {
                let query = ItemQuery(itemClass: itemClass, scope: .all, synchronizable: .any, persistentRef: ref)
                _ = try s.migrate(query) { $0[.trustedApplications] = .data(list.encoded) }
            }
        }
    }

    // MARK: - Private

    /// What the question names the item by: its label, else its service or server, else its account.
    private static func label(of item: StoredItem, keystore: Keystore) throws(KeychainFailure) -> String {
        var attributes = item.attributes
        if attributes[.label] == nil {
            let query = ItemQuery(
                itemClass: item.itemClass, scope: .all, synchronizable: .any, persistentRef: item.persistentRef)
            attributes = try keystore.search(query, projection: .attributes).first?.attributes ?? [:]
        }
        for name in [AttributeName.label, .service, .server, .account] {
            switch attributes[name] {
            case .string(let text)? where !text.isEmpty: return text
            case .data(let bytes)? where !bytes.isEmpty: return String(decoding: bytes, as: UTF8.self)
            default: continue
            }
        }
        return "an item"
    }
}
