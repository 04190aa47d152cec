internal import KeychainCore

/// The Secret portal's master secrets in the login keychain.
///
/// Each is a generic password of the app's access group (``PortalAppID/accessGroup``:
/// `flatpak:<app id>`), service ``portalService``, account the app id, accessible AfterFirstUnlock
/// (`ck`: readable once the keychain was unlocked in this login session, even after it locks again,
/// as an app started at login needs), its token in the generic attribute (`gena`). SecItem's rules
/// apply to it unchanged: an app whose entitlements name that group sees it, and `security
/// find-generic-password -s org.freedesktop.portal.Secret` shows it to the user.
extension KeychainSecretStore: PortalSecretVault {
    /// The service attribute (`svce`) of every portal master secret.
    package static let portalService = "org.freedesktop.portal.Secret"

    /// The login keychain (gnome-keyring keeps its portal secrets in `login` too).
    package var portalCollection: CollectionID? { resolveAlias("login") }

    package func masterSecret(for app: PortalAppID, token: String?) throws(SecretStoreError) -> PortalMasterSecret {
        guard let id = portalCollection, let keychain = keychains[id] else {
            throw .failed("there is no login keychain to keep the portal's secrets in")
        }
        var filters: [String: AttributeValue] = [:]
        filters[.service] = .string(Self.portalService)
        filters[.account] = .string(app.rawValue)
        // The app's own gateway: its group only, so the app's secret is found and placed there.
        let gateway = ItemGateway(
            keystore: keychain.keystore, identity: ApplicationIdentity(accessGroups: [app.accessGroup]))
        let query = ItemQuery(
            itemClass: .genericPassword, filters: filters, scope: gateway.callerScope, synchronizable: .any, limit: 1)
        // The master secret has no access control; one that gained some is refused, never released silently.
        var authorizer = AccessAuthorizer(keystore: keychain.keystore, context: nil, ui: .fail, reason: nil)
        // Two tries: another provider may add the same app's secret between the search and the add.
        for _ in 0..<2 {
            let found: [StoredItem]
            do {
                found = try gateway.search(query, projection: [.attributes], release: &authorizer)
            } catch  where error.status == .itemNotFound {
                found = []
            } catch {
                throw observe(error, keychain)
            }
            if let record = found.first, let secret = record.secret {
                let stored: String
                if case .data(let bytes)? = record.attributes[.generic] {
                    stored = String(decoding: bytes, as: UTF8.self)
                } else {
                    stored = ""
                }
                if let token, token != stored { throw MemoryPortalVault.unknownToken(app) }
                return PortalMasterSecret(secret: secret, token: stored)
            }
            if token != nil { throw MemoryPortalVault.unknownToken(app) }
            let made = PortalMasterSecret(secret: SecureBytes.random(count: Self.secretBytes), token: Self.newToken())
            var attributes = filters
            attributes[.accessible] = ProtectionClass.afterFirstUnlock.attribute
            attributes[.label] = .string("Secret portal: \(app.rawValue)")
            attributes[.generic] = .data(Array(made.token.utf8))
            do {
                _ = try gateway.add(NewItem(.genericPassword, attributes: attributes, secret: made.secret))
                return made
            } catch  where error.status == .duplicateItem {
                continue
            } catch {
                throw observe(error, keychain)
            }
        }
        throw .failed("the portal secret of \(app) changed while it was being made; try again")
    }
}
