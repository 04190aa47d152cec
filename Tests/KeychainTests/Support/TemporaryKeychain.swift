import Foundation
import KeychainCore
import KeychainTestProcess
import KeychainTesting
import Testing

@testable import Keychain

/// What `Keychain` API tests need of the shared ``TemporaryKeychain`` (`KeychainTesting`): the
/// keychain created with the folder, its first connection, and the public lock API on it.
extension TemporaryKeychain {
    /// The test password: cheap Argon2id (`KDFParameters.testing`) keeps lock tests fast.
    static let passwordBytes = Array("correct horse battery staple".utf8)

    /// A keychain that has ``password`` from the start when `password`; it is left unlocked, as
    /// after creation.
    convenience init(password: Bool) throws {
        try self.init(opening: true)
        if password { try file.changePassword(from: nil, to: Self.password, parameters: .testing) }
    }

    /// The password of ``init(password:)``, in a fresh zeroising buffer.
    static var password: KeychainPassword { KeychainPassword(copying: passwordBytes) }

    /// The first connection (the keychain is made with ``init(opening:)``).
    var keystore: Keystore { firstConnection! }

    /// The public lock API on the first connection.
    var file: KeychainFile { KeychainFile(keystore: keystore) }

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
