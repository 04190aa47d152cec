// keychain-test-helper: a second (third, …) process for the test suites.
//
//     keychain-test-helper <command> [arguments…]
//
// It uses the process-wide default keychain and identity, exactly as an app would:
// `$XDG_DATA_HOME/keychains/login.keychain-db`, the device key under `$XDG_STATE_HOME`, and the
// entitlements plist at `$KEYCHAIN_ENTITLEMENTS` (none = an unsigned tool).
//
// Output: one line per operation on stdout, starting with the OSStatus, then the value when
// there is one. Secrets and values are printed as UTF-8 text. Exit status 0 unless the command
// line itself is wrong (64).
//
// Commands (generic passwords; `group` is optional and sets kSecAttrAccessGroup):
//   add <service> <account> <secret> [group]      SecItemAdd
//   get <service> <account> [group]               SecItemCopyMatching, kSecReturnData → "<status> <secret>"
//   update <service> <account> <secret> [group]   SecItemUpdate of kSecValueData
//   delete <service> <account> [group]            SecItemDelete
//   ref <service> <account>                       kSecReturnPersistentRef → "<status> <hex>"
//   get-ref <hex>                                 kSecValuePersistentRef + kSecReturnData → "<status> <secret>"
//   attrs <service> <account>                     kSecReturnAttributes → "<status> <agrp>"
//   seed-save <service> <key> <value>             the seeds' CHKeychain save of [key: value]
//   seed-load <service> <key> [group]             the seeds' CHKeychain load → "<status> <value>"
//   seed002-uuid <service>                        seed 002's uuid: load it, or create and save it
//   stress <worker> <ops> <shared-keys>           a deterministic mix of add/update/delete/get;
//                                                 prints "<op> <service> <account> <value> <status>"
//
// Commands of the high-level `Keychain` API (status 0, or the KeychainError's OSStatus):
//   kc-set <service> <key> <prefix> <count>       Keychain.set of "<prefix>-0" … "<prefix>-<count-1>";
//                                                 one status per line
//   kc-get <service> <key>                        Keychain.string(forKey:) → "<status> <value>" ("0": none)
//   device-id [service]                           DeviceIdentifier.value() → "<status> <uuid>"
//   pm-register <service> <identifier> <key>      PasswordManager.register(key:for:)
//   pm-key <service> <identifier>                 PasswordManager.key(for:) → "<status> <key>" ("0": none)
//   pm-delete <service> <identifier>              PasswordManager.deleteKey(for:)
//   lock                                          KeychainFile.processDefault().lock()
//   lock-state                                    → "<status> <no password|locked|unlocked>"
//   kc-configured <keychain> <group> <service> <key> <value>
//                                                 before any other keychain call: opens (or creates without
//                                                 password) <keychain> and sets it and entitlements holding
//                                                 only <group> as the process's; then Keychain.set →
//                                                 "<status> <access group of the stored item>"
//
// Secure Enclave (TPM) keys, on the TPM of KEYCHAIN_TCTI:
//   se-create <tag>                               SecKeyCreateRandomKey, kSecAttrIsPermanent →
//                                                 "<status> <hex public key>"
//   se-sign <tag> <hex message>                   the key of kSecAttrApplicationTag <tag> signs
//                                                 (ecdsaSignatureMessageX962SHA256) → "<status> <hex signature>"
//   se-bench <n>                                  a new key (not permanent): creation once, then n signatures
//                                                 and n ECDH agreements → "<operation>: <µs> µs per operation"
//
// With HELPER_START_GATE set, the command waits until that file exists, so that several helpers
// started one by one begin their work together.

import Foundation
import Keychain
import KeychainCore
import KeychainServices
import KeychainTesting

// MARK: - SecItem calls

func baseQuery(_ service: String, _ account: String, _ group: String?) -> [String: Any] {
    var query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: service,
        kSecAttrAccount as String: account,
    ]
    if let group { query[kSecAttrAccessGroup as String] = group }
    return query
}

func add(_ service: String, _ account: String, _ secret: String, _ group: String?) -> OSStatus {
    var query = baseQuery(service, account, group)
    query[kSecValueData as String] = Data(secret.utf8)
    return SecItemAdd(query as CFDictionary, nil)
}

