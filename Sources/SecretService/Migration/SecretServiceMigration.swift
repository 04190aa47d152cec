internal import CGIO
internal import KeychainCore
internal import KeychainDBus

/// Copies every item of the Secret Service provider that runs now (gnome-keyring, KWallet, KeePassXC)
/// into a ``SecretStore``, as a client of that provider over D-Bus.
///
/// Each item keeps its label, attribute map, secret and content type. The source's `login` collection
/// (or, without one, the collection its `default` alias names) goes into this store's `login` alias;
/// every other collection into the collection with the same label here, made when missing. The
/// source's `session` collection (in memory, gone at logout) is not copied. An item that is already
/// here unchanged (same label, attribute set and secret) is counted as present and not copied again,
/// so a second run adds nothing.
///
/// Locked source collections are unlocked through the source's own `Unlock` and prompt (its password
/// dialog) unless ``Options/unlock`` is off; those that stay locked have their items counted as
/// skipped. Items that are locked on their own in an unlocked collection (KeePassXC confirms each
/// client's access to its entries) are unlocked with one `Unlock` of all of them (one dialog); those
/// that stay locked are skipped too. A source that fails a whole `GetSecrets` is asked item by item.
///
/// Attributes are copied exactly as the source serves them, including those a provider adds itself
/// (KeePassXC: `Title`, `UserName`, `URL`, `Notes`, `Path`, `Uuid`, and `FDO_SECRETS_CONTENT_TYPE` for
/// binary secrets; gnome-keyring: `xdg:schema`), so that every lookup that matched there matches here.
///
/// Secrets travel in a `dh-ietf1024-sha256-aes128-cbc-pkcs7` session when the source offers one
/// (`plain` when it answers `NotSupported`), land in `SecureBytes`, and are never printed or logged.
package enum SecretServiceMigration {
    /// What to do.
    package struct Options: Sendable {
        /// The source's bus name.
        package var busName = SecretServiceDaemon.busName
        /// Read everything (secrets included, to prove they are readable) but write nothing.
        package var dryRun = false
        /// Unlock locked source collections through the source's prompt.
        package var unlock = true
        /// How long to wait for the user to answer one unlock prompt, in seconds.
        package var promptTimeoutSeconds: UInt32 = 300
        /// How long to wait for one reply from the source, in milliseconds.
        package var callTimeoutMilliseconds: Int32 = 60_000

        package init() {}
    }

    /// Counts for one source collection.
    package struct CollectionReport: Equatable, Sendable {
        /// The source collection's object path and label.
        package var sourcePath: String
        package var sourceLabel: String
        /// The collection here (its identifier), `nil` when nothing needed one (or in a dry run, when it
        /// would be made).
        package var target: CollectionID?
        /// Items the source lists in the collection.
        package var read = 0
        /// Items copied here (in a dry run: that would be copied).
        package var stored = 0
        /// Items already here unchanged, not copied again.
        package var present = 0
        /// Items left out because the collection (or item) stayed locked.
        package var skippedLocked = 0
        /// Whether the collection itself stayed locked (the run is then incomplete even when it lists no
        /// items: KeePassXC lists none while a database is locked).
        package var stayedLocked = false
        /// Items that could not be read or stored; ``failures`` says why.
        package var failed = 0
        /// One line per failure: the item's source path and the reason (never a secret).
        package var failures: [String] = []
    }

    /// The outcome of a run.
    package struct Report: Equatable, Sendable {
        /// The source's unique name and program (`/proc/<pid>/comm`, may be empty).
        package var sourceOwner: String
        package var sourceProgram: String
        /// Whether secrets travelled encrypted (DH) rather than `plain`.
        package var encryptedSession: Bool
        package var dryRun: Bool
        package var collections: [CollectionReport]
        /// Items in the source's `session` collection, which are not copied.
        package var sessionItemsNotCopied: Int

        /// Whether every listed item was copied or was already here, and no collection stayed locked.
        package var complete: Bool {
            collections.allSatisfy { $0.skippedLocked == 0 && $0.failed == 0 && !$0.stayedLocked }
        }
    }

    /// Why the migration could not run at all.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        /// Nobody owns the source bus name.
        case noProvider(String)
        /// The source is this project's own provider.
        case ownProvider(String)
        /// A call the whole run depends on failed (listing collections, opening a session).
        case bus(String)

        package var description: String {
            switch self {
            case .noProvider(let name):
                "no Secret Service provider owns \(name) on the session bus: start the one to migrate from"
                    + " (for gnome-keyring: systemctl --user start gnome-keyring-daemon.service)"
            case .ownProvider(let owner):
                "\(owner) is keychain-secret-service itself: start the provider to migrate from first"
            case .bus(let message): "the source provider failed: \(message)"
            }
        }
    }

    /// Items fetched per `GetSecrets` call.
    static let batchSize = 100

    /// Runs the migration on `connection` (a `GDBusConnection` to the session bus) into `store`.
    ///
    /// - Parameters:
    ///   - connection: the bus the source provider is on.
    ///   - store: where items go; only read when `options.dryRun`.
    ///   - options: see ``Options``.
    /// - Returns: per-collection counts.
    /// - Throws: ``Failure/noProvider(_:)`` when nobody owns the bus name, ``Failure/ownProvider(_:)``
    ///   when the owner is `keychain-secret-service`, ``Failure/bus(_:)`` when listing collections or
    ///   opening a session fails. Failures of single items are counted, not thrown.
    package static func run(connection: OpaquePointer, store: any SecretStore, options: Options) throws(Failure)
        -> Report
    {
        // A private main context for prompt signals, so that the caller's context sees none of them.
        let context = g_main_context_new()
        g_main_context_push_thread_default(context)
        defer {
            g_main_context_pop_thread_default(context)
            g_main_context_unref(context)
        }
        let client = SecretServiceClient(
            connection: connection, busName: options.busName, timeoutMilliseconds: options.callTimeoutMilliseconds)
        let owner: (unique: String, pid: UInt32?, program: String)
        do {
            guard let found = try client.owner() else { throw Failure.noProvider(options.busName) }
            owner = found
        } catch let error as Failure {
            throw error
        } catch {
            throw .bus("\(error)")
        }
        if SecretServiceClient.isOwnProvider(owner.program) {
            throw .ownProvider("\(owner.program) (\(owner.unique))")
        }
        let paths: [String]
        do {
            try client.openSession()
            paths = try client.collectionPaths()
        } catch {
            throw .bus("\(error)")
        }
        var migration = Run(client: client, store: store, options: options)
        let login = paths.first { $0.hasSuffix("/collection/login") } ?? client.readAlias("default")
        let session = client.readAlias("session") ?? "\(SecretServiceClient.servicePath)/collection/session"
        var reports: [CollectionReport] = []
        var sessionItems = 0
        for path in paths {
            if path == session {
                sessionItems += migration.itemCount(path)
                continue
            }
            reports.append(migration.copy(collection: path, isLogin: path == login))
        }
        return Report(
            sourceOwner: owner.unique, sourceProgram: owner.program, encryptedSession: client.sessionIsEncrypted,
            dryRun: options.dryRun, collections: reports, sessionItemsNotCopied: sessionItems)
    }

    /// The state of one run.
    private struct Run {
        let client: SecretServiceClient
        let store: any SecretStore
        let options: Options

        func itemCount(_ path: String) -> Int {
            guard let properties = try? client.allProperties(path, SecretServiceClient.collectionInterface) else {
                return 0
            }
            defer { Variant.release(properties) }
            return properties["Items"].map { Variant.isOfType($0, "ao") ? Variant.childCount($0) : 0 } ?? 0
        }

        /// Label, Locked and Items of a source collection: from `GetAll`, or, when that fails as a whole
        /// (KeePassXC answers `IsLocked` for all of a locked database's properties because `Created`
        /// cannot be read), from one `Get` each.
        func describe(_ path: String) throws(SecretServiceClient.CallError) -> (
            label: String, locked: Bool, items: [String]
        ) {
            let properties = try properties(
                path, SecretServiceClient.collectionInterface, ["Label", "Locked", "Items"], requiring: "Locked")
            defer { Variant.release(properties) }
            let label = properties["Label"].flatMap { Variant.isOfType($0, "s") ? Variant.readString($0) : nil } ?? ""
            let locked = properties["Locked"].map { Variant.isOfType($0, "b") && Variant.readBoolean($0) } ?? false
            let items = properties["Items"].map { Variant.isOfType($0, "ao") ? Variant.readStrings($0) : [] } ?? []
            return (label, locked, items)
        }

        /// `GetAll` of `interface` on `path`, or, when that fails as a whole, one `Get` for each of `names`;
        /// the fallback counts only when it read `required`. The values are to be released
        /// (`Variant.release`). - Throws: `GetAll`'s error when the fallback does not count.
        private func properties(_ path: String, _ interface: String, _ names: [String], requiring required: String)
            throws(SecretServiceClient.CallError) -> [String: OpaquePointer]
        {
            do {
                return try client.allProperties(path, interface)
            } catch {
                let some = client.properties(path, interface, names)
                guard some[required] != nil else {
                    Variant.release(some)
                    throw error
                }
                return some
            }
        }

        /// One source item's label, attributes and lock state.
        struct SourceItem {
            let path: String
            let label: String
            let attributes: [String: String]
            var locked: Bool
        }

        /// Reads an item's `Label`, `Attributes` and `Locked` (`GetAll`, or one `Get` each when that fails).
        /// - Throws: the provider's error, or a local one when it serves no `a{ss}` `Attributes`.
        func readItem(_ path: String) throws(SecretServiceClient.CallError) -> SourceItem {
            let properties = try properties(
                path, SecretServiceClient.itemInterface, ["Label", "Attributes", "Locked"], requiring: "Attributes")
            defer { Variant.release(properties) }
            guard let value = properties["Attributes"], Variant.isOfType(value, "a{ss}") else {
                throw SecretServiceClient.CallError(name: "(local)", message: "no Attributes")
            }
            return SourceItem(
                path: path,
                label: properties["Label"].flatMap { Variant.isOfType($0, "s") ? Variant.readString($0) : nil } ?? "",
                attributes: Variant.readStringMap(value),
                locked: properties["Locked"].map { Variant.isOfType($0, "b") && Variant.readBoolean($0) } ?? false)
        }

        /// Whether the source says `path` is locked now (`true` when it cannot say).
        func isLocked(_ path: String) -> Bool {
            let properties = client.properties(path, SecretServiceClient.itemInterface, ["Locked"])
            defer { Variant.release(properties) }
            return properties["Locked"].map { !Variant.isOfType($0, "b") || Variant.readBoolean($0) } ?? true
        }

        mutating func copy(collection path: String, isLogin: Bool) -> CollectionReport {
            var report = CollectionReport(sourcePath: path, sourceLabel: "")
            var source: (label: String, locked: Bool, items: [String])
            do {
                source = try describe(path)
                // Unlocked even when it lists no items: some providers (KeePassXC) list none while locked.
                if source.locked, options.unlock {
                    _ = try client.unlock([path], promptTimeoutSeconds: options.promptTimeoutSeconds)
                    source = try describe(path)
                }
            } catch {
                report.failures.append("\(path): \(error)")
                report.failed = 1
                return report
            }
            report.sourceLabel = source.label
            report.read = source.items.count
            if source.locked {
                report.stayedLocked = true
                report.skippedLocked = source.items.count
                return report
            }
            guard !source.items.isEmpty else { return report }
            var items: [SourceItem] = []
            for itemPath in source.items {
                do { items.append(try readItem(itemPath)) } catch {
                    report.failed += 1
                    report.failures.append("\(itemPath): \(error)")
                }
            }
            // Items locked on their own in an unlocked collection (KeePassXC, when it confirms each
            // client's access to an entry): one `Unlock` for all of them, so one prompt.
            let lockedItems = items.filter(\.locked).map(\.path)
            if !lockedItems.isEmpty, options.unlock {
                _ = try? client.unlock(lockedItems, promptTimeoutSeconds: options.promptTimeoutSeconds)
                for index in items.indices where items[index].locked {
                    items[index].locked = isLocked(items[index].path)
                }
            }
            // Nothing to read: no collection is made here for it.
            guard items.contains(where: { !$0.locked }) else {
                report.skippedLocked += items.count
                return report
            }
            var target: CollectionID?
            do {
                target = try targetCollection(label: source.label, isLogin: isLogin, report: &report)
            } catch .isLocked {
                report.failed += items.count
                report.failures.append(
                    report.target.map {
                        "\(path): the keychain \($0.rawValue) here is locked and was not unlocked (its prompt was "
                            + "dismissed); unlock it (security unlock-keychain) and run again"
                    } ?? "\(path): no keychain was made here for it (its password prompt was dismissed)")
                return report
            } catch {
                report.failed += items.count
                report.failures.append("\(path): \(error)")
                return report
            }
            report.target = target
            var start = 0
            while start < items.count {
                let batch = Array(items[start..<min(start + SecretServiceMigration.batchSize, items.count)])
                start += batch.count
                copy(batch, into: target, report: &report)
            }
            return report
        }

        /// Copies a batch of items: one `GetSecrets` for the unlocked ones (one `GetSecret` each when the
        /// provider fails the whole call), then each item unless it is here already.
        private func copy(_ batch: [SourceItem], into target: CollectionID?, report: inout CollectionReport) {
            // SecureBytes wipes itself when the last reference goes; the store may keep these.
            var secrets: [String: StoredSecret] = [:]
            var errors: [String: SecretServiceClient.CallError] = [:]
            var undecodable: [String: String] = [:]
            let unlocked = batch.filter { !$0.locked }.map(\.path)
            if !unlocked.isEmpty {
                do { (secrets, undecodable) = try client.secrets(of: unlocked) } catch {
                    for path in unlocked {
                        do { secrets[path] = try client.secret(of: path) } catch { errors[path] = error }
                    }
                }
            }
            for item in batch {
                guard let secret = secrets[item.path] else {
                    if let problem = undecodable[item.path] {
                        report.failed += 1
                        report.failures.append("\(item.path): \(problem)")
                    } else if item.locked || errors[item.path]?.name == SecretServiceClient.isLockedError {
                        report.skippedLocked += 1
                    } else {
                        report.failed += 1
                        report.failures.append(
                            "\(item.path): \(errors[item.path].map { "\($0)" } ?? "the source returned no secret")")
                    }
                    continue
                }
                if let target, isPresent(label: item.label, attributes: item.attributes, secret: secret, in: target) {
                    report.present += 1
                    continue
                }
                if options.dryRun {
                    report.stored += 1
                    continue
                }
                guard let target else { continue }
                do {
                    _ = try store.createItem(
                        in: target, label: item.label, attributes: item.attributes, secret: secret, replace: false)
                    report.stored += 1
                } catch {
                    report.failed += 1
                    report.failures.append("\(item.path): cannot store it here: \(error)")
                }
            }
        }

        /// Whether `target` holds an item with this label, exactly this attribute set and this secret.
        private func isPresent(
            label: String, attributes: [String: String], secret: StoredSecret, in target: CollectionID
        )
            -> Bool
        {
            store.search(attributes, in: target).contains { _, info in
                guard info.label == label, info.attributes == attributes,
                    let existing = try? store.secret(of: info.id, in: target)
                else { return false }
                return existing.contentType == secret.contentType && existing.value.constantTimeEquals(secret.value)
            }
        }

        /// The collection here for a source collection: `login` for the source's login collection,
        /// otherwise the one labelled `label`; made when missing (not in a dry run: `nil` then).
        /// - Throws: ``SecretStoreError/isLocked`` when it is locked, or a new one needs a password, and the
        ///   prompt was dismissed.
        private func targetCollection(label: String, isLogin: Bool, report: inout CollectionReport)
            throws(SecretStoreError) -> CollectionID?
        {
            let sessionCollection = store.resolveAlias("session")
            var found: CollectionID?
            if isLogin {
                found = store.resolveAlias("login")
            } else {
                found = store.collections().first { $0.label == label && $0.id != sessionCollection }?.id
            }
            if let found {
                report.target = found
                // A locked keychain here is unlocked through the prompter (pinentry), as the provider's
                // Unlock prompt does; dismissed, its items count as failed.
                if store.collection(found)?.locked == true {
                    guard try store.unlockFromPrompt(found) else { throw .isLocked }
                }
                return found
            }
            guard !options.dryRun else { return nil }
            // Stores that protect a new collection with a password (keychains) ask for it.
            let name = isLogin ? "Login" : label
            let made: CollectionID
            if store.createCollectionNeedsPrompt {
                guard let created = try store.createCollectionFromPrompt(label: name) else { throw .isLocked }
                made = created
            } else {
                made = try store.createCollection(label: name)
            }
            if isLogin {
                try store.setAlias("login", to: made)
                if store.resolveAlias("default") == nil { try store.setAlias("default", to: made) }
            }
            return made
        }
    }
}
