import Foundation
import KeychainCore
import KeychainTesting

/// A temporary home for keychain-backed tests: keychains, device key and tool preferences live in
/// its folder, never in the user's. The folder is the one temporary-keychain helper's
/// (``TemporaryKeychain``, KeychainTesting), which removes it when the last copy of this value goes;
/// ``remove()`` deletes it at once. This adds what Secret Service tests need: several keychains by
/// name, a preferences folder, cheap passwords for helper processes, scripted pinentries.
struct KeychainHome {
    let folder: TemporaryKeychain
    var root: String { folder.directory }

    init() throws {
        folder = try TemporaryKeychain()
        for child in ["data/keychains", "state/keychains", "config"] {
            try FileManager.default.createDirectory(
                atPath: folder.directory + "/" + child, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
    }

    /// The environment a provider (or tool) needs to use this home.
    static func environment(_ root: String) -> [String: String] {
        [
            "XDG_DATA_HOME": root + "/data", "XDG_STATE_HOME": root + "/state", "XDG_CONFIG_HOME": root + "/config",
            "KEYCHAIN_KDF": "testing",
        ]
    }

    var environment: [String: String] { Self.environment(root) }

    var directory: String { folder.keychainDirectory }

    func location(_ name: String) -> KeychainLocation {
        KeychainLocation(databasePath: directory + "/\(name).keychain-db", deviceKeyPath: folder.location.deviceKeyPath)
    }

    /// Creates keychain `name` with `password` (or none), as `security create-keychain` does, and leaves it locked.
    @discardableResult
    func createKeychain(_ name: String, password: String?) throws -> Keystore {
        let keystore = try Keystore.create(
            location: location(name), password: password.map { SecureBytes(copying: Array($0.utf8)) },
            parameters: .testing)
        if password != nil { try keystore.lock() }
        return keystore
    }

    /// A pinentry that answers every GETPIN with `password` (Assuan: `D <data>`, `OK`), or cancels
    /// (`ERR 83886179`) when `password` is `nil`.
    /// `delay` seconds pass before each answer (a user who takes their time); the script exits as soon
    /// as the provider that started it has gone, so that no process outlives a test. With `log`, each
    /// `SETERROR` and `GETPIN` it receives is appended to that file as a line of its command word.
    func scriptedPinentry(password: String?, delay: Int = 0, log: String? = nil) throws -> String {
        let path = root + "/pinentry-\(UUID().uuidString).sh"
        let wait = "for i in $(seq \(delay * 10)); do kill -0 $PPID 2>/dev/null || exit 0; sleep 0.1; done; "
        func record(_ word: String) -> String { log.map { "echo \(word) >> '\($0)'; " } ?? "" }
        let answer =
            (delay > 0 ? wait : "")
            + (password.map { "printf 'D %s\\nOK\\n' '\($0)'" } ?? "echo 'ERR 83886179 Operation cancelled'")
        let script = """
            #!/bin/sh
            echo 'OK Pleased to meet you'
            while read -r line; do
              case "$line" in
                GETPIN*) \(record("GETPIN"))\(answer) ;;
                SETERROR*) \(record("SETERROR"))echo OK ;;
                BYE*) echo OK; exit 0 ;;
                *) echo OK ;;
              esac
            done

            """
        try Self.installScript(script, at: path)
        return path
    }

    /// A pinentry that answers each GETPIN with the next of `answers` (one per line; cancels when none
    /// is left), logging GETPIN and SETERROR lines to `log`.
    func answeringPinentry(_ answers: [String], log: String) throws -> String {
        let list = root + "/answers-\(UUID().uuidString)"
        try (answers.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let path = root + "/pinentry-\(UUID().uuidString).sh"
        let script = """
            #!/bin/sh
            echo 'OK Pleased to meet you'
            while read -r line; do
              case "$line" in
                GETPIN*) echo GETPIN >> '\(log)'
                  answer=$(head -n 1 '\(list)'); sed -i 1d '\(list)'
                  if [ -n "$answer" ]; then printf 'D %s\\nOK\\n' "$answer"; else echo 'ERR 83886179 Operation cancelled'; fi ;;
                SETERROR*) echo SETERROR >> '\(log)'; echo OK ;;
                BYE*) echo OK; exit 0 ;;
                *) echo OK ;;
              esac
            done

            """
        try Self.installScript(script, at: path)
        return path
    }

    /// A pinentry that answers GETPIN with `password` only once the file `gate` exists (a user who
    /// answers when the test says so), creating `gate + ".asking"` when asked and `gate + ".answered"`
    /// just before it answers. It exits as soon as the
    /// provider that started it has gone, so that no process outlives a test.
    func gatedPinentry(password: String, gate: String, ignoresTermination: Bool = false) throws -> String {
        let path = root + "/pinentry-\(UUID().uuidString).sh"
        // Closed by SIGTERM (the provider closing the dialog of an ended prompt), it marks `<gate>.closed`;
        // with `ignoresTermination` it stays open, as a dialog that misses the signal would.
        let trap = ignoresTermination ? "trap '' TERM" : "trap \": > '\(gate).closed'; exit 0\" TERM"
        let script = """
            #!/bin/sh
            \(trap)
            echo 'OK Pleased to meet you'
            while read -r line; do
              case "$line" in
                GETPIN*)
                  : > '\(gate).asking'
                  while [ ! -e '\(gate)' ]; do kill -0 $PPID 2>/dev/null || exit 0; sleep 0.05; done
                  : > '\(gate).answered'
                  printf 'D %s\\nOK\\n' '\(password)' ;;
                BYE*) echo OK; exit 0 ;;
                *) echo OK ;;
              esac
            done

            """
        try Self.installScript(script, at: path)
        return path
    }

    /// Writes an executable script. `cp` writes the file, not this process: a provider or bus that
    /// another test forks meanwhile would otherwise inherit the write descriptor, and executing the
    /// script would fail with ETXTBSY for as long as that process lives.
    static func installScript(_ script: String, at path: String) throws {
        try script.write(toFile: path + ".src", atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path + ".src") }
        let copy = Process()
        copy.executableURL = URL(fileURLWithPath: "/bin/cp")
        copy.arguments = [path + ".src", path]
        try copy.run()
        copy.waitUntilExit()
        chmod(path, 0o700)
    }

    /// Every byte of keychain `name`'s files (the database and its `-wal`/`-shm`).
    func fileBytes(_ name: String) -> [UInt8] {
        ["", "-wal", "-shm"].flatMap { suffix in
            (FileManager.default.contents(atPath: location(name).databasePath + suffix)).map { [UInt8]($0) } ?? []
        }
    }

    /// The built `security` tool, beside the provider.
    static let security = URL(fileURLWithPath: PrivateBus.providerExecutable).deletingLastPathComponent()
        .appendingPathComponent("security").path

    /// Runs the built `security` tool in this home with `stdin` as its input.
    /// - Returns: its exit status and standard output (standard error is dropped).
    @discardableResult
    func security(_ arguments: [String], stdin: String = "") throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.security)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Runs one SQL statement on keychain `name`'s database with the `sqlite3` program: another writer
    /// (or the disk) changing the file behind the store's back.
    func sqlite(_ name: String, _ sql: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [location(name).databasePath, sql]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "sqlite3 failed: \(sql)"])
        }
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }
}
