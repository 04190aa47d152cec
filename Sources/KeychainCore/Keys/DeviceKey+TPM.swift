internal import KeychainTPM

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// The device key sealed by a TPM 2.0 (tracker issue 28), as systemd-creds' `host+tpm2`: the file then
/// holds a random disk secret, a TPM-sealed random secret, and the device key encrypted under
/// `Sodium.combine(disk secret, TPM secret)`, so opening it needs both that file and that TPM.
///
/// File layout: magic `swkc-tpm1`, a flags byte (bit 0: sealed to PCR 7), the 32-byte disk secret, the
/// sealed blob's length (2 bytes, big-endian) and the blob (``TPMSealing``), then the XChaCha20-Poly1305
/// box of the 32-byte device key, with everything before it as associated data. A plain device key is
/// a 32-byte file, so the two never look alike.
extension DeviceKey {
    /// Where a device key is kept (`security device-key status`).
    package enum Storage: Equatable, Sendable {
        /// No device key yet.
        case missing
        /// A 32-byte file.
        case file
        /// Sealed by a TPM; `bindsPCR7` when only PCR 7's value at sealing unseals it.
        case tpm(bindsPCR7: Bool)
    }

    static let sealedMagic = Array("swkc-tpm1".utf8)
    private static let headerCount = sealedMagic.count + 1 + Sodium.keyBytes + 2

    /// The TCTI the engine uses: `KEYCHAIN_TCTI` (`none` or empty turns the TPM off), else
    /// `device:/dev/tpmrm0` when that device exists; `nil` when there is no TPM to use.
    package static var configuredTCTI: String? {
        if let given = getenv("KEYCHAIN_TCTI") {
            let value = String(cString: given)
            return value.isEmpty || value == "none" ? nil : value
        }
        return FileSystem.exists("/dev/tpmrm0") ? "device:/dev/tpmrm0" : nil
    }

    /// The points, in order, of ``seal(path:tcti:bindsPCR7:)``, where the crash suite kills it.
    package static let sealCrashPoints = ["devicekey.seal.read", "devicekey.seal.sealed", "devicekey.seal.replaced"]

    /// Where the device key at `path` is kept.
    /// - Throws: `.io` when the file cannot be read, `.decode` when it is neither form.
    package static func storage(path: String) throws(KeychainFailure) -> Storage {
        guard FileSystem.exists(path) else { return .missing }
        if FileSystem.size(path) == Sodium.keyBytes { return .file }
        let header = try FileReader(path: path).read(sealedMagic.count + 1)
        guard header.count == sealedMagic.count + 1, Array(header[..<sealedMagic.count]) == sealedMagic else {
            throw KeychainFailure(.decode, "the device key \(path) is damaged", reason: .advice)
        }
        return .tpm(bindsPCR7: header[sealedMagic.count] & 1 == 1)
    }

    /// Moves the device key at `path` into the TPM at `tcti` (or re-seals an already sealed one, e.g. to
    /// change the PCR 7 binding), atomically: the new file is verified to unseal to the same key before it
    /// is renamed over the old one, so a kill at any moment leaves a file that opens every keychain.
    /// - Throws: `.notAvailable` (advice) when the TPM is not reachable or refuses; `.itemNotFound` when
    ///   there is no device key; `.io`/`.diskFull` when the file cannot be written.
    package static func seal(path: String, tcti: String, bindsPCR7: Bool) throws(KeychainFailure) {
        guard let key = try load(path: path) else {
            throw KeychainFailure(.itemNotFound, "there is no device key at \(path) to seal")
        }
        CrashPoint.reach("devicekey.seal.read")
        let contents = try sealedContents(of: key, tcti: tcti, bindsPCR7: bindsPCR7)
        CrashPoint.reach("devicekey.seal.sealed")
        guard let check = try? unsealedKey(contents, path: path, tcti: tcti), check.constantTimeEquals(key) else {
            throw KeychainFailure(
                .notAvailable, "the TPM at \(tcti) sealed the device key but does not unseal it", reason: .advice)
        }
        try replaceSecret(path, with: contents)
        CrashPoint.reach("devicekey.seal.replaced")
    }

    /// Moves a sealed device key back into a plain 32-byte file, atomically (a rename).
    /// - Throws: what ``load(path:)`` throws for a key the TPM does not unseal; `.itemNotFound` when there
    ///   is no device key; `.io`/`.diskFull` when the file cannot be written. A plain key is left as it is.
    package static func unseal(path: String) throws(KeychainFailure) {
        guard try storage(path: path) != .file else { return }
        guard let key = try load(path: path) else {
            throw KeychainFailure(.itemNotFound, "there is no device key at \(path) to unseal")
        }
        try replaceSecret(path, with: key)
    }

    /// A new device key sealed by the TPM at `tcti`, written exclusively at `path`; `nil` when it exists.
    static func createSealed(path: String, tcti: String) throws(KeychainFailure) -> SecureBytes? {
        let fresh = SecureBytes.random(count: Sodium.keyBytes)
        let contents = try sealedContents(of: fresh, tcti: tcti, bindsPCR7: false)
        let created = try contents.withUnsafeBytes { bytes throws(KeychainFailure) in
            try FileSystem.createExclusive(path, bytes: bytes)
        }
        return created ? fresh : nil
    }

