import KeychainGitCredential
import KeychainToolSupport

Platform.exit(
    GitCredentialHelper.main(arguments: CommandLine.arguments, environment: Platform.environment()))
