import CSQLite
import Foundation
import KeychainTesting

@testable import KeychainCore

// The temporary keychain itself is `KeychainTesting.TemporaryKeychain`, shared by every suite.

func secret(_ text: String) -> SecureBytes { SecureBytes(copying: Array(text.utf8)) }

/// A Secret Service secret of `text`, content type `text/plain`.
func plainSecret(_ text: String) -> SecretItemSecret {
    SecretItemSecret(value: SecureBytes(copying: Array(text.utf8)), contentType: "text/plain")
}

/// The text of a Secret Service secret.
func text(of secret: SecretItemSecret) -> String {
    secret.value.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
}

func genericItem(_ service: String, _ account: String, _ protection: ProtectionClass) -> [String: AttributeValue] {
    ["svce": .string(service), "acct": .string(account), "pdmn": .string(protection.rawValue), "agrp": .string("test")]
}

func query(_ service: String, _ account: String? = nil) -> ItemQuery {
    var filters: [String: AttributeValue] = ["svce": .string(service)]
    if let account { filters["acct"] = .string(account) }
    return ItemQuery(itemClass: .genericPassword, filters: filters, scope: .all)
}

/// The keychain file's `PRAGMA user_version`, read behind the engine's back; -1 when it cannot be read.
func userVersion(_ path: String) -> Int64 {
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { return -1 }
    defer { sqlite3_close(db) }
    var statement: OpaquePointer?
    sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &statement, nil)
    defer { sqlite3_finalize(statement) }
    return sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : -1
}
