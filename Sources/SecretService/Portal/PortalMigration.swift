internal import KeychainCore
internal import KeychainDBus

/// `security portal-migrate`: moves host Secret Service items into the keyring file that an app's
/// libsecret reads inside its sandbox (xdg-desktop-portal#483: an app that moved to the portal finds
/// its old secrets).
///
/// Inside a Flatpak, libsecret's file backend keeps the app's items in
/// `~/.var/app/<app id>/data/keyrings/default.keyring`, keyed by the app's portal master secret
/// (``PortalKeyringFile``). This writes the chosen items there, keyed by the same secret (made now if
/// the app never asked for it, exactly as the portal would), keeping every item already in the file,
/// then deletes them from the keychain unless told to keep them.
package enum PortalMigration {
    /// What to do.
    package struct Options: Sendable {
        /// The app whose keyring receives the items.
        package var app: PortalAppID
        /// The attributes every moved item must have (`xdg:schema` for a schema); never empty.
        package var selection: [String: String]
        /// The keyring file (``defaultKeyringPath(app:home:)`` unless named).
        package var keyringPath: String
        /// Leave the items in the keychain too (a copy instead of a move).
        package var keep = false
        /// Count what would move; write and delete nothing.
        package var dryRun = false

        package init(app: PortalAppID, selection: [String: String], keyringPath: String) {
            self.app = app
            self.selection = selection
            self.keyringPath = keyringPath
        }
    }

    /// Why nothing was moved.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        /// No `--schema` and no attribute: refusing to move every item.
        case nothingSelected
        /// No keychain item has the attributes.
        case noMatch
        /// A keychain stayed locked (its unlock prompt was dismissed); names it.
        case locked(String)
        /// The keychain failed; the message names the cause.
        case store(String)
        /// The keyring file cannot be read, used or written.
        case keyring(String)

        package var description: String {
            switch self {
            case .nothingSelected: "name the items to move with -s schema and/or -a name=value"
            case .noMatch: "no item in the keychains has those attributes"
            case .locked(let name): "the keychain \(name) is locked and was not unlocked"
            case .store(let message): message
            case .keyring(let message): message
            }
        }
    }

    /// `~/.var/app/<app id>/data/keyrings/default.keyring`: where Flatpak's `XDG_DATA_HOME` puts
    /// libsecret's file for the app.
    package static func defaultKeyringPath(app: PortalAppID, home: String) -> String {
        "\(home)/.var/app/\(app.rawValue)/data/keyrings/default.keyring"
    }

    /// Moves (or with ``Options/keep`` copies) the selected items.
    /// - Parameters:
    ///   - options: the app, the selection and the file.
    ///   - store: the keychains (the items' source, and the login keychain holding the master secret);
    ///     a locked keychain is unlocked through its prompt.
    /// - Returns: how many items were moved (or, for a dry run, would be).
    /// - Throws: ``Failure``; the file and the keychains are unchanged then, except that the app's master
    ///   secret stays made once made.
    package static func run(_ options: Options, store: KeychainSecretStore) throws(Failure) -> Int {
        guard !options.selection.isEmpty else { throw .nothingSelected }
        let matches = store.search(options.selection, in: nil).filter { store.keychains[$0.0] != nil }
        guard !matches.isEmpty else { throw .noMatch }
        if options.dryRun { return matches.count }
        let master = try unlocking(store, store.portalCollection) { () throws(SecretStoreError) in
            try store.masterSecret(for: options.app, token: nil)
        }
        var secrets: [SecureBytes] = []
        for (collection, item) in matches {
            let secret = try unlocking(store, collection) { () throws(SecretStoreError) in
                try store.secret(of: item.id, in: collection)
            }
            secrets.append(secret.value)
        }
        let file: PortalKeyringFile
        do throws(PortalKeyringFile.Failure) {
            if let contents = FileSystem.contents(options.keyringPath) {
                file = try PortalKeyringFile(contents: contents, masterSecret: master.secret)
            } else {
                file = try PortalKeyringFile(masterSecret: master.secret)
            }
            for ((_, item), secret) in zip(matches, secrets) {
                try file.replace(
                    attributes: item.attributes, label: item.label, secret: secret, created: item.created,
                    modified: item.modified)
            }
        } catch {
            throw .keyring("\(options.keyringPath): \(error)")
        }
        do {
            try FileSystem.replace(options.keyringPath, with: file.serialized(modified: Keystore.secondsNow()))
        } catch {
            throw .keyring("cannot write \(options.keyringPath): \(error)")
        }
        guard !options.keep else { return matches.count }
        for (collection, item) in matches {
            do { try store.deleteItem(item.id, in: collection) } catch {
                throw .store(
                    "the items were written to \(options.keyringPath), but \(item.label) stayed in the keychain: \(error)"
                )
            }
        }
        return matches.count
    }

    /// Runs `body`; when it finds `collection` locked, unlocks it through its prompt and runs it again.
    static func unlocking<R>(
        _ store: KeychainSecretStore, _ collection: CollectionID?, _ body: () throws(SecretStoreError) -> R
    ) throws(Failure) -> R {
        do {
            return try body()
        } catch .isLocked {
            guard let collection else { throw .locked("login") }
            let label = store.collection(collection)?.label ?? collection.rawValue
            guard (try? store.unlockFromPrompt(collection)) == true else { throw .locked(label) }
            do { return try body() } catch { throw .store("\(label): \(DBusFailure(error, path: label).message)") }
        } catch {
            throw .store(DBusFailure(error, path: collection?.rawValue ?? "login").message)
        }
    }
}
