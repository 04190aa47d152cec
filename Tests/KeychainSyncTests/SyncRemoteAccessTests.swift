import Foundation
import KeychainCore
import KeychainTesting
import Testing

/// Joining by approval as users run it (`security sync join` waits, bounded by `--timeout`), and a git remote
/// over http or https that only the user's credential helper can open (tracker issue 26, "Tests").
@Suite("security sync join waits for approval; a git remote over http(s) through the user's credential helper")
struct SyncRemoteAccessTests {
    static let passphrase = SyncKeychainTests.passphrase

    @Test("join waits until a trusted device approves its code, then completes and syncs")
    func joinWaits() throws {
        let home = try TemporaryKeychain()
        let url = try SyncProcessCrashTests.remote(.folder, in: home)
        let trusted = try SyncDevice()
        let joiner = try SyncDevice()
        try #require(trusted.security("sync", "init", url, stdin: Self.passphrase).status == 0)
        try trusted.add(service: "svc-before-join", account: "acct", secret: "there before the join")
        try #require(trusted.security("sync", "now").status == 0)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: SecurityProcess.productsDirectory + "/security")
        process.arguments = ["sync", "join", "--timeout", "60", url]
        process.environment = joiner.environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        // The code line comes first, and the process keeps waiting after it.
        var printed = ""
        while !printed.contains("approve it on a trusted device") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            printed += String(decoding: chunk, as: UTF8.self)
        }
        let code = try #require(printed.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
        #expect(printed.hasPrefix("join code: "))
        usleep(1_500_000)
        #expect(process.isRunning, "join returned before approval: \(printed)")
        #expect(try joiner.secret(service: "svc-before-join") == nil)

        let approved = trusted.security("sync", "approve", code)
        #expect(approved.status == 0, "\(approved)")
        let rest = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(printed)\(rest)")
        #expect(rest.contains("joined \(url): this device is "), "\(rest)")
        #expect(try joiner.secret(service: "svc-before-join") == "there before the join")
        #expect(joiner.security("sync", "devices").out.split(separator: "\n").count == 2)
    }

    @Test("join gives up after --timeout with exit 1; sync now finishes the join once approved")
    func joinTimesOut() throws {
        let home = try TemporaryKeychain()
        let url = try SyncProcessCrashTests.remote(.folder, in: home)
        let trusted = try SyncDevice()
        let joiner = try SyncDevice()
        try #require(trusted.security("sync", "init", url, stdin: Self.passphrase).status == 0)
        let waited = try SecurityProcess.run(["sync", "join", "--timeout", "1", url], environment: joiner.environment)
        #expect(waited.status == 1)
        #expect(
            waited.err == "security: sync join: not approved within 1 s; security sync now finishes the join later\n")
        let code = try #require(waited.out.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
        let early = joiner.security("sync", "now")
        #expect(early.status == 1)
        #expect(early.err.contains("waiting for approval"))
        #expect(trusted.security("sync", "approve", code).status == 0)
        let finished = joiner.security("sync", "now")
        #expect(finished.status == 0, "\(finished)")
        #expect(joiner.security("sync", "status").out.contains("trusted devices: 2"))
    }

    @Test(
        "An http(s) remote asking for credentials is reached through the user's git credential helper",
        arguments: GitHTTPServer.Scheme.allCases)
    func httpCredentialHelper(scheme: GitHTTPServer.Scheme) throws {
        let home = try TemporaryKeychain()
        try SyncGroup.git(["init", "-q", "--bare", "-b", "main", home.directory + "/remote.git"])
        let server = try GitHTTPServer(
            root: home.directory, user: "sync-user", password: "http-password-7f3a", scheme: scheme)
        defer { server.stop() }
        let url = server.base + "/remote.git"
        #expect(url.hasPrefix("\(scheme.rawValue)://127.0.0.1:"))
        // Over https git trusts the server's self-signed certificate as a user would set it up: GIT_SSL_CAINFO
        // in the environment, which sync passes on to the git it runs.
        let trust = server.certificate.map { ["GIT_SSL_CAINFO": $0] } ?? [:]
        let devices = try (0..<2).map { _ in
            let device = try SyncDevice()
            device.environment.merge(trust) { $1 }
            return device
        }
        // Each device's user has a credential helper in their global git config, as `git config --global
        // credential.helper …` writes it; it logs each action git asks of it.
        for device in devices {
            let helper = device.keychain.directory + "/credential-helper"
            try """
            #!/bin/sh
            echo "$1" >> "\(helper).log"
            cat > /dev/null
            if [ "$1" = get ]; then printf 'username=sync-user\\npassword=http-password-7f3a\\n'; fi
            """.write(toFile: helper, atomically: true, encoding: .utf8)
            chmod(helper, 0o700)
            try "[credential]\n\thelper = \(helper)\n".write(
                toFile: device.keychain.directory + "/.gitconfig", atomically: true, encoding: .utf8)
        }
        let stranger = try SyncDevice()
        stranger.environment.merge(trust) { $1 }
        let refused = stranger.security("sync", "join", "--recovery", url, stdin: Self.passphrase)
        #expect(refused.status == 3, "\(refused)")
        #expect(refused.err.hasPrefix("security: sync join: cannot fetch from \(url): "), "\(refused)")
        #expect(stranger.security("sync", "status").out.hasPrefix("not syncing"))

        let started = devices[0].security("sync", "init", url, stdin: Self.passphrase)
        try #require(started.status == 0, "\(started)")
        try devices[0].add(service: "svc-over-http", account: "acct", secret: "carried over http")
        #expect(devices[0].security("sync", "now").status == 0)
        let joined = devices[1].security("sync", "join", "--recovery", url, stdin: Self.passphrase)
        #expect(joined.status == 0, "\(joined)")
        #expect(try devices[1].secret(service: "svc-over-http") == "carried over http")

        let requests = server.requests
        #expect(requests.contains { $0.hasPrefix("401 ") })
        #expect(requests.contains("200 POST /remote.git/git-receive-pack"), "\(requests)")
        for device in devices {
            let actions = try String(
                contentsOfFile: device.keychain.directory + "/credential-helper.log", encoding: .utf8)
            #expect(actions.split(separator: "\n").contains("get"), "\(actions)")
        }
        // The password travels only between git and the helper: never in the clone's config.
        for device in devices {
            let id = try device.store.syncDeviceID()
            let config = device.keychain.directory + "/state/keychains/sync/\(id)/.git/config"
            let text = try String(contentsOfFile: config, encoding: .utf8)
            #expect(!text.contains("http-password-7f3a"))
        }
        // Nor in any file sync, git or the server wrote: only the helper itself holds it.
        let password = Data("http-password-7f3a".utf8)
        for folder in [home.directory] + (devices + [stranger]).map(\.keychain.directory) {
            let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
            #expect(files.count > 2, "\(folder)")
            for file in files where !file.hasPrefix("credential-helper") {
                let contents = FileManager.default.contents(atPath: folder + "/" + file) ?? Data()
                #expect(contents.range(of: password) == nil, "the password is in \(folder)/\(file)")
            }
        }
    }
}
