internal import SecretService

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

let arguments = CommandLine.arguments
if arguments.count > 1, arguments[1] == "migrate" {
    // Items go into the keychains (the same store the daemon serves by default).
    exit(MigrationCommand.main(arguments: Array(arguments.dropFirst(2)), makeStore: { KeychainSecretStore() }))
}
exit(SecretServiceDaemon.main(arguments: arguments))
