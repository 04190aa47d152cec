import KeychainGitCredential
import KeychainToolSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

Platform.exit(
    GitCredentialHelper.main(arguments: CommandLine.arguments, environment: ProcessInfo.processInfo.environment))