    /// Opens the sealed device-key file at `path` (already read into `contents`).
    static func unsealedKey(_ contents: SecureBytes, path: String, tcti configured: String?) throws(KeychainFailure)
        -> SecureBytes
    {
        let damaged = KeychainFailure(
            .decode, "the device key \(path) is damaged (it is not a sealed device key)", reason: .advice)
        return try contents.withUnsafeBytes { (file: UnsafeRawBufferPointer) throws(KeychainFailure) -> SecureBytes in
            guard file.count > headerCount, Array(file[..<sealedMagic.count]) == sealedMagic else { throw damaged }
            let bindsPCR7 = file[sealedMagic.count] & 1 == 1
            let secretStart = sealedMagic.count + 1
            let blobCount = Int(file[headerCount - 2]) << 8 | Int(file[headerCount - 1])
            let boxStart = headerCount + blobCount
            guard file.count == boxStart + Sodium.keyBytes + Sodium.sealOverhead else { throw damaged }
            guard let tcti = configured else {
                throw KeychainFailure(
                    .notAvailable,
                    "the device key \(path) is sealed by a TPM, and this machine has none to use (no /dev/tpmrm0, or KEYCHAIN_TCTI=none): a copy from another machine does not open here; restore the keychain's encrypted backup (security restore-keychain) to recover its items that are not ThisDeviceOnly",
                    reason: .advice)
            }
            let diskSecret = SecureBytes(copying: file[secretStart..<secretStart + Sodium.keyBytes])
            let blob = Array(file[headerCount..<boxStart])
            let tpmSecret: SecureBytes
            do throws(TPMSealing.Failure) {
                tpmSecret = try TPMSealing.unseal(blob, tcti: tcti, bindsPCR7: bindsPCR7) { SecureBytes(copying: $0) }
            } catch {
                throw failure(error, path: path)
            }
            let wrapping = Sodium.combine(diskSecret, tpmSecret, context: "swkc.device-key.tpm.v1")
            guard
                let key = Sodium.openSecret(
                    Array(file[boxStart...]), key: wrapping, associatedData: Array(file[..<boxStart])),
                key.count == Sodium.keyBytes
            else {
                throw KeychainFailure(
                    .decode, "the device key \(path) does not open with its TPM secret: it is damaged", reason: .advice)
            }
            return key
        }
    }

    private static func sealedContents(of key: SecureBytes, tcti: String, bindsPCR7: Bool) throws(KeychainFailure)
        -> SecureBytes
    {
        let diskSecret = SecureBytes.random(count: Sodium.keyBytes)
        let tpmSecret = SecureBytes.random(count: Sodium.keyBytes)
        let blob: [UInt8]
        do throws(TPMSealing.Failure) {
            blob = try tpmSecret.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws(TPMSealing.Failure) in
                try TPMSealing.seal(bytes, tcti: tcti, bindsPCR7: bindsPCR7)
            }
        } catch {
            throw failure(error, path: "the new device key")
        }
        var associated = sealedMagic + [bindsPCR7 ? 1 : 0]
        let secretStart = associated.count
        associated += [UInt8](repeating: 0, count: Sodium.keyBytes)
        associated += [UInt8(blob.count >> 8), UInt8(blob.count & 0xff)] + blob
        let wrapping = Sodium.combine(diskSecret, tpmSecret, context: "swkc.device-key.tpm.v1")
        // The header goes into protected memory with the disk secret in its slot; the box authenticates it whole.
        return SecureBytes(count: associated.count + Sodium.keyBytes + Sodium.sealOverhead) { out in
            associated.withUnsafeBytes { out.copyMemory(from: $0) }
            diskSecret.withUnsafeBytes {
                UnsafeMutableRawBufferPointer(rebasing: out[secretStart..<secretStart + Sodium.keyBytes]).copyMemory(
                    from: $0)
            }
            let header = UnsafeRawBufferPointer(rebasing: out[..<associated.count])
            let box = key.withUnsafeBytes { Sodium.seal($0, key: wrapping, associatedData: Array(header)) }
            box.withUnsafeBytes {
                UnsafeMutableRawBufferPointer(rebasing: out[associated.count...]).copyMemory(from: $0)
            }
        }
    }

    private static func failure(_ error: TPMSealing.Failure, path: String) -> KeychainFailure {
        let recovery =
            "restore the keychain's encrypted backup (security restore-keychain) to recover its items that are not ThisDeviceOnly"
        switch error {
        case .foreign(let detail):
            return KeychainFailure(
                .notAvailable,
                "the device key is sealed by another machine's TPM, or this machine's TPM was cleared (\(path): \(detail)); \(recovery)",
                reason: .advice)
        case .unreachable(let detail):
            return KeychainFailure(
                .notAvailable,
                "the device key \(path) is sealed by a TPM that does not answer (\(detail)): check the TPM (/dev/tpmrm0 and the tss group) or KEYCHAIN_TCTI; if it is gone, \(recovery)",
                reason: .advice)
        case .policy(let detail):
            return KeychainFailure(
                .notAvailable,
                "the device key \(path) is sealed to PCR 7 and the Secure Boot state changed (\(detail)): restore the previous state, or \(recovery)",
                reason: .advice)
        case .failed(let detail):
            return KeychainFailure(.notAvailable, "the TPM refused (\(path)): \(detail)", reason: .advice)
        }
    }

    /// Writes `contents` over `path` atomically without copying them out of protected memory.
    private static func replaceSecret(_ path: String, with contents: SecureBytes) throws(KeychainFailure) {
        let temporary = path + ".new-\(getpid())"
        FileSystem.remove(temporary)
        let created = try contents.withUnsafeBytes { bytes throws(KeychainFailure) in
            try FileSystem.createExclusive(temporary, bytes: bytes)
        }
        guard created else { throw KeychainFailure(.io, "cannot create \(temporary)") }
        do {
            try FileSystem.rename(temporary, to: path)
        } catch {
            FileSystem.remove(temporary)
            throw error
        }
    }
}

extension DeviceKey {
    /// Whether a TPM answers at `tcti` (`security device-key status`).
    package static func isTPMReachable(tcti: String) -> Bool { TPMSealing.isReachable(tcti: tcti) }
}
