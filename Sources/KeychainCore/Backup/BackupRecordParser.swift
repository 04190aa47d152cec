/// The backup's record parser without the stream around it, for the `backup` fuzz target only.
///
/// Every record of a backup is authenticated (secretstream) before it is parsed, so a fuzzer that
/// mutates whole backup files never reaches ``BackupMessage/parse(_:)`` with anything but the seed's
/// own records. This entry feeds it bytes directly, as if they were a decrypted record, and opens
/// device-bound boxes with ``fuzzBindingKey``.
package enum BackupRecordParser {
    /// The device-binding key device-bound boxes are opened with here (never used for real backups).
    static let fuzzBindingKey = SecureBytes(copying: [UInt8](repeating: 0x5A, count: 32))

    /// Parses `plaintext` as one decrypted backup record of the current format version, of version 3 or of
    /// version 2; opens a device-bound record's box.
    /// - Returns: whether it is a well-formed record of any of them.
    package static func parse(_ plaintext: [UInt8]) -> Bool {
        [BackupHeader.currentVersion, BackupHeader.secretServiceVersion, BackupHeader.recordVersion].contains {
            parse(plaintext, version: $0)
        }
    }

    private static func parse(_ plaintext: [UInt8], version: UInt16) -> Bool {
        do {
            switch try BackupMessage.parse(SecureBytes(copying: plaintext), version: version) {
            case .deviceBound(let itemClass, let protection, let box):
                return try BackupMessage.openDeviceBound(itemClass, protection, box: box, bindingKey: fuzzBindingKey)
                    != nil
            case .begin, .item, .end, .secretItem, .collection, .syncIdentity:
                return true
            }
        } catch {
            return false
        }
    }

    /// One well-formed record of each kind (begin, item, device-bound item, end, Secret Service item,
    /// collection, sync identity), for the seed corpus.
    package static func sampleRecords() -> [[UInt8]] {
        func record(_ protection: ProtectionClass, secret: String) -> StoredItem {
            StoredItem(
                itemClass: .genericPassword,
                attributes: .init(named: [
                    .accessGroup: .string("team.a"), .service: .string("api"), .account: .string("me"),
                    .accessible: .string(protection.rawValue), .synchronizable: .integer(0),
                ]),
                persistentRef: Array("genp".utf8) + [UInt8](repeating: 7, count: 16),
                secret: SecureBytes(copying: Array(secret.utf8)))
        }
        // Both records are a handful of short attributes, which always encode.
        let item =
            (try? BackupMessage.item(record(.whenUnlocked, secret: "s3cret")))?.withUnsafeBytes { Array($0) } ?? []
        return [
            BackupMessage.begin(
                created: AbsoluteTime(secondsSince1970: 1_700_000_000), deviceCheck: [UInt8](repeating: 1, count: 16)),
            item,
            (try? BackupMessage.deviceBound(
                record(.whenUnlockedThisDeviceOnly, secret: "device"), bindingKey: fuzzBindingKey)) ?? [],
            BackupMessage.end(BackupMessage.Counts(items: 2, migratable: 1, deviceBound: 1, excluded: 0)),
            BackupMessage.secretItem(
                SecretItem(
                    number: 0, label: "Chromium Safe Storage",
                    attributes: ["application": "chrome", "xdg:schema": "chrome_libsecret_os_crypt_password_v2"],
                    created: 1_700_000_000, modified: 1_700_000_001),
                SecretItemSecret(value: SecureBytes(copying: Array("s3cret".utf8)), contentType: "text/plain")
            ).withUnsafeBytes { Array($0) },
            BackupMessage.collection(label: "Login"),
            BackupMessage.syncIdentity(sampleSyncIdentity),
        ]
    }

    /// A sync identity with two ancestors, for the seed corpus and the format's tests.
    static var sampleSyncIdentity: BackupMessage.SyncIdentity {
        let device = SyncDeviceID(bytes: [UInt8](repeating: 0xD1, count: SyncDeviceID.byteCount))!
        return BackupMessage.SyncIdentity(
            item: SyncItemID(bytes: [UInt8](repeating: 0x1D, count: SyncItemID.byteCount))!,
            clock: SyncClock(milliseconds: 1_700_000_002_000, counter: 2, device: device),
            ancestors: [
                SyncClock(milliseconds: 1_700_000_001_000, counter: 1, device: device),
                SyncClock(milliseconds: 1_700_000_000_000, counter: 0, device: device),
            ])
    }
}
