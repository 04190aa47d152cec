import KeychainSecurityTool
import KeychainToolSupport

// The environment straight from environ(7): half the cost of Foundation's ProcessInfo getter, which was
// 9% of a lookup process's instructions (issue 15); this main needs nothing else from Foundation.
Platform.exit(SecurityTool.main(arguments: CommandLine.arguments, environment: Platform.environment()))
