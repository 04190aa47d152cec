internal import KeychainCore
internal import KeychainSync
internal import KeychainToolSupport

/// `security sync VERB …`: end-to-end encrypted sync of synchronizable items over a git remote or a synced
/// folder (tracker issue 26; docs/SYNC.md). No macOS counterpart: iCloud Keychain has no command line.
///
/// Verbs: `init URL [keychain]`, `join [--recovery] [--no-wait] [--timeout SECONDS] URL [keychain]`,
/// `approve CODE [keychain]`, `remove-device ID [keychain]`, `devices [keychain]`, `now [--if-changed] [keychain]`,
/// `status [keychain]`, `conflicts [keychain]`, `resolve COPY-ID winner|copy [keychain]`,
/// `enable [keychain]`, `disable [keychain]`, `leave [keychain]` (this device takes itself out of the trust list,
/// rotating the sync key, stops syncing the keychain and removes its clone; the remote and the other devices keep the
/// items). The recovery passphrase is asked twice without echo on a terminal, or read as one line of standard input
/// otherwise; never from argv. A long run shows progress on standard error when that is a terminal
/// (``SyncProgressLines``).
///
/// Exit status: 0 done (for `now`: in sync); 1 the command does not apply (not set up, no such code or
/// device, wrong recovery passphrase, still waiting for approval); 2 usage; 3 the remote could not be read or
/// written (nothing lost: the changes stay queued); 4 the remote failed verification (a fork, a rollback, a
/// bad signature, a dropped, replayed or reordered segment, a device not in the trust list: nothing from
/// that device applied); 5 git failed on this device, in its clone of the remote (a rebase, a commit, making
/// the clone: nothing lost, but unlike 3 it does not pass by itself); a keychain status's code otherwise (36 while
/// locked). `leave` always leaves: 3, 4 or 36 then
/// say that the other devices still list this device, and how to remove it.
struct SyncCommand: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "sync",
        synopsis: "init URL | join [--recovery] [--no-wait] [--timeout SECONDS] URL | approve CODE | remove-device ID"
            + " | devices"
            + " | now [--if-changed]"
            + " | status | conflicts | resolve ID winner|copy | enable | disable | leave  [keychain]",
        options: [],
        trailer: [
            "URL: a git remote (ssh, https, file://, a path to a git repository) or a plain folder that another",
            "engine (Syncthing, Nextcloud) keeps in sync. Only items with kSecAttrSynchronizable sync, never",
            "ThisDeviceOnly ones. The recovery passphrase (init, join --recovery) is asked twice on a terminal,",
            "or read as one line of standard input. Exit 3: remote unreachable (nothing lost); 4: the remote",
            "failed verification (nothing applied from that device); 5: git failed in this device's clone.",
            "now --if-changed (the systemd path unit's):",
            "only when this device has unsent changes, once none came for 10 s (at most 2 min); else exit 0.",
            "leave: this device leaves the group (the others stop listing it; its items stay here and there).",
            "See docs/SYNC.md.",
        ],
        summary: "Sync synchronizable items with the user's other devices.", takesRawOperands: true,
        minimumPrefixLength: 4)

    static let verbs = [
        "init", "join", "approve", "remove-device", "devices", "now", "status", "conflicts", "resolve", "enable",
        "disable", "leave",
    ]

    let verb: String
    let operands: [String]
    let recovery: Bool
    let waits: Bool
    let timeout: Int
    let ifChanged: Bool

    init(_ options: ParsedOptions) throws(CommandFailure) {
        guard let first = options.operands.first, Self.verbs.contains(first) else { throw .usage(nil) }
        verb = first
        var operands: [String] = []
        var recovery = false
        var waits = true
        var timeout = 600
        var ifChanged = false
        var rest = options.operands.dropFirst()[...]
        while let word = rest.first {
            rest = rest.dropFirst()
            switch word {
            case "--recovery" where first == "join": recovery = true
            case "--no-wait" where first == "join": waits = false
            case "--if-changed" where first == "now": ifChanged = true
            case "--timeout" where first == "join":
                guard let value = rest.first.flatMap({ Int($0) }), value >= 0 else { throw .usage(nil) }
                timeout = value
                rest = rest.dropFirst()
            default:
                if word.hasPrefix("-") && word.count > 1 {
                    throw .usage("security: sync \(first): unknown option \(word)")
                }
                guard !word.isEmpty else { throw .usage(nil) }
                operands.append(word)
            }
        }
        let required: Int
        switch first {
        case "init", "join", "approve", "remove-device": required = 1
        case "resolve": required = 2
        default: required = 0
        }
        guard operands.count == required || operands.count == required + 1 else { throw .usage(nil) }
        if first == "resolve", !["winner", "copy"].contains(operands[1]) { throw .usage(nil) }
        self.operands = operands
        self.recovery = recovery
        self.waits = waits
        self.timeout = timeout
        self.ifChanged = ifChanged
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        let required = operands.count - (keychain == nil ? 0 : 1)
        let arguments = Array(operands.prefix(required))
        let target = context.target(keychain)
        let store: Keystore
        do { store = try context.open(target) } catch { throw CommandFailure.keychain("sync \(verb)", error) }
        let engine = SyncEngine(replica: store, environment: context.io.environment)
        engine.progress = SyncProgressLines.handler(for: context.io)
        do throws(SyncError) {
            try SyncVerbs(engine: engine, context: context, command: self).run(arguments)
        } catch {
            throw Self.failure(error, verb: verb)
        }
    }

    /// The keychain operand, after the verb's own operands.
    var keychain: String? {
        let required: Int
        switch verb {
        case "init", "join", "approve", "remove-device": required = 1
        case "resolve": required = 2
        default: required = 0
        }
        return operands.count > required ? operands.last : nil
    }

    /// A sync failure as `security: sync <verb>: <message>` and its exit status (see the type's documentation).
    static func failure(_ error: SyncError, verb: String) -> CommandFailure {
        let lines = error.message.split(separator: "\n").map { "security: sync \(verb): \($0)" }
        switch error.kind {
        case .state: return .message(lines.joined(separator: "\n"), status: 1)
        case .remote: return .message(lines.joined(separator: "\n"), status: 3)
        case .local: return .message(lines.joined(separator: "\n"), status: 5)
        case .verification: return .message(lines.joined(separator: "\n"), status: 4)
        case .keychain(let status):
            return .message(lines.joined(separator: "\n"), status: SecurityContext.exitStatus(status))
        }
    }
}
