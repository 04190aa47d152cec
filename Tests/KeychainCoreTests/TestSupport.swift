import Foundation
import KeychainTesting

@testable import KeychainCore

// The temporary keychain itself is `KeychainTesting.TemporaryKeychain`, shared by every suite.

func secret(_ text: String) -> SecureBytes { SecureBytes(copying: Array(text.utf8)) }

func genericItem(_ service: String, _ account: String, _ protection: ProtectionClass) -> [String: AttributeValue] {
    ["svce": .string(service), "acct": .string(account), "pdmn": .string(protection.rawValue), "agrp": .string("test")]
}

func query(_ service: String, _ account: String? = nil) -> ItemQuery {
    var filters: [String: AttributeValue] = ["svce": .string(service)]
    if let account { filters["acct"] = .string(account) }
    return ItemQuery(itemClass: .genericPassword, filters: filters, scope: .all)
}
