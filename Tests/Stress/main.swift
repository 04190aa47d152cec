// keychain-stress: a writer or reader process for the crash and concurrency suites (tracker issue 8).
//
//   keychain-stress writer <db> <device-key> <seed> <ops>      random add/update/delete/password change,
//                                                              printing "begin …" before and "ok …" after each
//   keychain-stress hammer <db> <device-key> <id> <ops>        add-or-update / delete on shared keys, acking each
//   keychain-stress reader <db> <device-key> <milliseconds>    reads shared keys, checking each value is whole
//   keychain-stress passwd <db> <device-key> <old> <new>       changes the password (crash points via KEYCHAIN_CRASH_POINT)
//   keychain-stress unlock <db> <device-key> <password>        unlocks for the user's processes
//   keychain-stress read <db> <device-key> <key>               prints "value <v>" or "status <OSStatus>"
//
// Values are "<writer>:<sequence>:<checksum>" so a reader can tell a torn or foreign value.
import Foundation
import KeychainCore
import KeychainTesting

/// Writes one line at once, unbuffered, so a killed process has told exactly what it finished.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
let arguments = CommandLine.arguments
guard arguments.count >= 5 else {
    FileHandle.standardError.write(Data("usage: keychain-stress writer|hammer|reader <db> <device-key> …\n".utf8))
    exit(2)
}
let location = KeychainLocation(databasePath: arguments[2], deviceKeyPath: arguments[3])

func value(_ writer: String, _ sequence: Int) -> String {
    let body = "\(writer):\(sequence)"
    return body + ":" + String(body.utf8.reduce(UInt32(2166136261)) { ($0 ^ UInt32($1)) &* 16777619 }, radix: 16)
}

func isWhole(_ text: String) -> Bool {
    let parts = text.split(separator: ":")
    guard parts.count == 3 else { return false }
    return value(String(parts[0]), Int(parts[1]) ?? -1) == text
}

func attributes(_ key: String) -> [String: AttributeValue] {
    ["svce": .string("stress"), "acct": .string(key), "pdmn": .string("ak"), "agrp": .string("stress")]
}

/// Every item operation goes through the gateway, as the stress processes' group.
func gateway(_ keystore: Keystore) -> ItemGateway {
    ItemGateway(keystore: keystore, identity: ApplicationIdentity(accessGroups: ["stress"]))
}

func itemQuery(_ key: String, _ keystore: Keystore) -> ItemQuery {
    ItemQuery(
        itemClass: .genericPassword, filters: ["svce": .string("stress"), "acct": .string(key)],
        scope: gateway(keystore).callerScope)
}

/// The item's secret, released as the library releases it (the stress items have no access control).
func secrets(_ keystore: Keystore, _ key: String) throws(KeychainFailure) -> [SecureBytes] {
    var authorizer = AccessAuthorizer(keystore: keystore, context: nil, ui: .fail, reason: nil)
    return try gateway(keystore).search(itemQuery(key, keystore), projection: [], release: &authorizer)
        .compactMap(\.secret)
}

/// Updates the item in place or adds it, in one write transaction.
func upsert(_ keystore: Keystore, _ key: String, _ text: String) throws(KeychainFailure) {
    let secret = SecureBytes(copying: Array(text.utf8))
    _ = try gateway(keystore).upsert(NewItem(.genericPassword, attributes: attributes(key), secret: secret))
}

do {
    switch arguments[1] {
    case "writer":
        var generator = SplitMix64(seed: UInt64(arguments[4]) ?? 1)
        let keystore = try Keystore(location: location)
        let passwords = ["p0", "p1"]
        var passwordIndex = try keystore.hasPassword() ? -1 : 0
        if passwordIndex == -1 {
            // The harness tells the current password through the environment.
            passwordIndex = Int(ProcessInfo.processInfo.environment["STRESS_PASSWORD_INDEX"] ?? "0") ?? 0
            try keystore.unlock(password: SecureBytes(copying: Array(passwords[passwordIndex].utf8)))
        }
        for sequence in 0..<(Int(arguments[5]) ?? 100) {
            let key = "k\(Int.random(in: 0..<20, using: &generator))"
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<6:
                let text = value("w", sequence)
                say("begin set \(key) \(text)")
                try upsert(keystore, key, text)
                say("ok set \(key) \(text)")
            case 6..<9:
                say("begin delete \(key) -")
                _ = try gateway(keystore).delete(itemQuery(key, keystore))
                say("ok delete \(key) -")
            default:
                let next = 1 - passwordIndex
                say("begin password \(passwordIndex) \(next)")
                let hadPassword = try keystore.hasPassword()
                try keystore.setPassword(
                    SecureBytes(copying: Array(passwords[next].utf8)),
                    current: hadPassword ? SecureBytes(copying: Array(passwords[passwordIndex].utf8)) : nil,
                    parameters: .testing)
                passwordIndex = next
                say("ok password \(next) -")
            }
        }
    case "hammer":
        let id = arguments[4]
        let keystore = try Keystore(location: location)
        for sequence in 0..<(Int(arguments[5]) ?? 100) {
            let key = "k\(sequence % 10)"
            if sequence % 10 == 0 {
                // A key no other writer touches: it must survive whatever the others do.
                let unique = "u\(id)-\(sequence)"
                _ = try gateway(keystore).add(
                    NewItem(
                        .genericPassword, attributes: attributes(unique),
                        secret: SecureBytes(copying: Array(value(id, sequence).utf8))))
                say("ok add \(unique) \(id)")
            }
            if sequence % 5 == 4 {
                _ = try gateway(keystore).delete(itemQuery(key, keystore))
                say("ok delete \(key) \(id)")
            } else {
                let text = value(id, sequence)
                try upsert(keystore, key, text)
                say("ok set \(key) \(text)")
            }
        }
    case "reader":
        let keystore = try Keystore(location: location)
        let deadline = Date().addingTimeInterval((Double(arguments[4]) ?? 1000) / 1000)
        var reads = 0
        while Date() < deadline {
            for index in 0..<10 {
                for secret in try secrets(keystore, "k\(index)") {
                    let text = secret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
                    guard isWhole(text) else {
                        say("torn k\(index)")
                        exit(3)
                    }
                    reads += 1
                }
            }
        }
        say("reads \(reads)")
    case "passwd":
        let keystore = try Keystore(location: location)
        try keystore.setPassword(
            SecureBytes(copying: Array(arguments[5].utf8)), current: SecureBytes(copying: Array(arguments[4].utf8)),
            parameters: .testing)
        say("ok")
    case "unlock":
        let keystore = try Keystore(location: location)
        let scope = try keystore.unlock(password: SecureBytes(copying: Array(arguments[4].utf8)))
        say("ok \(scope)")
    case "read":
        let keystore = try Keystore(location: location)
        do {
            if let secret = try secrets(keystore, arguments[4]).first {
                say("value " + secret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) })
            } else {
                say("status \(KeychainStatus.itemNotFound.rawValue)")
            }
        } catch {
            say("status \(error.status.rawValue)")
        }
    default:
        exit(2)
    }
} catch {
    say("failed \(error.status.rawValue)")
    exit(1)
}
