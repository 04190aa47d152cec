internal import CTSS2

/// P-256 key pairs made and used inside a TPM 2.0: the engine of `kSecAttrTokenIDSecureEnclave` keys.
///
/// A key is created by `TPM2_Create` under the same owner-hierarchy primary storage key as
/// ``TPMSealing`` (re-created from its template on every call, so nothing stays loaded in the TPM and no
/// handle is taken): an unrestricted ECC key that both signs and agrees keys, `fixedTPM` and
/// `fixedParent`, no password, `noda`. Its private part leaves the TPM only encrypted by that primary:
/// the caller keeps the blob (the marshalled `TPM2B_PUBLIC` then `TPM2B_PRIVATE`), which only the same
/// TPM with the same owner seed loads again. Each operation loads the blob, runs one command
/// (`TPM2_Sign`, `TPM2_ECDH_ZGen`) and flushes it. The shared secret of ECDH returns encrypted on the
/// bus by a session salted with the primary; digests and signatures are not secret.
package enum TPMKey {
    /// Bytes of one P-256 coordinate, of `r` and of `s`.
    package static let coordinateBytes = 32

    /// Makes a new P-256 key pair in the TPM at `tcti`.
    /// - Parameter tcti: the TCTI loader's configuration string.
    /// - Returns: the blob to keep and the public key (`04 ‖ X ‖ Y`, 65 bytes).
    /// - Throws: ``TPMSealing/Failure/unreachable(_:)`` when no TPM answers; ``TPMSealing/Failure/failed(_:)``
    ///   when the TPM refuses (an owner hierarchy with a password, no P-256).
    package static func generate(tcti: String) throws(TPMSealing.Failure) -> (blob: [UInt8], publicKey: [UInt8]) {
        let context = try TPMContext(tcti: tcti)
        let primary = try context.createPrimary()
        defer { context.flush(primary) }
        var template = TPM2B_PUBLIC()
        swkc_tpm_ecc_key_template(&template)
        var sensitive = TPM2B_SENSITIVE_CREATE()
        var outside = TPM2B_DATA()
        var creationPCRs = TPML_PCR_SELECTION()
        var outPrivate: UnsafeMutablePointer<TPM2B_PRIVATE>?
        var outPublic: UnsafeMutablePointer<TPM2B_PUBLIC>?
        let rc = context.tss.Esys_Create(
            context.esys, primary, ESYS_TR(ESYS_TR_PASSWORD), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE),
            &sensitive, &template, &outside, &creationPCRs, &outPrivate, &outPublic, nil, nil, nil)
        defer {
            context.tss.Esys_Free(outPrivate)
            context.tss.Esys_Free(outPublic)
        }
        guard rc == TSS2_RC(TSS2_RC_SUCCESS), let outPrivate, let outPublic else {
            throw .failed("the TPM at \(tcti) did not make a P-256 key: \(TPMContext.describe(rc))")
        }
        let capacity = MemoryLayout<TPM2B_PUBLIC>.size + MemoryLayout<TPM2B_PRIVATE>.size
        var blob = [UInt8](repeating: 0, count: capacity)
        let length = blob.withUnsafeMutableBufferPointer {
            swkc_tpm_marshal(outPublic, outPrivate, $0.baseAddress, capacity)
        }
        guard length > 0, let point = publicPoint(outPublic) else { throw .failed("the TPM's key does not marshal") }
        return (Array(blob[..<length]), point)
    }

    /// The public key (`04 ‖ X ‖ Y`) of a blob from ``generate(tcti:)``, read without the TPM.
    /// - Returns: `nil` when the blob does not parse or is not such a key, or tpm2-tss (which parses it)
    ///   is not installed.
    package static func publicKey(ofBlob blob: [UInt8]) -> [UInt8]? {
        guard let (inPublic, _) = parse(blob) else { return nil }
        return withUnsafePointer(to: inPublic) { publicPoint($0) }
    }

    /// Signs a 32-byte digest with ECDSA (the digest stands for SHA-256) inside the TPM.
    /// - Parameters:
    ///   - digest: exactly 32 bytes.
    ///   - blob: the key's blob.
    ///   - tcti: the TCTI loader's configuration string.
    /// - Returns: the signature as `r ‖ s`, 32 bytes each.
    /// - Throws: ``TPMSealing/Failure/unreachable(_:)`` when no TPM answers; ``TPMSealing/Failure/foreign(_:)``
    ///   when the blob is damaged or this TPM does not load it (another machine's, or cleared since);
    ///   ``TPMSealing/Failure/failed(_:)`` when the TPM refuses to sign.
    package static func sign(digest: [UInt8], blob: [UInt8], tcti: String) throws(TPMSealing.Failure) -> [UInt8] {
        var tpmDigest = TPM2B_DIGEST()
        guard digest.count == coordinateBytes, swkc_tpm_set_digest(&tpmDigest, digest, digest.count) == 1 else {
            throw .failed("a TPM key signs a 32-byte digest, not \(digest.count) bytes")
        }
        return try withLoadedKey(blob, tcti: tcti) { (context, _, key) throws(TPMSealing.Failure) in
            var scheme = TPMT_SIG_SCHEME()
            var ticket = TPMT_TK_HASHCHECK()
            swkc_tpm_ecdsa_sha256(&scheme, &ticket)
            var signature: UnsafeMutablePointer<TPMT_SIGNATURE>?
            let rc = context.tss.Esys_Sign(
                context.esys, key, ESYS_TR(ESYS_TR_PASSWORD), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), &tpmDigest,
                &scheme, &ticket, &signature)
            defer { context.tss.Esys_Free(signature) }
            guard rc == TSS2_RC(TSS2_RC_SUCCESS), let signature else {
                throw .failed("the TPM at \(tcti) did not sign: \(TPMContext.describe(rc))")
            }
            var raw = [UInt8](repeating: 0, count: 2 * coordinateBytes)
            guard
                raw.withUnsafeMutableBufferPointer({ swkc_tpm_ecdsa_raw(signature, $0.baseAddress, coordinateBytes) })
                    == 1
            else { throw .failed("the TPM's signature is not ECDSA on P-256") }
            return raw
        }
    }

    /// The ECDH shared secret (the x-coordinate of `d·Q`) of the key with a peer's public point, computed
    /// inside the TPM (`TPM2_ECDH_ZGen`), lent to `body` and wiped after.
    /// - Parameters:
    ///   - peer: the peer's public key, `04 ‖ X ‖ Y` on P-256 (checked on the curve by the TPM too).
    ///   - blob: the key's blob.
    ///   - tcti: the TCTI loader's configuration string.
    ///   - body: reads the 32-byte secret; the buffer is valid only during the call.
    /// - Returns: what `body` returns.
    /// - Throws: as ``sign(digest:blob:tcti:)``; ``TPMSealing/Failure/failed(_:)`` also for a peer that is
    ///   not a P-256 point.
    package static func sharedSecret<R>(
        peer: [UInt8], blob: [UInt8], tcti: String, _ body: (UnsafeRawBufferPointer) -> R
    ) throws(TPMSealing.Failure) -> R {
        var point = TPM2B_ECC_POINT()
        let width = coordinateBytes
        guard peer.count == 1 + 2 * width, peer.first == 0x04,
            peer.withUnsafeBufferPointer({
                swkc_tpm_set_ecc_point(&point, $0.baseAddress! + 1, $0.baseAddress! + 1 + width, width)
            }) == 1
        else { throw .failed("the peer key is not an uncompressed P-256 point") }
        return try withLoadedKey(blob, tcti: tcti) { (context, primary, key) throws(TPMSealing.Failure) in
            let session = try context.saltedSession(primary: primary, policy: false)
            defer { context.flush(session) }
            _ = context.tss.Esys_TRSess_SetAttributes(
                context.esys, session, TPMA_SESSION(TPMA_SESSION_ENCRYPT | TPMA_SESSION_CONTINUESESSION), 0xff)
            var shared: UnsafeMutablePointer<TPM2B_ECC_POINT>?
            let rc = context.tss.Esys_ECDH_ZGen(
                context.esys, key, session, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), &point, &shared)
            defer {
                if let shared { swkc_tpm_wipe(shared, MemoryLayout<TPM2B_ECC_POINT>.size) }
                context.tss.Esys_Free(shared)
            }
            guard rc == TSS2_RC(TSS2_RC_SUCCESS), let shared else {
                throw .failed("the TPM at \(tcti) did not agree a key: \(TPMContext.describe(rc))")
            }
            var count = 0
            let x = swkc_tpm_ecc_point_x(shared, &count)
            guard count == width else { throw .failed("the TPM's shared secret is \(count) bytes, not \(width)") }
            return body(UnsafeRawBufferPointer(start: x, count: count))
        }
    }

    // MARK: - Private

    /// The public and private parts of a blob, when it parses and holds a key of this type.
    private static func parse(_ blob: [UInt8]) -> (TPM2B_PUBLIC, TPM2B_PRIVATE)? {
        var inPublic = TPM2B_PUBLIC()
        var inPrivate = TPM2B_PRIVATE()
        let parsed = blob.withUnsafeBufferPointer {
            swkc_tpm_unmarshal($0.baseAddress, $0.count, &inPublic, &inPrivate)
        }
        guard parsed == 1, swkc_tpm_is_ecc_key(&inPublic) == 1 else { return nil }
        return (inPublic, inPrivate)
    }

    /// `04 ‖ X ‖ Y` of a public area.
    private static func publicPoint(_ area: UnsafePointer<TPM2B_PUBLIC>) -> [UInt8]? {
        var point = [UInt8](repeating: 0, count: 1 + 2 * coordinateBytes)
        let length = point.withUnsafeMutableBufferPointer { swkc_tpm_ecc_public_point(area, $0.baseAddress, $0.count) }
        return length == point.count ? point : nil
    }

    /// Loads `blob` under the primary of the TPM at `tcti`, runs `body` with the context, the primary and
    /// the key, and flushes both after.
    private static func withLoadedKey<R>(
        _ blob: [UInt8], tcti: String, _ body: (TPMContext, ESYS_TR, ESYS_TR) throws(TPMSealing.Failure) -> R
    ) throws(TPMSealing.Failure) -> R {
        _ = try TPMContext.loadLibrary()  // parsing is tpm2-tss's too: "not installed", not "damaged"
        guard var (inPublic, inPrivate) = parse(blob) else {
            throw .foreign("the key's TPM blob is damaged (it does not parse as a TPM P-256 key)")
        }
        let context = try TPMContext(tcti: tcti)
        let primary = try context.createPrimary()
        defer { context.flush(primary) }
        var key = ESYS_TR(ESYS_TR_NONE)
        let loaded = context.tss.Esys_Load(
            context.esys, primary, ESYS_TR(ESYS_TR_PASSWORD), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), &inPrivate,
            &inPublic, &key)
        guard loaded == TSS2_RC(TSS2_RC_SUCCESS) else {
            throw .foreign(
                "the TPM at \(tcti) does not load the key (it was made by another machine's TPM, or this TPM was cleared): \(TPMContext.describe(loaded))"
            )
        }
        defer { context.flush(key) }
        return try body(context, primary, key)
    }
}
