import Foundation
import Testing

@testable import KeychainDockerCredential
@testable import KeychainGitCredential
@testable import KeychainSecurityTool
@testable import KeychainToolSupport

/// `Platform`'s own readers of process state (tracker issue 15).
@Suite("Platform")
struct PlatformTests {
    @Test("the environment read from environ(7) is the one Foundation's ProcessInfo reports")
    func environmentMatchesProcessInfo() {
        let ours = Platform.environment()
        #expect(ours == ProcessInfo.processInfo.environment)
        #expect(!ours.isEmpty)
        #expect(ours["PATH"] == String(cString: getenv("PATH")))
    }
}
