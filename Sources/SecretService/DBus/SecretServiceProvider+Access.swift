internal import CGIO
internal import KeychainCore
internal import KeychainDBus

/// Access lists on items (issue 27, items 2 and 3): who may use a secret, and the question asked
/// when the caller is not on an item's list (``AccessRule``, ``AccessQuestion``).
extension SecretServiceProvider {
    /// Runs `operation` on those of `items` that `caller` may use. Items it may use without asking
    /// go at once (an item without a list first gets `caller` as its owner); for the others the user
    /// is asked on a worker thread, and the call is answered when the user has answered: "Always
    /// Allow" adds the caller to the item's list, "Allow" lets this call through, "Deny" leaves the
    /// item out (`single`: the call fails with `org.freedesktop.DBus.Error.AccessDenied`). A call
    /// whose client leaves the bus first is dropped and its pinentry closed. With `remember` (`Unlock`
    /// of items), "Allow" lasts until the client leaves the bus, as an unlocked item stays usable.
    /// - Throws: ``PromptAnswered`` when the answer is deferred; what `operation` throws otherwise.
    func withAccess(
        _ call: MethodCall, _ caller: Caller, items: [(CollectionID, ItemID)], single: Bool, remember: Bool = false,
        _ operation: @escaping ([(CollectionID, ItemID)]) throws -> [OpaquePointer]
    ) throws -> [OpaquePointer] {
        var allowed: [(CollectionID, ItemID)] = []
        var asking: [(collection: CollectionID, item: ItemID, info: ItemInfo)] = []
        let grants = unlockGrants[call.sender] ?? []
        for (collection, item) in items {
            if grants.contains(Self.grantKey(collection, item)) {
                allowed.append((collection, item))
                continue
            }
            // An item that cannot be read is left to `operation`, which reports why.
            guard let info = try? store.item(item, in: collection) else {
                allowed.append((collection, item))
                continue
            }
            let policy = { [unowned self] in self.store.accessPolicy(of: collection) }
            switch AccessRule.verdict(info.access, policy: policy, caller: caller.identity) {
            case .allow: allowed.append((collection, item))
            case .adopt:
                try? store.setAccess(SecretItemAccess(owner: caller.identity.string), of: item, in: collection)
                allowed.append((collection, item))
            case .ask: asking.append((collection, item, info))
            }
        }
        guard !asking.isEmpty else { return try operation(allowed) }
        let identity = caller.identity.string
        let name = ApplicationName().name(of: caller.identity)
        let job = AccessQuestion(
            questions: asking.map {
                AccessConfirmation(application: identity, itemLabel: $0.info.label, applicationName: name)
            },
            owner: call.sender)
        let key = ObjectIdentifier(job)
        accessQuestions[key] = job
        job.onAnswers = { [unowned self] answers in
            self.accessQuestions[key] = nil
            var granted = allowed
            var unasked = false
            for (index, entry) in asking.enumerated() {
                let answer = index < answers.count ? answers[index] : nil
                switch answer {
                case .alwaysAllow:
                    var access = entry.info.access ?? SecretItemAccess(owner: "")
                    access.allow(identity)
                    try? self.store.setAccess(access, of: entry.item, in: entry.collection)
                    granted.append((entry.collection, entry.item))
                case .allowOnce:
                    if remember {
                        self.unlockGrants[call.sender, default: []].insert(Self.grantKey(entry.collection, entry.item))
                    }
                    granted.append((entry.collection, entry.item))
                case .deny, nil:
                    if answer == nil {
                        unasked = true
                        self.logNoPrompter("no pinentry could ask about \(identity)")
                    }
                }
            }
            if single && granted.isEmpty {
                // Nobody was asked when no pinentry could be shown: say so, and how to let it through.
                let reason =
                    unasked
                    ? "no pinentry could ask the user (is a display or terminal reachable?); "
                        + "security set-keychain-settings --access-policy open stops asking"
                    : "the user did not allow it"
                call.fail(.accessDenied("\(identity) may not use \"\(asking[0].info.label)\": \(reason)"))
            } else {
                do { call.reply(try operation(granted)) } catch let failure as DBusFailure { call.fail(failure) } catch
                {
                    call.fail(.failed("\(error)"))
                }
            }
            self.activityHandler?()
        }
        job.onCancel = { call.fail(.accessDenied("the caller left the bus before the user answered")) }
        job.start()
        throw PromptAnswered()
    }

    /// Drops the access questions of a client that left the bus (their pinentry closes).
    func endAccessQuestions(of name: String) {
        unlockGrants[name] = nil
        for (key, job) in accessQuestions where job.owner == name {
            accessQuestions[key] = nil
            job.cancel()
        }
    }

    /// The key of an item in ``unlockGrants``.
    static func grantKey(_ collection: CollectionID, _ item: ItemID) -> String {
        "\(collection.rawValue)/\(item.rawValue)"
    }

    /// Whether `caller` sees the item in searches and a collection's `Items` (sandboxed callers only
    /// their own, item 3).
    func lists(_ info: ItemInfo, to caller: Caller?) -> Bool {
        guard let caller else { return true }
        return AccessRule.lists(info.access, to: caller.identity)
    }
}
