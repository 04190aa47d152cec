package import Foundation
package import KeychainCore
import KeychainCrypto
import KeychainDockerCredential
import KeychainGitCredential
import KeychainSecurityTool
import KeychainServices
import KeychainToolSupport

/// The libFuzzer targets (tracker issue 8): each takes arbitrary bytes and must return without
/// crashing, whatever the bytes. `keychain-fuzz` runs them under libFuzzer; the test suite replays
/// the corpus in `Tests/Fuzz/Corpus/<target>/` through the same entry point.
package enum FuzzTarget: String, CaseIterable, Sendable {
    /// SecItem dictionaries: keys, value types, nesting; all four SecItem calls.
    case secItem = "secitem"
    /// Entitlements property lists.
    case entitlements
    /// Arbitrary files opened as a keychain database.
    case database
    /// git's credential-helper protocol on standard input (`key=value` lines), through
    /// `git-credential-keychain store`, `get` and `erase`.
    case gitCredential = "gitcredential"
    /// docker's credential-helper input: `store`'s JSON, and the raw server URL of `get` and `erase`.
    case dockerJSON = "dockerjson"
    /// Password-manager CSV exports, through `importPasswords(csv:)`: the CSV parser, format
    /// detection, URL parsing and the import transaction.
    case csv
    /// Encrypted keychain backups, through `restore(from:passphrase:policy:)` with the passphrase
    /// ``backupPassphrase``: header, key check, framing, secretstream, record parsing, restore.
    /// The same bytes also go to the record parser directly (`BackupRecordParser`), which mutated
    /// files never reach past the stream's authentication.
    case backup
    /// Sealed item attributes as decrypted (`docs/RECORD-FORMAT.md`), through `ItemRecordParser`: the
    /// item record decoder, the legacy property-list decoder for `bplist00` input, and a round trip of
    /// every record that decodes.
    case record
    /// X.509 certificates through OpenSSL (tracker issue 18): the bytes as DER and as PEM, then
    /// every derived value (names, emails, summary, serial number, normalized names, key, hashes).
    case certificate
    /// PKCS #12 files with the passphrase ``pkcs12Passphrase``, then a wrong one (tracker issue 18).
    case pkcs12
    /// Key bytes as Apple's external representations (EC X9.63 and RSA PKCS #1, public and
    /// private), as SubjectPublicKeyInfo and as PKCS #8; each key that imports is exported again.
    case keyData = "keydata"
    /// Secret Service method calls on the provider over an in-process D-Bus connection
    /// (``SecretServiceFuzzer``, issue 17): paths, methods, argument bytes and wrong signatures.
    case secretService = "secretservice"
    /// Sync payloads as the protocol hands them to the store after decryption (`docs/SYNC.md`, "Payload"),
    /// through ``SyncPayloadParser``: the decoder, and a round trip of every payload that decodes.
    case syncPayload = "syncpayload"
    /// The sync protocol's decoders: heads, segments and their bodies, trust lists, join requests
    /// (``SyncFuzzer``, issue 26).
    case sync

    /// Runs the target on one input.
    /// Whether the scratch keychain this target's inputs run against could be made: `false` means
    /// ``run(_:)`` would return at once and test nothing, so the corpus replay fails on it rather than
    /// pass without testing (tracker issue 13).
    package var isReady: Bool {
        switch self {
        case .secItem: FuzzTarget.scratch != nil
        case .csv, .backup: FuzzTarget.transferScratch != nil
        case .database, .entitlements, .gitCredential, .dockerJSON, .record, .certificate, .pkcs12, .keyData,
            .syncPayload, .sync:
            true
        case .secretService: SecretServiceFuzzer.isReady
        }
    }

    package func run(_ data: Data) {
        _ = FuzzTarget.scratchFoldersRemovedAtExit
        switch self {
        case .secItem: FuzzTarget.secItem(data)
        case .entitlements: _ = try? ApplicationIdentity(entitlementsPlist: data)
        case .database: FuzzTarget.database(data)
        case .gitCredential: FuzzTarget.helper(data, actions: ["store", "get", "erase"], GitCredentialHelper.run)
        case .dockerJSON:
            FuzzTarget.helper(data, actions: ["store", "get", "erase", "list"], DockerCredentialHelper.run)
        case .csv: FuzzTarget.csv(data)
        case .backup: FuzzTarget.backup(data)
        case .record: _ = ItemRecordParser.parse(Array(data))
        case .certificate: FuzzTarget.certificate(data)
        case .pkcs12: FuzzTarget.pkcs12(data)
        case .keyData: FuzzTarget.keyData(data)
        case .secretService: SecretServiceFuzzer.run(data)
        case .syncPayload: _ = SyncPayloadParser.parse(Array(data))
        case .sync: SyncFuzzer.run(data)
        }
    }

    /// The scratch folders of this process (`swkc-fuzz…-<pid>` in the temporary folder), removed
    /// when it exits so that test runs and fuzzing sessions leave no keychains behind.
    private static let scratchFoldersRemovedAtExit: Void = {
        atexit {
            let temporary = NSTemporaryDirectory()
            for kind in ["fuzz", "fuzzhelper", "fuzzdb", "fuzztransfer", "fuzzseed"] {
                try? FileManager.default.removeItem(atPath: temporary + "swkc-\(kind)-\(getpid())")
            }
        }
    }()

    // MARK: - Targets

    /// A scratch keychain shared by the inputs of one process.
    private static let scratch: KeychainContext? = {
        let directory = NSTemporaryDirectory() + "swkc-fuzz-\(getpid())"
        let location = KeychainLocation(
            databasePath: directory + "/fuzz.keychain-db", deviceKeyPath: directory + "/device.key")
        guard let keystore = try? Keystore(location: location) else { return nil }
        return KeychainContext(keystore: keystore, identity: ApplicationIdentity(accessGroups: ["team.a", "team.b"]))
    }()

    private static let keys = [
        "class", "genp", "inet", "cert", "pdmn", "agrp", "sync", "syna", "acct", "svce", "gena", "labl", "desc", "icmt",
        "crtr", "type", "invi", "nega", "sdmn", "srvr", "ptcl", "atyp", "port", "path", "cdat", "mdat", "accc",
        "r_Data", "r_Attributes", "r_PersistentRef", "r_Ref", "v_Data", "v_PersistentRef", "v_Ref", "m_Limit",
        "m_LimitOne", "m_LimitAll", "m_CaseInsensitive", "u_AuthUI", "nleg", "ak", "ck", "dk", "aku", "akpu", "htps",
    ]

    /// Any property-list value, decoded with FoundationEssentials' `PropertyListDecoder`.
    ///
    /// Not `PropertyListSerialization`: swift-corelibs-foundation's crashes (null dereference while
    /// bridging an `NSSet`) on a binary plist holding a set, as this target's first fuzz run found
    /// (`Tests/Fuzz/Corpus/secitem/regression-binary-plist-set.bin`). The engine never uses it.
    enum PlistValue: Decodable {
        case value(Any)

        init(from decoder: any Decoder) throws {
            // A binary plist can refer to itself; stop at a depth SecItem dictionaries never reach
            // (regression-cyclic-bplist.bin overflowed the stack before this check).
            guard decoder.codingPath.count < 8 else {
                self = .value(NSNull())
                return
            }
            if let keyed = try? decoder.container(keyedBy: AnyKey.self) {
                var dictionary: [String: Any] = [:]
                for key in keyed.allKeys {
                    if case .value(let value)? = try? keyed.decode(PlistValue.self, forKey: key) {
                        dictionary[key.stringValue] = value
                    }
                }
                self = .value(dictionary)
                return
            }
            if var unkeyed = try? decoder.unkeyedContainer() {
                var array: [Any] = []
                while !unkeyed.isAtEnd, case .value(let value)? = try? unkeyed.decode(PlistValue.self) {
                    array.append(value)
                }
                self = .value(array)
                return
            }
            let single = try decoder.singleValueContainer()
            if let value = try? single.decode(Bool.self) {
                self = .value(value)
            } else if let value = try? single.decode(Int.self) {
                self = .value(value)
            } else if let value = try? single.decode(String.self) {
                self = .value(value)
            } else if let value = try? single.decode(Data.self) {
                self = .value(value)
            } else if let value = try? single.decode(Date.self) {
                self = .value(value)
            } else {
                self = .value(try single.decode(Double.self))
            }
        }
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Builds a dictionary from the bytes: a property list if they are one, else a key/value stream
    /// (each entry: a key index byte, a type byte, then the value) so that mutations stay meaningful.
    static func dictionary(_ data: Data) -> [String: Any] {
        if case .value(let value)? = try? PropertyListDecoder().decode(PlistValue.self, from: data),
            let plist = value as? [String: Any]
        {
            return plist
        }
        var bytes = data.makeIterator()
        var dictionary: [String: Any] = [:]
        while let keyIndex = bytes.next(), let type = bytes.next() {
            let key = keys[Int(keyIndex) % keys.count]
            let length = Int(bytes.next() ?? 0) % 24
            var payload: [UInt8] = []
            for _ in 0..<length { if let byte = bytes.next() { payload.append(byte) } }
            let value: Any
            switch type % 9 {
            case 0: value = keys[Int(payload.first ?? 0) % keys.count]
            case 1: value = String(decoding: payload, as: UTF8.self)
            case 2: value = Data(payload)
            case 3: value = Int(payload.first ?? 0) - 128
            case 4: value = (payload.first ?? 0) & 1 == 1
            case 5: value = Date(timeIntervalSinceReferenceDate: Double(payload.first ?? 0))
            case 6: value = [String(decoding: payload, as: UTF8.self)]
            case 7: value = ["nested": Data(payload)]
            default: value = NSNull()
            }
            dictionary[key] = value
        }
        return dictionary
    }

    static func secItem(_ data: Data) {
        guard let scratch else { return }
        let query = dictionary(data) as NSDictionary
        KeychainContext.withOverride(scratch) {
            var result: CFTypeRef?
            _ = SecItemAdd(query, &result)
            _ = SecItemCopyMatching(query, &result)
            _ = SecItemCopyMatching(query, nil)
            _ = SecItemUpdate(query, query)
            _ = SecItemDelete(query)
        }
    }

    /// A scratch keychain for the credential helpers, shared by the inputs of one process.
    private static let helperLocation: KeychainLocation = {
        let directory = NSTemporaryDirectory() + "swkc-fuzzhelper-\(getpid())"
        return KeychainLocation(databasePath: directory + "/fuzz.keychain-db", deviceKeyPath: directory + "/device.key")
    }()

    /// Runs a credential helper once per action with `data` as standard input; output is discarded.
    static func helper(
        _ data: Data, actions: [String], _ run: ([String], CommandIO, KeychainLocation?) -> Int32
    ) {
        let environment = ["HOME": NSTemporaryDirectory() + "swkc-fuzzhelper-\(getpid())"]
        for action in actions {
            let io = CommandIO(
                input: MemoryInput(Array(data)), environment: environment, terminal: ScriptedPrompter([]))
            _ = run([action], io, helperLocation)
        }
    }

    /// The device key the database target and its corpus share (32 bytes of 0x42), so that inputs
    /// derived from the real keychain in the corpus get past the keybag into the item rows.
    static let corpusDeviceKey = Data(repeating: 0x42, count: 32)

    static func database(_ data: Data) {
        let directory = NSTemporaryDirectory() + "swkc-fuzzdb-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/input.keychain-db"
        let deviceKey = directory + "/device.key"
        if !FileManager.default.fileExists(atPath: deviceKey) {
            _ = FileManager.default.createFile(
                atPath: deviceKey, contents: corpusDeviceKey, attributes: [.posixPermissions: 0o600])
        }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        guard FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600])
        else { return }
        let location = KeychainLocation(databasePath: path, deviceKeyPath: deviceKey)
        if let keystore = try? Keystore(location: location, create: false) {
            // The management identity's gateway reads every group; secrets are opened, and none asks.
            let gateway = ItemGateway(keystore: keystore, identity: .manager)
            var authorizer = AccessAuthorizer(keystore: keystore, context: nil, ui: .skip, reason: nil)
            _ = try? gateway.search(
                ItemQuery(itemClass: .genericPassword, scope: gateway.callerScope), projection: [.attributes],
                release: &authorizer)
            _ = try? gateway.search(
                ItemQuery(itemClass: .internetPassword, scope: gateway.callerScope, synchronizable: .any),
                projection: [.attributes])
            _ = try? keystore.verifyIntegrity()
            _ = try? keystore.lockState()
            // Unlocking (and adopting, when the keychain was made with another device key) runs
            // Argon2id with the stored parameters: only when they are cheap.
            if let parameters = try? keystore.passwordParameters(), parameters.opsLimit <= 3,
                parameters.memLimit <= 1 << 20
            {
                _ = try? keystore.unlock(password: SecureBytes(copying: Array(corpusPassword.utf8)))
                // Failed unlocks are counted beside the device key, and after three each attempt
                // waits (UnlockThrottle): forget them, or the run slows to a crawl.
                for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
                where name.hasSuffix(".unlock-failures") {
                    try? FileManager.default.removeItem(atPath: directory + "/" + name)
                }
                _ = try? gateway.search(
                    ItemQuery(itemClass: .genericPassword, scope: gateway.callerScope), projection: [.attributes],
                    release: &authorizer)
                _ = try? gateway.delete(
                    ItemQuery(
                        itemClass: .genericPassword, filters: .init(named: [.account: .string("aku")]),
                        scope: gateway.callerScope))
            }
        }
    }

    /// The password of the corpus keychains that have one.
    package static let corpusPassword = "fuzz"

    /// A scratch keystore for the csv and backup targets, emptied after each input so that it does
    /// not grow over a run. Its device key is ``fixedDeviceKey``, so that the ThisDeviceOnly records
    /// of the seed backup (made with the same key) open and restore instead of being skipped.
    private static let transferScratch: Keystore? = {
        let directory = NSTemporaryDirectory() + "swkc-fuzztransfer-\(getpid())"
        return try? scratchKeystore(in: directory)
    }()

    /// The device key of the fuzz scratch keychains (and of the committed seed backup).
    package static let fixedDeviceKey = [UInt8](repeating: 0x5A, count: 32)

    /// The passphrase the backup target restores with; the seed backup uses it.
    package static let backupPassphrase = "fuzz passphrase"

    /// A keychain in `directory` whose device key is ``fixedDeviceKey``.
    package static func scratchKeystore(in directory: String) throws -> Keystore {
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let deviceKey = directory + "/device.key"
        if !FileManager.default.fileExists(atPath: deviceKey) {
            _ = FileManager.default.createFile(
                atPath: deviceKey, contents: Data(fixedDeviceKey), attributes: [.posixPermissions: 0o600])
        }
        let location = KeychainLocation(databasePath: directory + "/fuzz.keychain-db", deviceKeyPath: deviceKey)
        return try Keystore(location: location)
    }

    /// Deletes every item of the scratch keystore.
    private static func empty(_ keystore: Keystore) {
        let gateway = ItemGateway(keystore: keystore, identity: .manager)
        for itemClass in [ItemClass.genericPassword, .internetPassword] {
            _ = try? gateway.delete(ItemQuery(itemClass: itemClass, scope: gateway.callerScope, synchronizable: .any))
        }
    }

    static func csv(_ data: Data) {
        guard let keystore = transferScratch else { return }
        _ = try? keystore.importPasswords(csv: SecureBytes(copying: data), accessGroup: "team.a", policy: .replace)
        empty(keystore)
    }

    static func backup(_ data: Data) {
        guard let keystore = transferScratch else { return }
        let path = NSTemporaryDirectory() + "swkc-fuzztransfer-\(getpid())/input.swkcbackup"
        guard FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600])
        else { return }
        // The header's checksum keeps mutated Argon2id parameters from running: only the seed's cheap
        // ones (KDFParameters.testing) reach the key derivation.
        _ = try? keystore.restore(
            from: path, passphrase: SecureBytes(copying: Array(backupPassphrase.utf8)), policy: .replace)
        empty(keystore)
        _ = BackupRecordParser.parse(Array(data))
    }

    /// Writes a small real backup for the backup corpus: a synchronizable generic password (so the
    /// backup holds its sync identity, kind 7), an internet password and a ThisDeviceOnly item, under
    /// ``backupPassphrase`` with the cheapest Argon2id parameters and a keychain whose device key is
    /// ``fixedDeviceKey``; and beside it `record-0.bin` … `record-6.bin`,
    /// one decrypted record of each kind (`BackupRecordParser.sampleRecords()`).
    /// `keychain-fuzz --make-backup-seed FILE` calls it.
    package static func writeBackupSeed(to path: String) throws {
        let directory = NSTemporaryDirectory() + "swkc-fuzzseed-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keystore = try scratchKeystore(in: directory)
        let gateway = ItemGateway(keystore: keystore, identity: .manager)
        _ = try gateway.add(
            NewItem(
                .genericPassword,
                attributes: .init(named: [
                    .accessGroup: .string("team.a"), .service: .string("api"), .account: .string("me"),
                    .accessible: .string("ak"), .synchronizable: .bool(true),
                ]),
                secret: SecureBytes(copying: Array("s3cret".utf8))))
        _ = try gateway.add(
            NewItem(
                .internetPassword,
                attributes: .init(named: [
                    .accessGroup: .string("team.a"), .server: .string("example.com"), .account: .string("me"),
                    .protocol: .string("htps"), .port: .integer(443), .path: .string("/login"),
                    .accessible: .string("ck"),
                ]),
                secret: SecureBytes(copying: Array("hunter2".utf8))))
        _ = try gateway.add(
            NewItem(
                .genericPassword,
                attributes: .init(named: [
                    .accessGroup: .string("team.a"), .service: .string("local"), .account: .string("me"),
                    .accessible: .string("aku"),
                ]),
                secret: SecureBytes(copying: Array("device".utf8))))
        let passphrase = SecureBytes(copying: Array(backupPassphrase.utf8))
        _ = try keystore.backup(to: path, passphrase: passphrase, parameters: .testing, overwrite: true)
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        for (index, record) in BackupRecordParser.sampleRecords().enumerated() {
            try Data(record).write(to: URL(fileURLWithPath: (folder.isEmpty ? "." : folder) + "/record-\(index).bin"))
        }
    }
}

