internal import SecretService

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

exit(SecretServiceDaemon.main(arguments: CommandLine.arguments))
