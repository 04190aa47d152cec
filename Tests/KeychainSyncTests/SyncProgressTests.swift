import Foundation
import KeychainCore
import KeychainSync
import KeychainTesting
import KeychainToolSupport
import Testing

@testable import KeychainSecurityTool

/// Progress of a long `security sync` run (issue 26: "a first sync of a large keychain shows progress on a
/// terminal"): on standard error, only when it is a terminal, at most one line a second.
@Suite("security sync shows progress on standard error when it is a terminal, and only then")
struct SyncProgressTests {
    @Test("The handler exists only when standard error is a terminal, whatever standard input is")
    func decision() {
        for (input, error) in [(false, false), (true, false), (false, true), (true, true)] {
            let io = CommandIO(
                input: MemoryInput("", isTerminal: input), environment: [:], terminal: ScriptedPrompter([]),
                errorIsTerminal: error)
            #expect((SyncProgressLines.handler(for: io) != nil) == error, "stdin terminal \(input), stderr \(error)")
        }
    }

    @Test("Lines are shown at most once a second: the first at once, then the first after each second")
    func rateLimited() {
        var now: UInt64 = 10_000
        var shown: [String] = []
        let lines = SyncProgressLines(clock: { now }) { shown.append($0) }
        for (time, line) in [(10_000, "a"), (10_400, "b"), (10_999, "c"), (11_000, "d"), (11_500, "e"), (13_000, "f")] {
            now = UInt64(time)
            lines.show(line)
        }
        #expect(shown == ["a", "d", "f"])
    }

    /// Three items of 400 kB: 1.2 MB of changes, two segments of at most 1 MiB.
    func twoSegments(_ device: SyncDevice) throws {
        for index in 0..<3 {
            try device.add(
                service: "svc-large-\(index)", account: "acct", secret: String(repeating: "\(index)", count: 400_000))
        }
    }

    @Test("A push and a first sync of two segments show progress on a terminal (a real one), and nothing on a pipe")
    func terminal() throws {
        let home = try TemporaryKeychain()
        let url = home.directory + "/shared"
        try FileManager.default.createDirectory(atPath: url, withIntermediateDirectories: true)
        let devices = try (0..<3).map { _ in try SyncDevice() }
        let passphrase = SyncKeychainTests.passphrase
        try #require(devices[0].security("sync", "init", url, stdin: passphrase).status == 0)
        try twoSegments(devices[0])

        let pushed = try SecurityProcess.run(
            ["sync", "now"], environment: devices[0].environment, errorOnTerminal: true)
        #expect(pushed.status == 0, "\(pushed)")
        #expect(pushed.err.hasPrefix("pushing 2 segments ("), "\(pushed)")
        #expect(pushed.out.contains("pushed 3 changes in 2 segments"), "\(pushed)")
        #expect(!pushed.out.contains("pushing"))

        let sender = try devices[0].store.syncDeviceID()
        let joined = try SecurityProcess.run(
            ["sync", "join", "--recovery", url], environment: devices[1].environment, stdin: passphrase,
            errorOnTerminal: true)
        #expect(joined.status == 0, "\(joined)")
        #expect(joined.err.hasPrefix("applying segment 1 of 2 from \(sender)\n"), "\(joined)")
        #expect(!joined.out.contains("applying"))
        #expect(try devices[1].secret(service: "svc-large-2") == String(repeating: "2", count: 400_000))

        // The same first sync with standard error on a pipe shows nothing but the report.
        let quiet = try SecurityProcess.run(
            ["sync", "join", "--recovery", url], environment: devices[2].environment, stdin: passphrase)
        #expect(quiet.status == 0, "\(quiet)")
        #expect(quiet.err.isEmpty, "\(quiet)")
        #expect(quiet.out.contains("applied 3,"), "\(quiet)")
    }
}
