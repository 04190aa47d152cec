import Foundation
import KeychainCore
import KeychainServices
import KeychainTestProcess
import KeychainTesting
import Testing

/// Encryption at rest (design brief, "Cryptography"): no service, account, server, label or secret
/// appears in plain text in any file of the keychain folder or the device key folder.
@Suite("Nothing in plain text on disk")
struct PlaintextTests {
    /// Every file under `directory`, with its bytes.
    static func files(under directory: String) -> [(path: String, bytes: Data)] {
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return [] }
        var files: [(String, Data)] = []
        while let relative = enumerator.nextObject() as? String {
            let path = directory + "/" + relative
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                let bytes = FileManager.default.contents(atPath: path)
            {
                files.append((path, bytes))
            }
        }
        return files
    }

    /// The needles found in any file, as "file: needle".
    static func leaks(_ needles: [String], in keychain: TemporaryKeychain) -> [String] {
        let files = files(under: keychain.keychainDirectory) + files(under: keychain.deviceKeyDirectory)
        var found: [String] = []
        for (path, bytes) in files {
            for needle in needles {
                // The UTF-8 bytes, and the UTF-16 ones in case a layer ever stores NSString text.
                for encoded in [
                    Data(needle.utf8), needle.data(using: .utf16LittleEndian)!, needle.data(using: .utf16BigEndian)!,
                ]
                where bytes.range(of: encoded) != nil {
                    found.append("\(path.split(separator: "/").last!): \(needle)")
                }
            }
        }
        return found
    }

    @Test(
        "No service, account, server, label or secret appears in any keychain file (incl. -wal/-shm) after adds, updates and deletes"
    )
    func noPlaintext() throws {
        let keychain = try TemporaryKeychain()
        let needles = [
            "svc-CANARY-4f1d", "acct-CANARY-8e2b", "secret-CANARY-77aa", "label-CANARY-19cf",
            "updated-secret-CANARY-3b3b",
            "server-CANARY.example.com", "inet-acct-CANARY-5d5d", "inet-secret-CANARY-6e6e", "renamed-acct-CANARY-0a0a",
            "deleted-secret-CANARY-2c2c", "data-acct-CANARY-1f1f", "comment-CANARY-4c4c",
        ]
        var checkedFiles: [String] = []
        try keychain.run {
            for index in 0..<20 {
                #expect(
                    add(
                        genericPassword(
                            service: "svc-CANARY-4f1d", account: "acct-CANARY-8e2b-\(index)",
                            [
                                kSecAttrLabel as String: "label-CANARY-19cf",
                                kSecAttrComment as String: "comment-CANARY-4c4c",
                            ]),
                        secret: "secret-CANARY-77aa") == errSecSuccess)
            }
            #expect(
                add(
                    genericPassword(
                        service: "svc-CANARY-4f1d", account: nil,
                        [kSecAttrAccount as String: Data("data-acct-CANARY-1f1f".utf8)]), secret: "secret-CANARY-77aa")
                    == errSecSuccess)
            #expect(
                add(
                    internetPassword([
                        kSecAttrServer as String: "server-CANARY.example.com",
                        kSecAttrAccount as String: "inet-acct-CANARY-5d5d",
                    ]), secret: "inet-secret-CANARY-6e6e") == errSecSuccess)
            #expect(
                add(
                    genericPassword(service: "svc-CANARY-4f1d", account: "doomed"), secret: "deleted-secret-CANARY-2c2c"
                ) == errSecSuccess)
            #expect(
                update(
                    genericPassword(service: "svc-CANARY-4f1d", account: "acct-CANARY-8e2b-3"),
                    [kSecValueData as String: Data("updated-secret-CANARY-3b3b".utf8)]) == errSecSuccess)
            #expect(
                update(
                    genericPassword(service: "svc-CANARY-4f1d", account: "acct-CANARY-8e2b-4"),
                    [kSecAttrAccount as String: "renamed-acct-CANARY-0a0a"]) == errSecSuccess)
            #expect(delete(genericPassword(service: "svc-CANARY-4f1d", account: "doomed")) == errSecSuccess)
            #expect(delete(genericPassword(service: "svc-CANARY-4f1d", account: "acct-CANARY-8e2b-5")) == errSecSuccess)
            // The data really is there, so a clean scan means it is encrypted, not missing.
            #expect(
                secret(genericPassword(service: "svc-CANARY-4f1d", account: "acct-CANARY-8e2b-3"))
                    == "updated-secret-CANARY-3b3b")
            #expect(
                secret(internetPassword([kSecAttrServer as String: "server-CANARY.example.com"]))
                    == "inet-secret-CANARY-6e6e")

            // While the keychain is open: the WAL holds the recent writes.
            checkedFiles = Self.files(under: keychain.keychainDirectory).map {
                String($0.path.split(separator: "/").last!)
            }
            #expect(Self.leaks(needles, in: keychain).isEmpty, "\(Self.leaks(needles, in: keychain))")
        }
        // Positive control: the scan does find plain text that is there (SQLite's file header).
        #expect(Self.leaks(["SQLite format 3"], in: keychain) == ["login.keychain-db: SQLite format 3"])
        #expect(checkedFiles.contains("login.keychain-db"))
        #expect(checkedFiles.contains("login.keychain-db-wal"))
        #expect(!Self.files(under: keychain.deviceKeyDirectory).isEmpty)
        // After another process has opened, written and closed it (a checkpoint moves pages into the main file).
        #expect(
            try HelperProcess.run(
                ["add", "svc-CANARY-4f1d", "helper-acct", "secret-CANARY-77aa"], environment: keychain.environment)
                == "0")
        #expect(Self.leaks(needles, in: keychain).isEmpty, "\(Self.leaks(needles, in: keychain))")
    }

    /// Whether `needle` occurs in any file of the keychain or device key folder.
    static func contains(_ needle: Data, in keychain: TemporaryKeychain) -> Bool {
        (files(under: keychain.keychainDirectory) + files(under: keychain.deviceKeyDirectory)).contains {
            $0.bytes.range(of: needle) != nil
        }
    }

    @Test(
        "No private key bytes (EC scalar, RSA PKCS #1 key and its private exponent region) appear in any keychain file")
    func noPrivateKeyBytes() throws {
        let keychain = try TemporaryKeychain()
        var needles: [Data] = []
        try keychain.run {
            for (type, bits) in [(kSecAttrKeyTypeECSECPrimeRandom, 256), (kSecAttrKeyTypeRSA, 2048)] {
                var error: Unmanaged<CFError>?
                let parameters: [String: Any] = [
                    kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: bits,
                    kSecAttrIsPermanent as String: true, kSecAttrLabel as String: "canary-key-\(bits)",
                ]
                let key = try #require(SecKeyCreateRandomKey(parameters as CFDictionary, &error))
                let representation = try #require(SecKeyCopyExternalRepresentation(key, &error) as Data?)
                // EC: the last 32 bytes are the private scalar K. RSA: any 32-byte window past the public
                // modulus and exponent (the private exponent and primes) would do; take two.
                if bits == 256 {
                    needles.append(representation.suffix(32))
                } else {
                    needles.append(representation.subdata(in: 300..<332))
                    needles.append(representation.suffix(32))
                }
                // The key really is stored: found by its label and equal to the one generated.
                let query: [String: Any] = [
                    kSecClass as String: kSecClassKey, kSecAttrLabel as String: "canary-key-\(bits)",
                    kSecAttrKeyClass as String: kSecAttrKeyClassPrivate, kSecReturnData as String: true,
                ]
                #expect(copy(query).result as? Data == representation)
            }
            for needle in needles { #expect(!Self.contains(needle, in: keychain)) }
        }
        // Positive control: the scan finds bytes that are there.
        #expect(Self.contains(Data("SQLite format 3".utf8), in: keychain))
        for needle in needles { #expect(!Self.contains(needle, in: keychain)) }
    }

    @Test("The keychain folder is 0700 and its files 0600 (design brief, \"Files on disk\")")
    func filePermissions() throws {
        let keychain = try TemporaryKeychain()
        try keychain.run { #expect(add(genericPassword(), secret: "x") == errSecSuccess) }
        #expect(FileSystem.permissions(keychain.keychainDirectory) == 0o700)
        #expect(FileSystem.permissions(keychain.deviceKeyDirectory) == 0o700)
        for (path, _) in Self.files(under: keychain.keychainDirectory) + Self.files(under: keychain.deviceKeyDirectory)
        {
            #expect(FileSystem.permissions(path) == 0o600, "\(path)")
        }
    }
}
