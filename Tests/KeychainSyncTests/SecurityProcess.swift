import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

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
    /// - Parameter errorOnTerminal: standard error is a pseudo-terminal of its own (standard input and output stay
    ///   pipes), as when a user runs the tool with its output redirected; `err` is what the terminal showed, with
    ///   `\r\n` as `\n`.
    /// - Parameter directory: the current folder it runs in; this process's when `nil`.
    static func run(
        _ arguments: [String], environment: [String: String], stdin: String = "", errorOnTerminal: Bool = false,
        directory: String? = nil
    ) throws -> Outcome {
        let path = productsDirectory + "/security"
        try #require(FileManager.default.isExecutableFile(atPath: path), "build security first: \(path)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.arguments = arguments
        process.environment = environment
        let input = Pipe()
        let output = Pipe()
        let error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        var terminal: (master: Int32, slave: FileHandle)?
        if errorOnTerminal {
            terminal = try openTerminal()
            process.standardError = terminal?.slave
        } else {
            process.standardError = error
        }
        defer { if let terminal { Glibc.close(terminal.master) } }
        try process.run()
        // Only the program holds the terminal now; what it wrote stays readable on the master after it ends.
        try terminal?.slave.close()
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = terminal.map { readAll($0.master) } ?? error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let killed = process.terminationReason == .uncaughtSignal
        return Outcome(
            status: killed ? -1 : process.terminationStatus, signal: killed ? process.terminationStatus : nil,
            out: String(decoding: out, as: UTF8.self),
            err: String(decoding: err, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n"))
    }

    /// A new pseudo-terminal: its master descriptor and its slave, opened (as in KeychainPAMTests' PseudoTerminal:
    /// `/dev/ptmx`, unlocked with TIOCSPTLCK, numbered with TIOCGPTN, since posix_openpt is not visible to Swift).
    private static func openTerminal() throws -> (master: Int32, slave: FileHandle) {
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        try #require(master >= 0, "open /dev/ptmx: errno \(errno)")
        var unlock: CInt = 0
        var number: CUnsignedInt = 0
        guard ioctl(master, UInt(0x4004_5431), &unlock) == 0, ioctl(master, UInt(0x8004_5430), &number) == 0,
            let slave = FileHandle(forUpdatingAtPath: "/dev/pts/\(number)")
        else {
            Glibc.close(master)
            throw TerminalFailure()
        }
        return (master, slave)
    }

    struct TerminalFailure: Error {}

    /// Reads the master until the program's end closes the terminal (EIO) or 60 s pass.
    private static func readAll(_ master: Int32) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        while poll(&poller, 1, 60_000) > 0 {
            let count = read(master, &buffer, buffer.count)
            guard count > 0 else { break }
            data.append(contentsOf: buffer[..<count])
        }
        return data
    }
}
