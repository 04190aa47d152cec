import Foundation
import KeychainTesting
import Testing

@testable import KeychainCore

/// pam_keychain.so loaded by pamtester under cwrap's pam_wrapper, no root needed: service files in a
/// temporary `PAM_WRAPPER_SERVICE_DIR` put `pam_set_items.so` (which copies `PAM_AUTHTOK` and
/// `PAM_OLDAUTHTOK` from the environment into the items) before the module, which runs the debug build's
/// keychain-pam-helper on the test's own keychain folder and kernel keyring.
final class PAMStack: Sendable {
    /// The built helper, beside the test bundle.
    static let binDirectory: String = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.deletingLastPathComponent()
        for _ in 0..<6 {
            if FileManager.default.isExecutableFile(atPath: directory.path + "/keychain-pam-helper") {
                return directory.path
            }
            directory.deleteLastPathComponent()
        }
        return FileManager.default.currentDirectoryPath + "/.build/debug"
    }()
    static var helper: String { binDirectory + "/keychain-pam-helper" }

    /// pam_wrapper, its modules and pamtester (scripts/setup installs them); `nil` when one is missing.
    static let missing: String? = {
        let needed = [
            "/usr/lib/x86_64-linux-gnu/libpam_wrapper.so", "/usr/lib/x86_64-linux-gnu/pam_wrapper/pam_set_items.so",
            "/usr/bin/pamtester", "/lib/x86_64-linux-gnu/security/pam_permit.so",
        ]
        return needed.first { !FileManager.default.fileExists(atPath: $0) }
    }()

    /// The module and an AddressSanitizer copy, compiled once per run by scripts/build-pam-module.
    static let modules: (plain: String, asan: String)? = {
        var root = URL(fileURLWithPath: binDirectory)
        while root.path != "/" && !FileManager.default.fileExists(atPath: root.path + "/pam/pam_keychain.c") {
            root.deleteLastPathComponent()
        }
        let script = root.path + "/scripts/build-pam-module"
        // In a folder of this run's own, removed at exit: the build folder may not be the user's to write.
        let directory = FileManager.default.temporaryDirectory.path + "/swkc-pam-modules-\(getpid())"
        guard (try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)) != nil
        else { return nil }
        atexit {
            let path = FileManager.default.temporaryDirectory.path + "/swkc-pam-modules-\(getpid())"
            try? FileManager.default.removeItem(atPath: path)
        }
        let plain = directory + "/pam_keychain.so", asan = directory + "/pam_keychain-asan.so"
        for (output, flags) in [
            (plain, [String]()), (asan, ["-fsanitize=address", "-fno-omit-frame-pointer", "-U_FORTIFY_SOURCE"]),
        ] {
            let status = run([script, output, helper] + flags, environment: ProcessInfo.processInfo.environment).status
            guard status == 0 else { return nil }
        }
        return (plain, asan)
    }()

    let keychain: TemporaryKeychain
    var directory: String { keychain.directory }
    var services: String { directory + "/services" }

    init() throws {
        keychain = try TemporaryKeychain()
        try FileManager.default.createDirectory(atPath: services, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory + "/pam-runtime", withIntermediateDirectories: true)
    }

    /// Writes service `name`: pam_set_items, then the module with `options`, then pam_permit, in every phase.
    func service(_ name: String = "login", options: String = "", asan: Bool = false) throws {
        let module = asan ? Self.modules!.asan : Self.modules!.plain
        let items = "/usr/lib/x86_64-linux-gnu/pam_wrapper/pam_set_items.so"
        let permit = "/lib/x86_64-linux-gnu/security/pam_permit.so"
        let text = """
            auth required \(items)
            auth optional \(module) \(options)
            auth required \(permit)
            account required \(permit)
            session optional \(module) \(options)
            session required \(permit)
            password required \(items)
            password optional \(module) \(options)
            password required \(permit)

            """
        try text.write(toFile: services + "/" + name, atomically: true, encoding: .utf8)
    }

    /// Runs `pamtester service user operations…` and returns its status, its output with the module's
    /// log lines (pam_wrapper prints pam_syslog as `SYSLOG(level): …`), and how long it took.
    func pamtester(
        _ operations: [String], service: String = "login", authtok: String? = nil, oldAuthtok: String? = nil,
        environment extra: [String: String] = [:], asan: Bool = false
    ) -> (status: Int32, output: String, seconds: Double) {
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] =
            (asan ? Self.asanRuntime + ":" : "") + "/usr/lib/x86_64-linux-gnu/libpam_wrapper.so"
        environment["PAM_WRAPPER"] = "1"
        environment["PAM_WRAPPER_SERVICE_DIR"] = services
        environment["PAM_WRAPPER_RUNTIME_DIR"] = directory + "/pam-runtime"
        environment["PAM_WRAPPER_DEBUGLEVEL"] = "3"
        environment["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=0:exitcode=99"
        environment["PAM_AUTHTOK"] = authtok
        environment["PAM_OLDAUTHTOK"] = oldAuthtok
        environment["XDG_DATA_HOME"] = keychain.dataHome
        environment["XDG_STATE_HOME"] = keychain.stateHome
        environment["XDG_CONFIG_HOME"] = directory + "/config"
        environment["KEYCHAIN_KDF"] = "testing"
        for (key, value) in extra { environment[key] = value }
        let start = Date()
        let result = Self.run(
            ["/usr/bin/pamtester", "-v", service, Self.userName] + operations, environment: environment)
        return (result.status, result.output, Date().timeIntervalSince(start))
    }

    /// A kernel keyring of one test's own for the helper (`KEYCHAIN_KEYRING`), removed when released: for
    /// runs whose entries must not reach the run's keyring, which every suite of the process shares (a kept
    /// login password changes what the provider's unlock prompt says). The test process then does not see
    /// the helper's unlocks.
    final class OwnKeyring {
        let name = ClassKeyStore.keyringName + "-pam-own-\(UUID().uuidString.prefix(8))"
        var environment: [String: String] { ["KEYCHAIN_KEYRING": name] }

        init() {}

        deinit {
            if let serial = KernelKeyring.findKeyring(named: name) {
                KernelKeyring.unlink(serial, from: KernelKeyring.userKeyring)
                KernelKeyring.invalidate(serial)
            }
        }
    }

    /// The login keychain, opened by the test process: another process than the helper that unlocked it.
    func open() throws -> Keystore { try Keystore(location: keychain.location, create: false) }

    var loginExists: Bool { FileManager.default.fileExists(atPath: keychain.location.databasePath) }
    var changeMarker: String { keychain.keychainDirectory + "/login-password-changed" }

    static let userName: String = String(cString: getpwuid(getuid())!.pointee.pw_name)

    static let asanRuntime: String = {
        let output = run(
            ["/usr/bin/cc", "-print-file-name=libasan.so"], environment: ProcessInfo.processInfo.environment)
        return output.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }()

    static func run(_ arguments: [String], environment: [String: String], directory: String? = nil)
        -> (status: Int32, output: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.arguments = Array(arguments.dropFirst())
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return (-1, "\(error)") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

func secret(_ text: String) -> SecureBytes { SecureBytes(copying: Array(text.utf8)) }

func readSecret(_ store: Keystore, _ service: String) throws -> String? {
    let records = try store.search(
        ItemQuery(itemClass: .genericPassword, filters: ["svce": .string(service)], scope: .all),
        projection: [.attributes, .secret])
    return records.first?.secret.map { $0.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
}
