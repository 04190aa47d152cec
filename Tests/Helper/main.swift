import Foundation
import KeychainServices

let service = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "smoke"
let add: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: "alice", kSecValueData as String: Data("hunter2".utf8)]
print("add", SecItemAdd(add as CFDictionary, nil))
print("add again", SecItemAdd(add as CFDictionary, nil))
var result: CFTypeRef?
let q: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecReturnData as String: true, kSecReturnAttributes as String: true]
print("copy", SecItemCopyMatching(q as CFDictionary, &result), result as? [String: Any] as Any)
print("update", SecItemUpdate([kSecClass: kSecClassGenericPassword, kSecAttrService: service] as CFDictionary, [kSecValueData: Data("new".utf8)] as CFDictionary))
let q2: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecReturnData as String: true, kSecMatchLimit as String: kSecMatchLimitAll]
print("copy all", SecItemCopyMatching(q2 as CFDictionary, &result), result as? [Data] as Any)
print("delete", SecItemDelete([kSecClass: kSecClassGenericPassword, kSecAttrService: service] as CFDictionary))
print("delete again", SecItemDelete([kSecClass: kSecClassGenericPassword, kSecAttrService: service] as CFDictionary))