// MARK: - Keys, certificates, PKCS #12 (issue 18)

extension FuzzTarget {
    /// The passphrase of the PKCS #12 seeds in `Tests/Fuzz/Corpus/pkcs12/`.
    package static let pkcs12Passphrase = "fuzz"

    static func certificate(_ data: Data) {
        let bytes = [UInt8](data)
        var certificates: [Certificate] = []
        if let certificate = try? Certificate(der: bytes) { certificates.append(certificate) }
        certificates += (try? Certificate.certificates(pem: bytes)) ?? []
        for certificate in certificates {
            _ = certificate.commonNames
            _ = certificate.emailAddresses
            _ = certificate.subjectSummary
            _ = try? certificate.serialNumber
            _ = try? certificate.normalizedIssuerSequence
            _ = try? certificate.normalizedSubjectSequence
            _ = try? certificate.publicKeyHash
            _ = certificate.subjectKeyIdentifier
            _ = try? certificate.pem
            if let key = try? certificate.publicKey() { _ = try? key.publicKeyBytes }
        }
    }

    static func pkcs12(_ data: Data) {
        let bytes = [UInt8](data)
        if let contents = try? PKCS12.parse(bytes, passphrase: pkcs12Passphrase) {
            _ = try? contents.privateKey.externalRepresentation()
            _ = contents.chain.map(\.subjectSummary)
        }
        _ = try? PKCS12.parse(bytes, passphrase: "not the passphrase")
    }

