internal import SecretService

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

let arguments = CommandLine.arguments
if arguments.count > 1, arguments[1] == "migrate" {
    // The store items go to. MERGE NOTE: the keychain-backed store replaces MemorySecretStore here;
    // with the in-memory store a migration only proves the items are readable (they vanish at exit).
    exit(MigrationCommand.main(arguments: Array(arguments.dropFirst(2)), makeStore: { MemorySecretStore() }))
}
exit(SecretServiceDaemon.main(arguments: arguments))
