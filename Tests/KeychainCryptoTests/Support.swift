import Foundation
import Testing

@testable import KeychainCrypto

/// Hex helpers for vectors.
extension Array where Element == UInt8 {
    init(hex: String) {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        self = bytes
    }

    var hex: String { map { String(format: "%02x", $0) }.joined() }
}

/// Keys shared by the suites (RSA generation takes a while).
enum Fixtures {
    static let rsa2048 = try! CryptoKey.generate(.rsa(bits: 2048))
    static let p256 = try! CryptoKey.generate(.ec(.p256))
    static let p384 = try! CryptoKey.generate(.ec(.p384))
    static let p521 = try! CryptoKey.generate(.ec(.p521))

    static func ec(_ curve: CryptoKey.Curve) -> CryptoKey {
        switch curve {
        case .p256: p256
        case .p384: p384
        case .p521: p521
        }
    }
}

/// The `openssl` command-line tool in a scratch folder removed by `cleanUp()` (call it in a `defer`).
struct OpenSSLTool {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("swkc-openssl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func cleanUp() { try? FileManager.default.removeItem(at: folder) }

    /// The path of `name` in the scratch folder.
    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    func write(_ name: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: folder.appendingPathComponent(name))
    }
    func write(_ name: String, _ text: String) throws { try write(name, Array(text.utf8)) }
    func read(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: folder.appendingPathComponent(name))) }

    /// Runs `openssl arguments…` in the scratch folder.
    @discardableResult
    func run(_ arguments: [String], input: [UInt8] = []) throws -> (status: Int32, output: [UInt8], error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.currentDirectoryURL = folder
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let error = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, Array(output), String(decoding: error, as: UTF8.self))
    }

    /// Runs openssl and expects success.
    @discardableResult
    func ok(_ arguments: [String], input: [UInt8] = []) throws -> [UInt8] {
        let result = try run(arguments, input: input)
        #expect(result.status == 0, "openssl \(arguments.joined(separator: " ")): \(result.error)")
        return result.output
    }

    static let available: Bool = {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")
            || FileManager.default.isExecutableFile(atPath: "/usr/local/bin/openssl")
    }()
}

/// Wycheproof vectors (github.com/C2SP/wycheproof), never committed: `scripts/wycheproof`
/// downloads them into `.build/wycheproof/testvectors_v1`, or `WYCHEPROOF_DIR` names a copy.
enum Wycheproof {
    static let folder: URL = {
        if let path = ProcessInfo.processInfo.environment["WYCHEPROOF_DIR"] { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/wycheproof/testvectors_v1")
    }()

    /// Whether scripts/wycheproof has put the vectors in ``folder`` (any of them).
    static var isDownloaded: Bool {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).contains { $0.hasSuffix(".json") }
    }

    static func available(_ name: String) -> Bool {
        FileManager.default.fileExists(atPath: folder.appendingPathComponent("\(name).json").path)
    }

    /// The test groups of `name`.json.
    static func groups(_ name: String) throws -> [[String: Any]] {
        let data = try Data(contentsOf: folder.appendingPathComponent("\(name).json"))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(root["testGroups"] as? [[String: Any]])
    }

    /// A trait that skips the test, with the reason, when the file is absent.
    static func requires(_ name: String) -> ConditionTrait {
        .enabled(if: available(name), "Wycheproof \(name).json is absent: run scripts/wycheproof or set WYCHEPROOF_DIR")
    }
}
