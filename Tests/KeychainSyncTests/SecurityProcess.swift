import Foundation
import Testing

/// The built `security` tool run as a process of its own, as the systemd units and users run it.
enum SecurityProcess {
    /// What one run printed, its exit status, and the signal that ended it (nil when it exited).
    struct Outcome: CustomStringConvertible {
        var status: Int32
        var signal: Int32?
        var out: String
        var err: String

        var description: String {
            "\(signal.map { "killed by signal \($0)" } ?? "status \(status)")\n--- stdout\n\(out)--- stderr\n\(err)"
        }
    }

    /// The folder of the built products: the test bundle's folder (`.build/<triple>/debug`).
    static let productsDirectory: String = {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.isExecutableFile(atPath: url.path + "/security") { return url.path }
        }
        return FileManager.default.currentDirectoryPath + "/.build/debug"
    }()

    /// Runs `security arguments…` with `environment` and `stdin`, waiting for it to end.
    static func run(_ arguments: [String], environment: [String: String], stdin: String = "") throws -> Outcome {
        let path = productsDirectory + "/security"
        try #require(FileManager.default.isExecutableFile(atPath: path), "build security first: \(path)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        let input = Pipe()
        let output = Pipe()
        let error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        try process.run()
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let killed = process.terminationReason == .uncaughtSignal
        return Outcome(
            status: killed ? -1 : process.terminationStatus, signal: killed ? process.terminationStatus : nil,
            out: String(decoding: out, as: UTF8.self), err: String(decoding: err, as: UTF8.self))
    }
}
