import Foundation
import KeychainCore
import Testing

@testable import Keychain

/// A keychain file in its own temporary directory, removed when the value is released.
///
/// Several ``Keystore`` instances can be opened on the same file: each is a separate SQLite
/// connection, which is what two processes racing on the keychain amount to (the helper executable
/// that would run real second processes belongs to another engineer's suite).
final class TemporaryKeychain: Sendable {
    let directory: String
    let location: KeychainLocation
    let keystore: Keystore

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("keychain-api-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        location = KeychainLocation(
            databasePath: directory + "/keychains/test.keychain-db", deviceKeyPath: directory + "/state/device.key")
        keystore = try Keystore(location: location)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

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
