import Foundation
import Testing

@testable import KeychainCore

/// ``ChildProcess``: the one `posix_spawn` wrapper behind the pinentry, sync's `git` and
/// `security portal-migrate` (tracker issue 23, item 5).
@Suite("Starting child processes")
struct ChildProcessTests {
    @Test("Captured output holds standard output and error together, and the exit code comes back as the shell's")
    func capturedOutputAndExitCode() throws {
        let run = try ChildProcess.run(
            "/bin/sh", ["-c", "printf out; printf err >&2; exit 3"], environment: [:], output: .capture
        ).get()
        #expect(run.status == 3)
        #expect(String(decoding: run.output, as: UTF8.self) == "outerr")
    }

    @Test("A child ended by a signal reports 128 + the signal, as a shell does")
    func signalledChild() throws {
        let run = try ChildProcess.run("/bin/sh", ["-c", "kill -KILL $$"], environment: [:], output: .capture).get()
        #expect(run.status == 128 + SIGKILL)
        #expect(ChildProcess.exitStatus(fromWaitStatus: 0x0900) == 9)
        #expect(ChildProcess.exitStatus(fromWaitStatus: 9) == 128 + 9)
    }

    @Test("The environment given is the child's whole environment, and the program is found on PATH when asked")
    func environmentAndPathSearch() throws {
        let run = try ChildProcess.run(
            "sh", ["-c", "printf '%s|%s' \"$ONLY\" \"${HOME-unset}\""], environment: ["ONLY": "this", "PATH": "/bin"],
            searchPath: true, output: .capture
        ).get()
        #expect(run.status == 0)
        #expect(String(decoding: run.output, as: UTF8.self) == "this|unset")
    }

    @Test("Standard input from /dev/null reads as empty")
    func nullInput() throws {
        let run = try ChildProcess.run(
            "/bin/sh", ["-c", "wc -c"], environment: ["PATH": "/usr/bin:/bin"], input: .null, output: .capture
        ).get()
        #expect(run.status == 0)
        #expect(String(decoding: run.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }

    @Test("A program that does not exist is a start error (ENOENT), not an exit status")
    func missingProgram() {
        let result = ChildProcess.run("/nonexistent/program", [], environment: [:], output: .capture)
        guard case .failure(let error) = result else {
            Issue.record("a missing program ran: \(result)")
            return
        }
        #expect(error.code == ENOENT)
    }

    @Test("A started child is not reaped while it runs; waiting gives its exit status once it ends")
    func reapIfExited() throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        // Close-on-exec: the child gets only the reading end (as its input), never the writing end.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        // The child blocks reading the pipe until its writing end closes.
        let child = try ChildProcess.start(
            "/bin/sh", ["-c", "read line; exit 4"], environment: [:], input: .descriptor(ends[0])
        ).get()
        close(ends[0])
        #expect(!child.reapIfExited())
        close(ends[1])
        #expect(child.wait() == 4)
        #expect(child.reapIfExited(), "a reaped child counts as gone")
    }
}
