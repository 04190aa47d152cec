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
        // The socket file appears at bind(); a TCTI connecting before listen() gets an IO failure, so
        // wait until a connection is accepted (swtpm serves the next one when this probe closes). Up to
        // 30 s: on a loaded 2-core machine swtpm once took longer than 5 s to listen (new-user trial).
        var listening = false
        for _ in 0..<3000 where !listening {
            listening = Self.accepts(folder + "/socket")
            if !listening { usleep(10_000) }
        }
        try #require(listening, "swtpm did not start")
    }

    /// Whether a Unix stream socket at `path` accepts a connection.
    private static func accepts(_ path: String) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
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
