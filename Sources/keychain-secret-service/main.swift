internal import SecretService

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

let arguments = CommandLine.arguments
if arguments.count > 1, arguments[1] == "migrate" {
    // Items go into the keychains (the same store the daemon serves by default); a dry run makes no
    // login keychain.
    exit(
        MigrationCommand.main(
            arguments: Array(arguments.dropFirst(2)),
            makeStore: { dryRun in KeychainSecretStore(createsLogin: !dryRun) }))
}
if arguments.count > 1, arguments[1] == "portal-migrate" {
    exit(PortalMigrateCommand.main(arguments: Array(arguments.dropFirst(2))))
}
if arguments.count > 1, arguments[1] == "session-agent" {
    exit(SessionAgentCommand.main(arguments: Array(arguments.dropFirst(2))))
}
exit(SecretServiceDaemon.main(arguments: arguments))
