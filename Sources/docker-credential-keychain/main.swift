import KeychainDockerCredential
import KeychainToolSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

Platform.exit(
    DockerCredentialHelper.main(arguments: CommandLine.arguments, environment: ProcessInfo.processInfo.environment))