func get(_ service: String, _ account: String, _ group: String?) -> (OSStatus, String?) {
    var query = baseQuery(service, account, group)
    query[kSecReturnData as String] = kCFBooleanTrue!
    var result: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    return (status, (result as? Data).map { String(decoding: $0, as: UTF8.self) })
}

func update(_ service: String, _ account: String, _ secret: String, _ group: String?) -> OSStatus {
    let changes: [String: Any] = [kSecValueData as String: Data(secret.utf8)]
    return SecItemUpdate(baseQuery(service, account, group) as CFDictionary, changes as CFDictionary)
}

func delete(_ service: String, _ account: String, _ group: String?) -> OSStatus {
    SecItemDelete(baseQuery(service, account, group) as CFDictionary)
}

func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

func unhex(_ text: String) -> Data? {
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex) ?? text.endIndex
        guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
        bytes.append(byte)
        index = next
    }
    return Data(bytes)
}

// MARK: - The seeds' CHKeychain (seeds 002 and 003), as another app would carry it

enum CHKeychain {
    static func keychainQuery(_ service: String) -> [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: service,
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
        ]
    }

    static func save(_ service: String, _ object: Any) {
        var query = keychainQuery(service)
        _ = SecItemDelete(query as CFDictionary)
        query[kSecValueData as String] = try? NSKeyedArchiver.archivedData(
            withRootObject: object, requiringSecureCoding: false)
        _ = SecItemAdd(query as CFDictionary, nil)
    }

    static func load(_ service: String, group: String? = nil) -> (OSStatus, Any?) {
        var query = keychainQuery(service)
        if let group { query[kSecAttrAccessGroup as String] = group }
        query[kSecReturnData as String] = kCFBooleanTrue!
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var keyData: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &keyData)
        guard status == noErr, let data = keyData as? Data else { return (status, nil) }
        let object = try? NSKeyedUnarchiver.unarchivedObject(
            ofClasses: [NSDictionary.self, NSString.self], from: data)
        return (status, object)
    }
}

// MARK: - Stress

func stress(worker: Int, ops: Int, sharedKeys: Int) {
    var random = SplitMix64(seed: UInt64(worker) &* 1_000_003)
    var lines: [String] = []
    lines.reserveCapacity(ops)
    for index in 0..<ops {
        let shared = random.next() % 2 == 0
        let service = shared ? "stress-shared" : "stress-w\(worker)"
        let account = "k\(random.next() % UInt64(shared ? sharedKeys : 8))"
        let value = "w\(worker)-op\(index)"
        let line: String
        switch random.next() % 4 {
        case 0: line = "add \(service) \(account) \(value) \(add(service, account, value, nil))"
        case 1: line = "update \(service) \(account) \(value) \(update(service, account, value, nil))"
        case 2: line = "delete \(service) \(account) - \(delete(service, account, nil))"
        default:
            let (status, secret) = get(service, account, nil)
            line = "get \(service) \(account) \(secret ?? "-") \(status)"
        }
        lines.append(line)
    }
    print(lines.joined(separator: "\n"))
}

// MARK: - The high-level API

/// `"0"` and the body's text, or the status of the `KeychainError` it threw.
func status(_ body: () throws(KeychainError) -> String?) -> String {
    do {
        return try body().map { "0 \($0)" } ?? "0"
    } catch {
        return "\(error.status)"
    }
}

func keychainSet(_ service: String, _ key: String, prefix: String, count: Int) {
    let keychain = Keychain(service: service)
    var lines: [String] = []
    for index in 0..<count {
        lines.append(
            status { () throws(KeychainError) in
                try keychain.set("\(prefix)-\(index)", forKey: key)
                return nil
            })
    }
    print(lines.joined(separator: "\n"))
}

func configured(keychain name: String, group: String, service: String, key: String, value: String) -> String {
    status { () throws(KeychainError) -> String? in
        let file: KeychainFile
        do throws(KeychainError) {
            file = try KeychainFile(path: name)
        } catch  where error.code == .noSuchKeychain {
            file = try KeychainFile.create(at: name, password: nil)
        } catch {
            throw error
        }
        Keychain.setProcessKeychain(file)
        Keychain.setProcessEntitlements(Entitlements(keychainAccessGroups: [group]))
        let keychain = Keychain(service: service)
        try keychain.set(value, forKey: key)
        return try keychain.allItems().first { $0.key == key }?.accessGroup
    }
}

