internal import CGIO
internal import KeychainDBus

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// `keychain-secret-service session-agent`: runs the ``SessionAgent`` on the system bus until SIGTERM
/// or SIGINT (tracker issue 25, item 2). The systemd user unit `keychain-session-agent.service` runs
/// it for the whole of the user's sessions; it is a process of its own, not part of the provider,
/// because the provider exits when idle and must not hold the system bus or a sleep inhibitor.
///
/// Every line it logs goes to standard error (the journal under systemd), prefixed with
/// `keychain-secret-service session-agent:`, and names keychain paths only, never a secret.
///
/// SIGTERM or SIGINT locks the keychains that ask for it (as a logout does) before the agent exits.
///
/// Exit statuses: 0 after SIGTERM/SIGINT, or when there is no system bus at all (logged: nothing to
/// watch, and a restart would not help); 1 on a usage error.
package enum SessionAgentCommand {
    static let usage = """
        usage: keychain-secret-service session-agent

        Watches systemd-logind on the system bus and locks the keychains that ask for it
        (security set-keychain-settings -l) when the screen locks, before the system sleeps
        and when the user's last session ends.

        """

    static let prefix = "keychain-secret-service session-agent: "

    /// Runs the command. - Parameter arguments: the arguments after `session-agent`.
    /// - Returns: the exit status.
    package static func main(arguments: [String]) -> Int32 {
        if let first = arguments.first {
            if first == "-h" || first == "--help" {
                print(usage, terminator: "")
                return 0
            }
            SecretServiceDaemon.printError("\(prefix)unknown option \(first)\n\(usage)")
            return 1
        }
        SecretServiceDaemon.unblockTerminationSignals()
        var error: UnsafeMutablePointer<GError>?
        guard let connection = g_bus_get_sync(G_BUS_TYPE_SYSTEM, nil, &error) else {
            SecretServiceDaemon.printError(
                "\(prefix)no system bus (\(SecretServiceDaemon.consume(error))): keychains will not lock at screen "
                    + "lock, sleep or logout, only by their inactivity timeout (security set-keychain-settings -t)")
            return 0
        }
        defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
        let loop = g_main_loop_new(nil, 0)
        defer { g_main_loop_unref(loop) }
        let agent = SessionAgent(connection: connection) { SecretServiceDaemon.printError(prefix + $0) }
        agent.start()
        let signals = [SIGTERM, SIGINT].map { signal in MainLoopSignal(signal) { g_main_loop_quit(loop) } }
        g_main_loop_run(loop)
        for signal in signals { signal.cancel() }
        // systemd stops the unit with SIGTERM when the user's manager ends (the last logout): what a
        // logout locks is locked now, before the agent goes and nothing is left to lock later.
        agent.lockKeychains("stopping (SIGTERM or SIGINT)")
        agent.stop()
        return 0
    }
}
