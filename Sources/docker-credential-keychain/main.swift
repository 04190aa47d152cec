import KeychainDockerCredential
import KeychainToolSupport

// The environment straight from environ(7) (Platform.environment): this main needs nothing from Foundation (issue 23).
Platform.exit(DockerCredentialHelper.main(arguments: CommandLine.arguments, environment: Platform.environment()))
