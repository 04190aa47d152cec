import Foundation
import KeychainCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The result of one child process.
struct ChildResult {
    var status: Int32
    var stdout: [UInt8]
    var stderr: [UInt8]
    var nanoseconds: UInt64
}

/// Starts `arguments` with `environment` and waits for it; the time covers spawn to exit.
func runChild(_ arguments: [String], environment: [String]) -> ChildResult? {
    var outPipe: [Int32] = [0, 0]
    var errPipe: [Int32] = [0, 0]
    guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else { return nil }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
    posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
    posix_spawn_file_actions_addclose(&actions, outPipe[0])
    posix_spawn_file_actions_addclose(&actions, errPipe[0])
    let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
    defer {
        argv.forEach { free($0) }
        envp.forEach { free($0) }
    }
    var pid: pid_t = 0
    let start = nanoseconds()
    let rc = posix_spawn(&pid, arguments[0], &actions, nil, argv, envp)
    close(outPipe[1])
    close(errPipe[1])
    guard rc == 0 else {
        close(outPipe[0])
        close(errPipe[0])
        return nil
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let elapsed = nanoseconds() - start
    func drain(_ fd: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            bytes += buffer[..<n]
        }
        close(fd)
        return bytes
    }
    // Outputs are small (well under a pipe buffer), so reading after exit cannot deadlock.
    let out = drain(outPipe[0])
    let err = drain(errPipe[0])
    let exitStatus: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    return ChildResult(status: exitStatus, stdout: out, stderr: err, nanoseconds: elapsed)
}

extension SizeRun {
    // MARK: - 6. CLI

    /// Whole-process `security find-generic-password -w -s … -a …` against a Foundation-free program
    /// that only opens the same database. Skipped with a message while `security` is not built.
    mutating func cli(root: String, location: KeychainLocation) {
        let binaries = options.binaryDirectory
        let security = binaries + "/security"
        let floorOpen = binaries + "/keychain-floor-open"
        guard access(security, X_OK) == 0 else {
            record(
                "cli.find", "CLI find-generic-password -w", ours: nil, floor: nil, check: nil,
                note: "SKIPPED: \(security) is not built (swift build -c release --product security)")
            return
        }
        guard access(floorOpen, X_OK) == 0 else {
            record(
                "cli.find", "CLI find-generic-password -w", ours: nil, floor: nil, check: nil,
                note: "SKIPPED: \(floorOpen) is not built (swift build -c release --product keychain-floor-open)")
            return
        }
        let environment = [
            "HOME=\(root)", "XDG_DATA_HOME=\(root)/data", "XDG_STATE_HOME=\(root)/state",
            "PATH=/usr/bin:/bin", "LANG=C.UTF-8",
        ]
        let survivors = (0..<size).filter { !deleted.contains($0) }
        var ours: [UInt64] = []
        var base: [UInt64] = []
        for _ in 0..<options.cliRuns {
            let i = survivors[Int(rng.next() % UInt64(survivors.count))]
            let arguments = [security, "find-generic-password", "-w", "-s", data.service(i), "-a", data.account(i)]
            guard let result = runChild(arguments, environment: environment) else {
                fatal("cannot start \(security)")
            }
            let expected = data.secret(i, version: updated.contains(i) ? 1 : 0) + [10]
            guard result.status == 0, result.stdout == expected else {
                let stderr = String(decoding: result.stderr, as: UTF8.self)
                record(
                    "cli.find", "CLI find-generic-password -w", ours: nil, floor: nil, check: nil,
                    note: "FAILED: security did not print the secret (exit \(result.status), stdout "
                        + "\(String(decoding: result.stdout.prefix(40), as: UTF8.self).debugDescription), stderr: "
                        + "\(stderr.prefix(200).debugDescription))")
                return
            }
            ours.append(result.nanoseconds)
            guard let opened = runChild([floorOpen, location.databasePath], environment: environment),
                opened.status == 0
            else { fatal("\(floorOpen) failed") }
            base.append(opened.nanoseconds)
        }
        let o = Stat(ours)
        let f = Stat(base)
        record(
            "cli.find", "CLI find-generic-password -w", ours: o, floor: f,
            check: Check(target: "median ≤ 10 ms", value: o.medianMicroseconds / 1_000, limit: 10, unit: "ms"),
            note: "whole process, \(options.cliRuns) runs; floor: Foundation-free open of the database")
    }
}
