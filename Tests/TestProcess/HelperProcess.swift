package import Foundation
import Testing

/// The `keychain-test-helper` executable (Tests/Helper), run as another process by the
/// KeychainServices and Keychain suites.
package enum HelperProcess {
    /// The built helper: found by walking up from the test bundle to the build folder.
    package static let executable: String = {
        let fileManager = FileManager.default
        var candidates: [URL] = [Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0])]
        candidates.append(URL(fileURLWithPath: fileManager.currentDirectoryPath).appendingPathComponent(".build/debug"))
        for start in candidates {
            var directory = start.standardizedFileURL
            for _ in 0..<6 {
                let path = directory.appendingPathComponent("keychain-test-helper").path
                if fileManager.isExecutableFile(atPath: path) { return path }
                let debug = directory.appendingPathComponent(".build/debug/keychain-test-helper").path
                if fileManager.isExecutableFile(atPath: debug) { return debug }
                directory.deleteLastPathComponent()
            }
        }
        return "keychain-test-helper-not-found"
    }()

    /// A started helper process whose stdout goes to a file.
    package final class Running: @unchecked Sendable {  // Process is not Sendable; only waited on once.
        package let process: Process
        package let outputPath: String

        package init(_ arguments: [String], environment: [String: String], outputPath: String) throws {
            process = Process()
            process.executableURL = URL(fileURLWithPath: HelperProcess.executable)
            process.arguments = arguments
            var merged = ProcessInfo.processInfo.environment
            merged["KEYCHAIN_ENTITLEMENTS"] = nil
            for (key, value) in environment { merged[key] = value }
            process.environment = merged
            self.outputPath = outputPath
            _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
            process.standardOutput = FileHandle(forWritingAtPath: outputPath)
            process.standardError = FileHandle.nullDevice
            try process.run()
        }

        /// Waits for the process and returns its stdout lines and exit status.
        package func finish() throws -> (lines: [String], exitStatus: Int32) {
            process.waitUntilExit()
            let text = try String(contentsOfFile: outputPath, encoding: .utf8)
            return (text.split(separator: "\n").map(String.init), process.terminationStatus)
        }
    }

    /// Runs the helper to completion and returns its stdout, trimmed; records an issue when it exits
    /// with a status other than 0.
    package static func run(_ arguments: [String], environment: [String: String]) throws -> String {
        let output = NSTemporaryDirectory() + "swkc-helper-\(UUID().uuidString).out"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let running = try Running(arguments, environment: environment, outputPath: output)
        let (lines, exitStatus) = try running.finish()
        #expect(exitStatus == 0, "keychain-test-helper \(arguments.joined(separator: " ")) exited with \(exitStatus)")
        return lines.joined(separator: "\n")
    }

    /// Starts one helper per argument list, all waiting at a gate (`HELPER_START_GATE`), opens the
    /// gate so they start their work together, and returns each one's stdout lines.
    package static func race(_ commands: [[String]], environment: [String: String], in directory: String) throws
        -> [[String]]
    {
        let gate = directory + "/gate-\(UUID().uuidString)"
        var gated = environment
        gated["HELPER_START_GATE"] = gate
        let running = try commands.enumerated().map { index, arguments in
            try Running(
                arguments, environment: gated, outputPath: directory + "/racer-\(index)-\(UUID().uuidString).out")
        }
        _ = FileManager.default.createFile(atPath: gate, contents: nil)
        return try running.map { process in
            let (lines, exitStatus) = try process.finish()
            #expect(exitStatus == 0)
            return lines
        }
    }
}