    static func keyData(_ data: Data) {
        let bytes = [UInt8](data)
        var keys: [CryptoKey] = []
        for rsa in [false, true] {
            for isPrivate in [false, true] {
                if let key = try? CryptoKey(externalRepresentation: bytes, rsa: rsa, isPrivate: isPrivate) {
                    keys.append(key)
                }
            }
        }
        if let key = try? CryptoKey(subjectPublicKeyInfo: bytes) { keys.append(key) }
        if let key = try? CryptoKey(privateKeyDER: bytes) { keys.append(key) }
        for key in keys {
            _ = try? key.externalRepresentation()
            _ = try? key.publicKey().publicKeyBytes
            _ = try? key.subjectPublicKeyInfo
            // Every operation once, with the input's own bytes as message (keys above 4096 bits
            // would only make the run slow).
            guard key.sizeInBits <= 4096 else { continue }
            let algorithms: [KeyAlgorithm] =
                switch key.kind {
                case .ec:
                    [
                        .ecdsaSignatureMessageX962(.sha256), .ecdsaSignatureRFC4754,
                        .ecies(cofactor: false, variableIV: true, hash: .sha256),
                    ]
                case .rsa:
                    [.rsaSignatureMessagePSS(.sha256), .rsaSignatureDigestPKCS1v15Raw, .rsaEncryptionOAEP(.sha1)]
                }
            for algorithm in algorithms {
                let message = Array(bytes.prefix(32))
                if algorithm.operation == .sign {
                    if let signature = try? key.sign(message, algorithm: algorithm) {
                        _ = try? key.verify(signature, for: message, algorithm: algorithm)
                    }
                    _ = try? key.verify(bytes, for: message, algorithm: algorithm)
                } else {
                    if let ciphertext = try? key.encrypt(message, algorithm: algorithm) {
                        _ = try? key.decrypt(ciphertext, algorithm: algorithm)
                    }
                    _ = try? key.decrypt(bytes, algorithm: algorithm)
                }
            }
            if case .ec = key.kind, let peer = try? key.publicKey() {
                _ = try? key.keyExchange(
                    with: peer, algorithm: .ecdh(cofactor: true, kdf: .sha256), requestedSize: 32, sharedInfo: bytes)
            }
        }
    }
}
