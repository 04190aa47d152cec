internal import CTSS2

/// Seals a small secret (at most 128 bytes) with a TPM 2.0 and unseals it again: tpm2-tss's ESAPI over
/// the TCTI loader (no FAPI, whose global keystore and provisioning need an administrator).
///
/// The secret becomes a sealed data object (`TPM2_Create`, keyed-hash type) under a primary storage key
/// of the owner hierarchy, an ECC P-256 key the TPM re-creates from a fixed template on every call
/// (`TPM2_CreatePrimary` derives it from the owner seed), so nothing is persisted in the TPM's NV memory
/// and no handle is taken. The object has no password and is `noda` (no dictionary-attack lockout);
/// optionally it is bound to PCR 7 with a `TPM2_PolicyPCR` policy. The caller keeps the returned blob
/// (its public and private parts, marshalled): the private part is encrypted by the primary, so only
/// the same TPM with the same owner seed loads it. Both the secret going in and the secret coming out
/// are encrypted on the bus by a session salted with the primary.
package enum TPMSealing {
    /// Why a TPM operation failed. Each message is for people, names the TCTI, and never holds a secret.
    package enum Failure: Error, Sendable, Equatable {
        /// No TPM answers at the TCTI (no device, no permission, swtpm not running), or tpm2-tss's
        /// libraries, opened at the first TPM use, are not installed.
        case unreachable(String)
        /// The TPM answers but does not load the blob: it was sealed by another TPM, or this TPM's owner
        /// hierarchy was cleared since.
        case foreign(String)
        /// The object loads but its PCR 7 policy is not met (the Secure Boot state changed).
        case policy(String)
        /// Anything else the TPM or tpm2-tss refused.
        case failed(String)
    }

    /// Whether a TPM answers at `tcti` (the TCTI loader's configuration string, such as
    /// `device:/dev/tpmrm0` or `swtpm:path=/run/…/socket`).
    package static func isReachable(tcti: String) -> Bool {
        (try? TPMContext(tcti: tcti).randomProbe()) != nil
    }

    /// Seals `secret` (1…128 bytes) under the owner hierarchy of the TPM at `tcti`.
    /// - Parameters:
    ///   - secret: the bytes to seal; they are wiped from every buffer this call fills.
    ///   - tcti: the TCTI loader's configuration string.
    ///   - bindsPCR7: whether only the current value of PCR 7 (SHA-256 bank) unseals it.
    /// - Returns: the blob to keep: the sealed object's marshalled `TPM2B_PUBLIC` then `TPM2B_PRIVATE`.
    /// - Throws: ``Failure/unreachable(_:)`` when no TPM answers; ``Failure/failed(_:)`` when the TPM
    ///   refuses (an owner hierarchy with a password, a secret of the wrong size).
    package static func seal(_ secret: UnsafeRawBufferPointer, tcti: String, bindsPCR7: Bool) throws(Failure) -> [UInt8]
    {
        let context = try TPMContext(tcti: tcti)
        let primary = try context.createPrimary()
        defer { context.flush(primary) }
        var policy = TPM2B_DIGEST()
        if bindsPCR7 { policy = try context.pcr7PolicyDigest() }
        var template = TPM2B_PUBLIC()
        swkc_tpm_sealed_template(&template, &policy)
        var sensitive = TPM2B_SENSITIVE_CREATE()
        defer { swkc_tpm_wipe(&sensitive, MemoryLayout<TPM2B_SENSITIVE_CREATE>.size) }
        guard
            swkc_tpm_set_sensitive(
                &sensitive, secret.baseAddress?.assumingMemoryBound(to: UInt8.self), secret.count) == 1,
            secret.count > 0
        else { throw .failed("a TPM seals 1 to 128 bytes, not \(secret.count)") }
        let session = try context.saltedSession(primary: primary, policy: false)
        defer { context.flush(session) }
        _ = context.tss.Esys_TRSess_SetAttributes(
            context.esys, session, TPMA_SESSION(TPMA_SESSION_DECRYPT | TPMA_SESSION_CONTINUESESSION), 0xff)
        var outside = TPM2B_DATA()
        var creationPCRs = TPML_PCR_SELECTION()
        var outPrivate: UnsafeMutablePointer<TPM2B_PRIVATE>?
        var outPublic: UnsafeMutablePointer<TPM2B_PUBLIC>?
        let rc = context.tss.Esys_Create(
            context.esys, primary, session, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), &sensitive, &template,
            &outside, &creationPCRs, &outPrivate, &outPublic, nil, nil, nil)
        defer {
            context.tss.Esys_Free(outPrivate)
            context.tss.Esys_Free(outPublic)
        }
        guard rc == TSS2_RC(TSS2_RC_SUCCESS), let outPrivate, let outPublic else {
            throw .failed("the TPM at \(tcti) did not seal the key: \(TPMContext.describe(rc))")
        }
        let capacity = MemoryLayout<TPM2B_PUBLIC>.size + MemoryLayout<TPM2B_PRIVATE>.size
        var blob = [UInt8](repeating: 0, count: capacity)
        let length = blob.withUnsafeMutableBufferPointer {
            swkc_tpm_marshal(outPublic, outPrivate, $0.baseAddress, capacity)
        }
        guard length > 0 else { throw .failed("the sealed object does not marshal") }
        return Array(blob[..<length])
    }

    /// Unseals a blob from ``seal(_:tcti:bindsPCR7:)`` and lends the secret to `body`, wiping it after.
    /// - Parameters:
    ///   - blob: the sealed object's marshalled public and private parts.
    ///   - tcti: the TCTI loader's configuration string.
    ///   - bindsPCR7: whether the object was sealed to PCR 7 (a policy session then unseals it).
    ///   - body: reads the secret; the buffer is valid only during the call.
    /// - Returns: what `body` returns.
    /// - Throws: ``Failure/unreachable(_:)`` when no TPM answers; ``Failure/foreign(_:)`` when the blob
    ///   is malformed or this TPM does not load it (another machine's TPM, or this one cleared);
    ///   ``Failure/policy(_:)`` when PCR 7 no longer has the value it was sealed to; ``Failure/failed(_:)``
    ///   for other refusals.
    package static func unseal<R>(
        _ blob: [UInt8], tcti: String, bindsPCR7: Bool, _ body: (UnsafeRawBufferPointer) -> R
    ) throws(Failure) -> R {
        _ = try TPMContext.loadLibrary()  // unmarshalling is tpm2-tss's too: "not installed", not "damaged"
        var inPublic = TPM2B_PUBLIC()
        var inPrivate = TPM2B_PRIVATE()
        guard blob.withUnsafeBufferPointer({ swkc_tpm_unmarshal($0.baseAddress, $0.count, &inPublic, &inPrivate) }) == 1
        else { throw .foreign("the sealed device key is damaged (it does not parse as a TPM object)") }
        let context = try TPMContext(tcti: tcti)
        let primary = try context.createPrimary()
        defer { context.flush(primary) }
        var object = ESYS_TR(ESYS_TR_NONE)
        let loaded = context.tss.Esys_Load(
            context.esys, primary, ESYS_TR(ESYS_TR_PASSWORD), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), &inPrivate,
            &inPublic, &object)
        guard loaded == TSS2_RC(TSS2_RC_SUCCESS) else {
            throw .foreign("the TPM at \(tcti) does not load it: \(TPMContext.describe(loaded))")
        }
        defer { context.flush(object) }
        let session = try context.saltedSession(primary: primary, policy: bindsPCR7)
        defer { context.flush(session) }
        if bindsPCR7 { try context.applyPCR7(session) }
        _ = context.tss.Esys_TRSess_SetAttributes(
            context.esys, session, TPMA_SESSION(TPMA_SESSION_ENCRYPT | TPMA_SESSION_CONTINUESESSION), 0xff)
        var unsealed: UnsafeMutablePointer<TPM2B_SENSITIVE_DATA>?
        let rc = context.tss.Esys_Unseal(
            context.esys, object, session, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), &unsealed)
        defer {
            if let unsealed { swkc_tpm_wipe(unsealed, MemoryLayout<TPM2B_SENSITIVE_DATA>.size) }
            context.tss.Esys_Free(unsealed)
        }
        guard rc == TSS2_RC(TSS2_RC_SUCCESS), let unsealed else {
            if TPMContext.isPolicyFailure(rc) {
                throw .policy(
                    "PCR 7 of the TPM at \(tcti) changed since the key was sealed to it: \(TPMContext.describe(rc))")
            }
            throw .failed("the TPM at \(tcti) did not unseal the key: \(TPMContext.describe(rc))")
        }
        return body(
            UnsafeRawBufferPointer(start: swkc_tpm_sensitive_bytes(unsealed), count: Int(unsealed.pointee.size)))
    }
}
