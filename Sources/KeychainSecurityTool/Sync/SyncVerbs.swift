internal import KeychainCore
internal import KeychainSync
internal import KeychainToolSupport

/// The verbs of `security sync` over one keychain's ``SyncEngine`` (see ``SyncCommand``).
struct SyncVerbs {
    let engine: SyncEngine
    let context: SecurityContext
    let command: SyncCommand

    var output: OutputBuffer { context.io.output }

    /// The verbs that only read the keychain, run without the lock (``SyncRunLock``).
    static let unlocked: Set<String> = ["status", "devices", "conflicts", "resolve", "enable", "disable"]

    /// Runs the verb; every verb that may reach the clone or the remote holds this keychain's ``SyncRunLock``
    /// for the run, waiting for a run that holds it, except `now --if-changed`, which then prints that the other
    /// run sends the changes and returns (exit 0). A failed `init` or `join` that leaves the keychain not syncing
    /// removes the clone it made (``SyncClone/remove(_:)``), so a later try starts clean.
    func run(_ given: [String]) throws(SyncError) {
        guard !Self.unlocked.contains(command.verb) else { return try perform(given) }
        let device = try engine.deviceID()
        let environment = context.io.environment
        let progress = engine.progress
        guard
            let lock = try SyncRunLock.acquire(
                path: SyncRunLock.path(device: device, environment: environment), wait: !command.ifChanged,
                waiting: { progress?("waiting for another sync run of this keychain to end") })
        else {
            output.line("another sync run of this keychain is under way: it sends the changes")
            return
        }
        let clone = GitTransport.clonePath(device: device, environment: environment)
        let hadClone = FileSystem.exists(clone)
        var failed = true
        defer {
            var syncing = true
            do { syncing = try engine.remoteURL() != nil } catch {}
            if failed, !syncing, !hadClone, ["init", "join"].contains(command.verb) { SyncClone.remove(clone) }
            lock.release(removing: !syncing)
        }
        try perform(given)
        failed = false
    }

    private func perform(_ given: [String]) throws(SyncError) {
        var arguments = given
        // A path to a folder or repository is stored absolute and normalised (the clone's git runs elsewhere,
        // and this folder may move); URLs and scp-style remotes stay as given (SyncEngine.storedRemote).
        if ["init", "join"].contains(command.verb), let url = arguments.first {
            arguments[0] = SyncEngine.storedRemote(url)
        }
        switch command.verb {
        case "init":
            let passphrase = try newPassphrase()
            let report = try engine.initialize(
                url: arguments[0], passphrase: passphrase, parameters: context.kdfParameters)
            output.line("sync set up with \(arguments[0]): this device is \(try engine.deviceID())")
            printReport(report)
        case "join": try join(arguments[0])
        case "approve":
            let device = try engine.approve(code: arguments[0])
            output.line("approved device \(device.id) (\(device.name))")
        case "remove-device":
            guard let id = SyncDeviceID(hex: arguments[0]) else {
                throw SyncError(.state, "\(arguments[0]) is not a device id (32 hexadecimal digits)")
            }
            guard id != (try engine.deviceID()) else {
                throw SyncError(.state, "\(id) is this device: security sync leave takes it out of the group")
            }
            try engine.removeDevice(id)
            output.line("removed device \(id); the sync key was rotated")
        case "devices":
            guard try engine.remoteURL() != nil else {
                throw SyncError(
                    .state, "this keychain does not sync: run security sync init URL or security sync join URL")
            }
            let me = try engine.deviceID()
            for device in try engine.trustedDevices() {
                output.line("\(device.id)  \(device.name)\(device.id == me ? "  (this device)" : "")")
            }
        case "now":
            guard command.ifChanged else {
                let report = try engine.syncNow()
                output.line("in sync with \(try engine.remoteURL() ?? "")")
                printReport(report)
                return
            }
            try nowIfChanged()
        case "status": try status()
        case "conflicts": try conflicts()
        case "resolve":
            guard let copy = SyncItemID(hex: arguments[0]) else {
                throw SyncError(.state, "\(arguments[0]) is not a conflict copy's id (32 hexadecimal digits)")
            }
            try engine.resolve(copy, keep: arguments[1] == "copy" ? .copy : .winner)
            output.line(arguments[1] == "copy" ? "kept the conflict copy \(copy)" : "kept the winner; dropped \(copy)")
        case "leave": try leave()
        case "enable":
            try engine.setEnabled(true)
            output.line("this keychain's Secret Service items sync too")
        default:
            try engine.setEnabled(false)
            output.line("this keychain's Secret Service items no longer sync")
        }
    }

    /// `leave`: exit 0 once the other devices no longer list this device (or there are none); when they still do
    /// (the remote unreachable or refusing: 3; failing verification: 4; the keychain locked: 36), this device has
    /// left all the same, and the message says how to take it out of the list.
    private func leave() throws(SyncError) {
        let me = try engine.deviceID()
        let left = try engine.leave()
        SyncClone.remove(left.clone)
        output.line(
            "this keychain no longer syncs on this device; \(GitTransport.withoutCredentials(left.remote)) and the other devices keep its items"
        )
        if left.departed {
            output.line("the other devices no longer list this device (\(me)); the sync key was rotated")
        }
        guard let reason = left.stillListed else { return }
        throw SyncError(
            reason.kind,
            reason.message + "\nthe other devices still list this device (\(me)): run security sync remove-device \(me)"
                + " on one of them")
    }

