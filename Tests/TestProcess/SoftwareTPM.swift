import Foundation
import Testing

/// A software TPM (swtpm) of one test, in a folder of its own; stopped (and waited for) by ``stop()``
/// or when the value goes away, so no process outlives the test.
package final class SoftwareTPM {
    /// The folder holding its state (`state/`) and sockets.
    package let folder: String
    private var process: Process?

    /// The TCTI configuration string naming this TPM (`KEYCHAIN_TCTI`).
    package var tcti: String { "swtpm:path=\(folder)/socket" }

    /// Starts a TPM with its state in `folder/state`.
    package init(in folder: String) throws {
        self.folder = folder
        try FileManager.default.createDirectory(atPath: folder + "/state", withIntermediateDirectories: true)
        try start()
    }

    deinit { stop() }

    /// Starts the TPM (again), keeping its state.
    package func start() throws {
        let swtpm = "/usr/bin/swtpm"
        try #require(FileManager.default.isExecutableFile(atPath: swtpm), "swtpm is missing: run scripts/setup")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: swtpm)
        process.arguments = [
            "socket", "--tpm2", "--tpmstate", "dir=\(folder)/state", "--server", "type=unixio,path=\(folder)/socket",
            "--ctrl", "type=unixio,path=\(folder)/socket.ctrl", "--flags", "startup-clear,not-need-init",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: folder + "/socket") { usleep(10_000) }
        try #require(FileManager.default.fileExists(atPath: folder + "/socket"), "swtpm did not start")
    }

    /// Stops the TPM, keeping its state.
    package func stop() {
        guard let process else { return }
        // SIGKILL: swtpm inherits the test runner's blocked-signal mask, so SIGTERM stays pending.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
        try? FileManager.default.removeItem(atPath: folder + "/socket")
        try? FileManager.default.removeItem(atPath: folder + "/socket.ctrl")
    }

    /// Stops the TPM, erases its state (as `tpm2_clear` or a new machine would) and starts it afresh.
    package func wipe() throws {
        stop()
        try FileManager.default.removeItem(atPath: folder + "/state")
        try FileManager.default.createDirectory(atPath: folder + "/state", withIntermediateDirectories: true)
        try start()
    }
}
