import Foundation
@testable import KeychainCore

/// A keychain in its own temporary folder, removed (and its unlock withdrawn) when released.
final class TemporaryKeychain: @unchecked Sendable {  // immutable after init; the folder is removed in deinit
    let directory: String
    let location: KeychainLocation

    init() {
        directory = NSTemporaryDirectory() + "swkc-core-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        location = KeychainLocation(
            databasePath: directory + "/data/keychains/login.keychain-db",
            deviceKeyPath: directory + "/state/keychains/device.key")
    }

    func open() throws -> Keystore { try Keystore(location: location) }

    deinit {
        if let keystore = try? Keystore(location: location, create: false) { try? keystore.withdrawAllClassKeys() }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Every file under the folder, with its bytes.
    func files() -> [String: Data] {
        var result: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: directory)
        while let relative = enumerator?.nextObject() as? String {
            let path = directory + "/" + relative
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                result[relative] = FileManager.default.contents(atPath: path)
            }
        }
        return result
    }
}

func secret(_ text: String) -> SecureBytes { SecureBytes(copying: Array(text.utf8)) }

func genericItem(_ service: String, _ account: String, _ protection: ProtectionClass) -> [String: AttributeValue] {
    ["svce": .string(service), "acct": .string(account), "pdmn": .string(protection.rawValue), "agrp": .string("test")]
}

func query(_ service: String, _ account: String? = nil) -> ItemQuery {
    var filters: [String: AttributeValue] = ["svce": .string(service)]
    if let account { filters["acct"] = .string(account) }
    return ItemQuery(itemClass: .genericPassword, filters: filters)
}