/// The monotonic clock in nanoseconds.
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// Waits (at most 30 s) until the file named by `HELPER_START_GATE` exists.
func waitAtGate() {
    guard let gate = ProcessInfo.processInfo.environment["HELPER_START_GATE"] else { return }
    for _ in 0..<30_000 where !FileManager.default.fileExists(atPath: gate) { usleep(1_000) }
}

// MARK: - Dispatch

func usage() -> Never {
    FileHandle.standardError.write(Data("usage: keychain-test-helper <command> [arguments…]\n".utf8))
    exit(64)
}
let commandLine = Array(CommandLine.arguments.dropFirst())
guard let command = commandLine.first else { usage() }
let arguments = Array(commandLine.dropFirst())
func argument(_ index: Int) -> String {
    guard index < arguments.count else { usage() }
    return arguments[index]
}
func optional(_ index: Int) -> String? { index < arguments.count ? arguments[index] : nil }
waitAtGate()

switch command {
case "add":
    print(add(argument(0), argument(1), argument(2), optional(3)))
case "get":
    let (status, secret) = get(argument(0), argument(1), optional(2))
    print(secret.map { "\(status) \($0)" } ?? "\(status)")
case "update":
    print(update(argument(0), argument(1), argument(2), optional(3)))
case "delete":
    print(delete(argument(0), argument(1), optional(2)))
case "ref":
    var query = baseQuery(argument(0), argument(1), nil)
    query[kSecReturnPersistentRef as String] = kCFBooleanTrue!
    var result: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    print((result as? Data).map { "\(status) \(hex($0))" } ?? "\(status)")
case "get-ref":
    guard let ref = unhex(argument(0)) else { usage() }
    let query: [String: Any] = [kSecValuePersistentRef as String: ref, kSecReturnData as String: kCFBooleanTrue!]
    var result: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    print((result as? Data).map { "\(status) \(String(decoding: $0, as: UTF8.self))" } ?? "\(status)")
case "attrs":
    var query = baseQuery(argument(0), argument(1), nil)
    query[kSecReturnAttributes as String] = kCFBooleanTrue!
    var result: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    let group = (result as? [String: Any])?[kSecAttrAccessGroup as String] as? String
    print(group.map { "\(status) \($0)" } ?? "\(status)")
case "seed-save":
    CHKeychain.save(argument(0), [argument(1): argument(2)] as NSDictionary)
    print(CHKeychain.load(argument(0)).0)
case "seed-load":
    let (status, object) = CHKeychain.load(argument(0), group: optional(2))
    let value = (object as? NSDictionary)?[argument(1)] as? String
    print(value.map { "\(status) \($0)" } ?? "\(status)")
case "seed002-uuid":
    let service = argument(0)
    if let existing = CHKeychain.load(service).1 as? String {
        print(existing)
    } else {
        let fresh = UUID().uuidString
        CHKeychain.save(service, fresh as NSString)
        print(fresh)
    }
case "stress":
    guard let worker = Int(argument(0)), let ops = Int(argument(1)), let shared = Int(argument(2)), shared > 0 else {
        usage()
    }
    stress(worker: worker, ops: ops, sharedKeys: shared)
case "kc-set":
    guard let count = Int(argument(3)), count >= 0 else { usage() }
    keychainSet(argument(0), argument(1), prefix: argument(2), count: count)
case "kc-get":
    print(status { () throws(KeychainError) in try Keychain(service: argument(0)).string(forKey: argument(1)) })
case "device-id":
    let service = optional(0) ?? DeviceIdentifier.defaultService
    print(status { () throws(KeychainError) in try DeviceIdentifier(service: service).value().uuidString })
case "pm-register":
    print(
        status { () throws(KeychainError) in
            try PasswordManager(service: argument(0)).register(key: argument(2), for: argument(1))
            return nil
        })
case "pm-key":
    print(status { () throws(KeychainError) in try PasswordManager(service: argument(0)).key(for: argument(1)) })
case "pm-delete":
    print(
        status { () throws(KeychainError) in
            try PasswordManager(service: argument(0)).deleteKey(for: argument(1))
            return nil
        })
case "ss-create":
    // A Secret Service item in the login keychain, written by this process: prints 0 and the journal's newest
    // serial after the write (issue 23's change serial across processes).
    do throws(KeychainFailure) {
        let keystore = try KeychainContext.current().keystore
        let secret = SecretItemSecret(value: SecureBytes(copying: Array(argument(3).utf8)), contentType: "text/plain")
        _ = try keystore.createSecretItem(
            label: argument(0), attributes: [argument(1): argument(2)], secret: secret, replace: false)
        print("0 \(try keystore.journalChanges(after: 0).map(\.serial).max() ?? 0)")
    } catch {
        print(error.status.rawValue)
    }
case "ss-update":
    // Replaces the label and attributes of Secret Service item `number` in the login keychain: prints 0.
    do throws(KeychainFailure) {
        let keystore = try KeychainContext.current().keystore
        try keystore.updateSecretItem(
            Int64(argument(0)) ?? 0, label: argument(1), attributes: [argument(2): argument(3)])
        print("0")
    } catch {
        print(error.status.rawValue)
    }
case "se-create":
    let attributes: [String: Any] = [
        kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
        kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
        kSecPrivateKeyAttrs as String: [
            kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: Data(argument(0).utf8),
        ],
    ]
    var error: Unmanaged<CFError>?
    guard let key = SecKeyCreateRandomKey(attributes as CFDictionary, &error) else {
        print(error.map { CFErrorGetCode($0.takeRetainedValue()) } ?? -1)
        break
    }
    let point = SecKeyCopyPublicKey(key).flatMap { SecKeyCopyExternalRepresentation($0, nil) }
    print(point.map { "0 \(hex($0 as Data))" } ?? "-1")
case "se-sign":
    let query: [String: Any] = [
        kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data(argument(0).utf8),
        kSecReturnRef as String: true,
    ]
    var result: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    guard status == errSecSuccess, let key = result as? SecKey, let message = unhex(argument(1)) else {
        print(status)
        break
    }
    var error: Unmanaged<CFError>?
    let signature = SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message as CFData, &error)
    print(signature.map { "0 \(hex($0 as Data))" } ?? "\(error.map { CFErrorGetCode($0.takeRetainedValue()) } ?? -1)")
