internal import CGIO
internal import KeychainCore
internal import KeychainDBus

extension SecretServiceProvider {
    // MARK: - Properties

    /// The value of a property (a floating `GVariant`), or `nil` when the object or property does not exist.
    ///
    /// Service: `Collections`. Collection: `Items`, `Label`, `Locked`, `Created`, `Modified`.
    /// Item: `Locked`, `Attributes`, `Label`, `Created`, `Modified`. All readable while locked.
    /// - Parameter sender: the connection asking (`Properties.Get`/`GetAll`); `nil` for signals. A
    ///   sandboxed one sees only its own items in a collection's `Items` (issue 27, item 3).
    func property(_ path: String, _ interface: String, _ name: String, sender: String? = nil) -> OpaquePointer? {
        switch (resolve(path), interface, name) {
        case (.service, SecretServiceInterfaces.service, "Collections"):
            return Variant.objectPaths(store.collections().map { collectionPath($0.id) })
        case (.collection(let id), SecretServiceInterfaces.collection, _):
            // Only `Locked` reads the lock state again (a keychain's: one read transaction).
            guard let info = name == "Locked" ? store.collection(id) : store.lastSeenCollection(id) else { return nil }
            switch name {
            case "Items":
                if let sender {
                    // An unidentifiable caller is treated as sandboxed here: it sees no items.
                    guard let caller = try? callers.caller(sender, on: connection) else {
                        return Variant.objectPaths([])
                    }
                    if caller.identity.isSandboxed {
                        let own = ((try? store.items(in: id)) ?? []).filter { lists($0, to: caller) }
                        return Variant.objectPaths(under: collectionPath(id), own.map(\.id.rawValue))
                    }
                }
                return Variant.objectPaths(
                    under: collectionPath(id), ((try? store.itemIDs(in: id)) ?? []).map(\.rawValue))
            case "Label": return Variant.string(info.label)
            case "Locked": return Variant.boolean(info.locked)
            case "Created": return Variant.uint64(info.created)
            case "Modified": return Variant.uint64(info.modified)
            default: return nil
            }
        case (.item(let collection, let item), SecretServiceInterfaces.item, "Locked"):
            // The item's existence and the lock state in one read (SecretStore/itemLocked).
            return store.itemLocked(item, in: collection).map(Variant.boolean)
        case (.item(let collection, let item), SecretServiceInterfaces.item, _):
            guard let info = try? store.item(item, in: collection) else { return nil }
            switch name {
            case "Attributes": return Variant.stringMap(info.attributes)
            case "Label": return Variant.string(info.label)
            case "Created": return Variant.uint64(info.created)
            case "Modified": return Variant.uint64(info.modified)
            default: return nil
            }
        default:
            return nil
        }
    }

    /// Sets a writable property (Collection `Label`; Item `Label`, `Attributes`).
    /// - Returns: `nil` on success, else the GDBus error to answer (GDBus has already checked the type).
    func setProperty(_ path: String, _ interface: String, _ name: String, _ value: OpaquePointer) -> (
        code: GDBusError, message: String
    )? {
        activityHandler?()
        let result: Result<Void, SecretStoreError>
        switch (resolve(path), name) {
        case (.collection(let id), "Label") where Variant.isOfType(value, "s"):
            let label = Variant.readString(value)
            guard label.utf8.count <= Limits.labelBytes else { return (G_DBUS_ERROR_INVALID_ARGS, "label too long") }
            result = Result { () throws(SecretStoreError) in try store.setLabel(label, of: id) }
        case (.item(let collection, let item), "Label") where Variant.isOfType(value, "s"):
            let label = Variant.readString(value)
            guard label.utf8.count <= Limits.labelBytes else { return (G_DBUS_ERROR_INVALID_ARGS, "label too long") }
            result = Result { () throws(SecretStoreError) in try store.setLabel(label, of: item, in: collection) }
        case (.item(let collection, let item), "Attributes") where Variant.isOfType(value, "a{ss}"):
            guard Variant.childCount(value) <= Limits.attributeCount else {
                return (G_DBUS_ERROR_INVALID_ARGS, "too many attributes")
            }
            let attributes = Variant.readStringMap(value)
            guard attributes.reduce(0, { $0 + $1.key.utf8.count + $1.value.utf8.count }) <= Limits.attributeBytes else {
                return (G_DBUS_ERROR_INVALID_ARGS, "attributes too large")
            }
            result = Result { () throws(SecretStoreError) in
                try store.setAttributes(attributes, of: item, in: collection)
            }
        case (nil, _):
            return (G_DBUS_ERROR_UNKNOWN_OBJECT, "No such object: \(path)")
        default:
            return (G_DBUS_ERROR_PROPERTY_READ_ONLY, "\(interface).\(name) is not writable")
        }
        switch result {
        case .success: return nil
        case .failure(.isLocked): return (G_DBUS_ERROR_ACCESS_DENIED, "\(path) is locked")
        case .failure(.noSuchObject): return (G_DBUS_ERROR_UNKNOWN_OBJECT, "No such object: \(path)")
        case .failure(.invalidArgument(let message)), .failure(.notSupported(let message)):
            return (G_DBUS_ERROR_INVALID_ARGS, message)
        case .failure(.failed(let message)): return (G_DBUS_ERROR_FAILED, message)
        }
    }

