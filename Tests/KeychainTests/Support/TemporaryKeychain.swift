import Foundation
import KeychainTestSupport
import KeychainCore
import Testing

@testable import Keychain

/// A keychain file in its own temporary directory, laid out as the XDG folders of a user
/// (`data/keychains/login.keychain-db`, `state/keychains/device.key`), so that helper processes
/// started with ``environment`` open the same file as their login keychain. Removed when released,
/// after withdrawing its class keys from the kernel keyring so that they do not accumulate.
///
/// Several ``Keystore`` instances can be opened on the same file: each is a separate SQLite
/// connection, which is what two processes racing on the keychain amount to; ``HelperProcess``
/// runs real second processes.
final class TemporaryKeychain: Sendable {
    let directory: String
    let location: KeychainLocation
    let keystore: Keystore

    /// The test password: cheap Argon2id (`KDFParameters.testing`) keeps lock tests fast.
    static let passwordBytes = Array("correct horse battery staple".utf8)

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("keychain-api-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        location = .login(environment: ["XDG_DATA_HOME": directory + "/data", "XDG_STATE_HOME": directory + "/state"])
        keystore = try Keystore(location: location)
    }

    /// A keychain that has ``password`` from the start; it is left unlocked, as after creation.
    convenience init(password: Bool) throws {
        try self.init()
        if password { try file.changePassword(from: nil, to: Self.password, parameters: .testing) }
    }

    deinit {
        try? keystore.withdrawAllClassKeys()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The password of ``init(password:)``, in a fresh zeroising buffer.
    static var password: KeychainPassword { KeychainPassword(copying: passwordBytes) }

    /// The public lock API on the first connection.
    var file: KeychainFile { KeychainFile(keystore: keystore) }

    /// `XDG_DATA_HOME` and `XDG_STATE_HOME` for a helper process that should use this keychain.
    var environment: [String: String] { ["XDG_DATA_HOME": directory + "/data", "XDG_STATE_HOME": directory + "/state"] }

    /// A context on the first connection.
    func context(_ identity: ApplicationIdentity = .unsigned) -> KeychainContext {
        KeychainContext(keystore: keystore, identity: identity)
    }

    /// A context on a NEW connection to the same file (a stand-in for another process).
    func otherConnection(_ identity: ApplicationIdentity = .unsigned) throws -> KeychainContext {
        KeychainContext(keystore: try Keystore(location: location), identity: identity)
    }
}

/// An app with a team prefix and two shared groups, in Apple's order.
let teamIdentity = ApplicationIdentity(accessGroups: ["TEAM.shared", "TEAM.com.example.app", "TEAM.other"])