case "se-bench":
    guard let count = Int(argument(0)), count > 0 else { usage() }
    let attributes: [String: Any] = [
        kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
        kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
    ]
    let peerAttributes: [String: Any] = [
        kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
    ]
    func microseconds(since start: UInt64, _ operations: Int) -> UInt64 {
        (monotonicNanoseconds() - start) / UInt64(operations) / 1_000
    }
    var error: Unmanaged<CFError>?
    var start = monotonicNanoseconds()
    guard let key = SecKeyCreateRandomKey(attributes as CFDictionary, &error),
        let peer = SecKeyCreateRandomKey(peerAttributes as CFDictionary, nil).flatMap(SecKeyCopyPublicKey)
    else {
        print("key creation failed: \(error.map { String(describing: $0.takeRetainedValue()) } ?? "")")
        exit(1)
    }
    print("create: \(microseconds(since: start, 1)) µs per operation (1)")
    let message = Data("benchmark".utf8) as CFData
    start = monotonicNanoseconds()
    for _ in 0..<count where SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message, nil) == nil {
        print("sign failed")
        exit(1)
    }
    print("sign (ecdsaSignatureMessageX962SHA256): \(microseconds(since: start, count)) µs per operation (\(count))")
    start = monotonicNanoseconds()
    for _ in 0..<count
    where SecKeyCopyKeyExchangeResult(key, .ecdhKeyExchangeStandard, peer, [:] as CFDictionary, nil) == nil {
        print("ECDH failed")
        exit(1)
    }
    print("ECDH (ecdhKeyExchangeStandard): \(microseconds(since: start, count)) µs per operation (\(count))")
case "lock":
    print(
        status { () throws(KeychainError) in
            try KeychainFile.processDefault().lock()
            return nil
        })
case "unlock":
    print(
        status { () throws(KeychainError) in
            "\(try KeychainFile.processDefault().unlock(password: KeychainPassword(copying: Array(argument(0).utf8))))"
        })
case "lock-all":
    KeychainFile.lockAll()
    print("0")
case "lock-state":
    print(status { () throws(KeychainError) in "\(try KeychainFile.processDefault().lockState)" })
case "kc-configured":
    print(
        configured(
            keychain: argument(0), group: argument(1), service: argument(2), key: argument(3), value: argument(4)))
default:
    usage()
}