    private func newPassphrase() throws(SyncError) -> SecureBytes {
        let input = PasswordInput(context)
        guard
            let passphrase = input.readNew(
                given: nil, prompt: "recovery passphrase: ", retype: "retype recovery passphrase: ",
                mismatch: "passphrases don't match")
        else { throw SyncError(.state, "no recovery passphrase given") }
        guard passphrase.count > 0 else { throw SyncError(.state, "the recovery passphrase must not be empty") }
        return passphrase
    }

    private func join(_ url: String) throws(SyncError) {
        if command.recovery {
            let input = PasswordInput(context)
            guard let passphrase = input.read(given: nil, prompt: "recovery passphrase: "), passphrase.count > 0 else {
                throw SyncError(.state, "no recovery passphrase given")
            }
            let report = try engine.joinWithRecovery(url: url, passphrase: passphrase)
            output.line("joined \(url) with the recovery passphrase: this device is \(try engine.deviceID())")
            printReport(report)
            return
        }
        let code = try engine.requestJoin(url: url)
        output.line("join code: \(code)")
        output.line("approve it on a trusted device with: security sync approve \(code)")
        guard command.waits else { return }
        context.io.flush()
        var waited = 0
        while !(try engine.completeJoin()) {
            guard waited < command.timeout else {
                throw SyncError(
                    .state, "not approved within \(command.timeout) s; security sync now finishes the join later")
            }
            FileSystem.sleep(microseconds: 1_000_000)
            waited += 1
        }
        output.line("joined \(url): this device is \(try engine.deviceID())")
        printReport(try engine.syncNow())
    }

    /// `now --if-changed`: a run once this device's changes have settled; nothing to send, or a locked
    /// keychain, is not a failure (the periodic timer's run after unlock sends them).
    private func nowIfChanged() throws(SyncError) {
        let report: SyncNowReport?
        do {
            report = try engine.syncIfChanged(quiet: SyncEngine.changeQuiet, limit: SyncEngine.changeLimit)
        } catch {
            guard error.kind == .keychain(.interactionNotAllowed) else { throw error }
            output.line("the keychain is locked: its changes go out at the first sync after unlock")
            return
        }
        guard let report else {
            output.line("nothing to send")
            return
        }
        output.line("in sync with \(try engine.remoteURL() ?? "")")
        printReport(report)
    }

    private func status() throws(SyncError) {
        let status = try engine.status()
        guard let remote = status.remote else {
            output.line("not syncing (security sync init URL or security sync join URL sets it up)")
            return
        }
        output.line("remote: \(GitTransport.withoutCredentials(remote))")
        output.line("device: \(status.device)\(status.joining ? " (waiting for approval)" : "")")
        output.line("last sync: \(status.lastSync.map { Self.utc(milliseconds: $0) } ?? "never")")
        output.line("pending changes: \(status.pendingChanges.map(String.init) ?? "unknown (locked)")")
        if status.queuedSegments > 0 {
            output.line("queued, not yet pushed: \(Self.count(status.queuedSegments, "segment"))")
        }
        output.line("conflicts: \(status.conflicts.map(String.init) ?? "unknown (locked)")")
        if let waiting = status.waitingChanges, waiting > 0 {
            output.line("\(waiting) change\(waiting == 1 ? "" : "s") waiting for a newer build of swift-keychain")
        }
        output.line("trusted devices: \(status.trustedDevices)")
        output.line("Secret Service items: \(status.enabled ? "sync" : "do not sync (security sync enable)")")
    }

    private func conflicts() throws(SyncError) {
        let conflicts = try engine.conflicts()
        if conflicts.isEmpty { output.line("no conflicts") }
        for conflict in conflicts {
            output.line(
                "\(conflict.copy)  lost against \(conflict.item) at \(Self.utc(milliseconds: conflict.clock.milliseconds)): \(conflict.summary)"
            )
        }
    }

    private func printReport(_ report: SyncNowReport) {
        output.line(
            "    applied \(report.applied.applied), already had \(report.applied.ignored), conflicts kept"
                + " \(report.applied.conflicts), from \(Self.count(report.devicesRead, "device"))")
        output.line(
            "    pushed \(Self.count(report.changesPushed, "change")) in \(Self.count(report.segmentsPushed, "segment"))"
                + " (\(Self.count(report.bytesPushed, "byte")))")
    }

    /// `1 device`, `2 devices`.
    static func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }

    /// `YYYY-MM-DD HH:MM:SS UTC` of Unix milliseconds (civil-from-days, no Foundation).
    static func utc(milliseconds: UInt64) -> String {
        let seconds = Int64(milliseconds / 1000)
        let days = seconds / 86400
        let rest = seconds % 86400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day)) \(two(rest / 3600)):\(two(rest % 3600 / 60)):\(two(rest % 60)) UTC"
    }
}