    // MARK: - Prompts

    /// Exports a prompt owned by `owner` and returns its path (Secret Service API, "Prompts and Prompting").
    /// `complete` runs the prompt's work when the client calls `Prompt` and returns the `Completed`
    /// result, or `nil` when the user dismissed it (a cancelled pinentry); `dismissed` gives the result
    /// of a dismissal.
    func addPrompt(
        owner: String, complete: @escaping () -> OpaquePointer?, dismissed: @escaping () -> OpaquePointer,
        background: ((_ id: String, _ finish: @escaping (OpaquePointer?) -> Void) -> Void)? = nil
    ) -> String {
        let id = String(nextPrompt)
        nextPrompt += 1
        var prompt = Prompt(owner: owner, complete: complete, dismissedResult: dismissed)
        if let background { prompt.background = { finish in background(id, finish) } }
        prompts[id] = prompt
        return "\(Self.promptPrefix)/\(id)"
    }

    /// `Prompt(s window_id)` and `Dismiss()`: answers at once, then runs the prompt's work (which may ask
    /// the user through pinentry) and emits `Completed(b dismissed, v result)` on the prompt's path; the
    /// prompt is gone afterwards. The reply goes out first, so that a client's call timeout does not
    /// run while the user types. A prompt whose question runs on a worker thread stays listed until it
    /// completes: `Dismiss` (or its client leaving) then ends it with `Completed(true, …)` at once, and
    /// the worker's later answer is dropped; a second `Prompt` changes nothing.
    func runPrompt(_ call: MethodCall, _ id: String, dismiss: Bool) throws -> [OpaquePointer] {
        if let running = backgroundPrompts[id], prompts[id] == nil {
            guard running.owner == call.sender else { throw DBusFailure.noSuchObject(call.path) }
            call.reply([])
            if dismiss { endBackgroundPrompt(id) }
            throw PromptAnswered()
        }
        guard let prompt = prompts[id], prompt.owner == call.sender else {
            throw DBusFailure.noSuchObject(call.path)
        }
        prompts[id] = nil
        call.reply([])
        g_dbus_connection_flush_sync(connection, nil, nil)
        // The graphical session's DISPLAY / WAYLAND_DISPLAY, exported after this provider started (issue 24).
        if !dismiss { ActivationEnvironment.refresh(from: connection) }
        let path = call.path
        if !dismiss, let background = prompt.background {
            background { [unowned self] result in
                guard let job = self.backgroundPrompts[id], !job.cancelled else { return }
                job.stopPolling()
                self.backgroundPrompts[id] = nil
                self.emit(
                    path, SecretServiceInterfaces.prompt, "Completed",
                    [Variant.boolean(result == nil), Variant.boxed(result ?? prompt.dismissedResult())])
                self.activityHandler?()
            }
            if let job = backgroundPrompts[id] {
                job.owner = call.sender
                job.onCancel = { [unowned self] in
                    self.emit(
                        path, SecretServiceInterfaces.prompt, "Completed",
                        [Variant.boolean(true), Variant.boxed(prompt.dismissedResult())])
                }
            }
            throw PromptAnswered()
        }
        var dismissed = dismiss
        var result: OpaquePointer
        if dismiss {
            result = prompt.dismissedResult()
        } else if let completed = prompt.complete() {
            result = completed
        } else {
            dismissed = true
            result = prompt.dismissedResult()
        }
        emit(
            call.path, SecretServiceInterfaces.prompt, "Completed", [Variant.boolean(dismissed), Variant.boxed(result)])
        throw PromptAnswered()
    }

    /// Ends a prompt whose question runs on a worker thread, as dismissed (`Completed(true, …)`); the
    /// worker's answer, when it comes, is dropped.
    func endBackgroundPrompt(_ id: String) {
        guard let job = backgroundPrompts.removeValue(forKey: id) else { return }
        job.cancel()
        activityHandler?()
    }

    /// Starts `ask` (which may show pinentry) on a worker thread for prompt `id`; `answered` runs on the
    /// main context with its answer, unless the prompt ended first, and returns the `Completed` result
    /// (`nil`: dismissed), which `finish` emits.
    func startBackgroundQuestion(
        _ id: String, ask: @escaping @Sendable () -> Bool?, finish: @escaping (OpaquePointer?) -> Void,
        answered: @escaping (Bool?) -> OpaquePointer?
    ) {
        let job = BackgroundPrompt(work: [ask])
        job.onResults = { answers in finish(answered(answers.first ?? nil)) }
        backgroundPrompts[id] = job
        job.start()
    }
}

/// Thrown after a prompt call has been answered, so that ``SecretServiceProvider/handle(_:)`` does not answer twice.
struct PromptAnswered: Error {}
