import Foundation
import Synchronization
import Testing

@testable import KeychainCore
@testable import KeychainSecurityTool

/// `security add-generic-password`/`add-internet-password -T appPath` and `-A` set a SecItem item's
/// trusted-application list as on macOS (issue 27), `show-item-access` and `revoke-item-access` cover
/// those lists, and a `security` that is not on an item's list is asked before it prints the secret.
@Suite("security -T/-A trusted-application lists")
struct TrustedApplicationCommandTests {
    /// Answers every question with `answer`, counting them.
    final class Answering: Prompter, Sendable {
        let answer: AccessConfirmation.Answer
        let count = Mutex(0)
        init(_ answer: AccessConfirmation.Answer) { self.answer = answer }
        func requestPassword(_ prompt: PasswordPrompt) throws(KeychainFailure) -> SecureBytes {
            throw KeychainFailure(.interactionNotAllowed, "no passwords in this test")
        }
        func confirm(_ confirmation: AccessConfirmation) throws(KeychainFailure) -> AccessConfirmation.Answer {
            count.withLock { $0 += 1 }
            return answer
        }
    }

    /// Asks nothing: the protocol's default `confirm` (no way to show the question).
    struct NoPrompt: Prompter {
        func requestPassword(_ prompt: PasswordPrompt) throws(KeychainFailure) -> SecureBytes {
            throw KeychainFailure(.interactionNotAllowed, "no prompt in this test")
        }
    }

    static var trueProgram: String { CallerIdentity.program(atPath: "/usr/bin/true")!.string }

    @Test("-T paths are stored as identities (a missing program by its path), -T \"\" as an empty list, -A as none")
    func storesLists() throws {
        let sandbox = try Sandbox()
        #expect(
            sandbox.security(
                "add-generic-password", "-s", "two", "-a", "me", "-w", "pw", "-T", "/usr/bin/true", "-T",
                "/nonexistent/swkc/app"
            ).status == 0)
        #expect(sandbox.security("add-generic-password", "-s", "none", "-a", "me", "-w", "pw", "-T", "").status == 0)
        #expect(sandbox.security("add-generic-password", "-s", "any", "-a", "me", "-w", "pw", "-A").status == 0)
        #expect(sandbox.security("add-generic-password", "-s", "plain", "-a", "me", "-w", "pw").status == 0)
        #expect(
            sandbox.security("add-generic-password", "-s", "both", "-a", "me", "-w", "pw", "-A", "-T", "/usr/bin/true")
                .status == 2)
        #expect(
            sandbox.security("add-internet-password", "-s", "web.example", "-a", "me", "-w", "pw", "-T", "").status
                == 0)
        #expect(
            sandbox.security("show-item-access").stdout == """
                "two" (generic password, service "two", account "me")
                    trusted: \(Self.trueProgram)
                    trusted: exe:/nonexistent/swkc/app
                "none" (generic password, service "none", account "me")
                    trusted: (no application)
                "web.example" (internet password, server "web.example", account "me")
                    trusted: (no application)
                policy: confirm

                """)
        #expect(sandbox.security("show-item-access", "-l", "none").stdout.hasPrefix("\"none\" (generic"))
    }

    @Test("-T app (relative) and -T /dir/./../dir//app name a missing program by its absolute, normalised path")
    func normalisesMissingProgramPaths() throws {
        let sandbox = try Sandbox()
        #expect(
            sandbox.security(
                "add-generic-password", "-s", "dots", "-a", "me", "-w", "pw", "-T", "/nonexistent/swkc/./../swkc//app",
                "-T", "relative-swkc-app"
            ).status == 0)
        let cwd = try #require(FileSystem.currentDirectory())
        #expect(
            sandbox.security("show-item-access").stdout == """
                "dots" (generic password, service "dots", account "me")
                    trusted: exe:/nonexistent/swkc/app
                    trusted: exe:\(cwd)/relative-swkc-app
                policy: confirm

                """)
    }

    @Test("find-generic-password -w by a program not on the list: Deny → 51, no prompter → 36, Allow → the password")
    func asksBeforePrinting() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.security("add-generic-password", "-s", "svc", "-a", "me", "-w", "pw", "-T", "").status == 0)
        let deny = Answering(.deny)
        let denied = Prompters.withOverride(deny) { sandbox.security("find-generic-password", "-s", "svc", "-w") }
        #expect(denied.status == 51 && denied.stdout.isEmpty)
        #expect(deny.count.withLock { $0 } == 1)
        let none = Prompters.withOverride(NoPrompt()) { sandbox.security("find-generic-password", "-s", "svc", "-w") }
        #expect(none.status == 36 && none.stdout.isEmpty)
        let allow = Answering(.allowOnce)
        #expect(
            Prompters.withOverride(allow) { sandbox.security("find-generic-password", "-s", "svc", "-w") }.stdout
                == "pw\n")
        // Without -w (attributes only) nothing is released and nothing is asked.
        #expect(
            Prompters.withOverride(NoPrompt()) { sandbox.security("find-generic-password", "-s", "svc") }.status == 0)
        let always = Answering(.alwaysAllow)
        #expect(
            Prompters.withOverride(always) { sandbox.security("find-generic-password", "-s", "svc", "-w") }.status
                == 0)
        #expect(
            Prompters.withOverride(NoPrompt()) { sandbox.security("find-generic-password", "-s", "svc", "-w") }.stdout
                == "pw\n")
        #expect(sandbox.security("show-item-access").stdout.contains("trusted: \(CallerIdentity.current.string)\n"))
    }

    @Test("revoke-item-access removes an identity from SecItem lists too, so its next read asks again")
    func revokes() throws {
        let sandbox = try Sandbox()
        let me = CallerIdentity.current.string
        #expect(
            sandbox.security(
                "add-generic-password", "-s", "svc", "-a", "me", "-w", "pw", "-T", "/usr/bin/true", "-T",
                executablePath()
            ).status == 0)
        #expect(
            Prompters.withOverride(NoPrompt()) { sandbox.security("find-generic-password", "-s", "svc", "-w") }.stdout
                == "pw\n")
        #expect(sandbox.security("revoke-item-access", "-T", me).stdout == "revoked \(me) from 1 item\n")
        #expect(
            Prompters.withOverride(NoPrompt()) { sandbox.security("find-generic-password", "-s", "svc", "-w") }.status
                == 36)
        #expect(sandbox.security("revoke-item-access", "-T", me).status == 44)
    }

    /// The test process's executable path.
    private func executablePath() -> String {
        if case .executable(let path, _) = CallerIdentity.current.kind { return path }
        return "/"
    }
}
