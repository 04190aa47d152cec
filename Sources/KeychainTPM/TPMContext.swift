internal import CTSS2

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// One connection to a TPM: the TCTI loader's context and an ESAPI context over it, finalised together.
///
/// Not `Sendable`: ESAPI contexts are not thread-safe; each call of ``TPMSealing`` makes its own.
final class TPMContext {
    let esys: OpaquePointer
    /// tpm2-tss's functions (``loadLibrary()``): every ESAPI call goes through them.
    let tss: swkc_tss2_functions
    private var tcti: OpaquePointer?

    /// Connects to the TPM at `configuration` (a TCTI loader string), loading tpm2-tss first.
    /// - Throws: ``TPMSealing/Failure/unreachable(_:)`` when tpm2-tss is not installed or the TCTI or
    ///   ESAPI does not initialise.
    init(tcti configuration: String) throws(TPMSealing.Failure) {
        let tss = try Self.loadLibrary()
        _ = Self.quietLogging
        var tctiContext: OpaquePointer?
        let loaded = tss.Tss2_TctiLdr_Initialize(configuration, &tctiContext)
        guard loaded == TSS2_RC(TSS2_RC_SUCCESS), tctiContext != nil else {
            throw .unreachable("no TPM answers at \(configuration): \(Self.describe(loaded))")
        }
        var context: OpaquePointer?
        let started = tss.Esys_Initialize(&context, tctiContext, nil)
        guard started == TSS2_RC(TSS2_RC_SUCCESS), let context else {
            tss.Tss2_TctiLdr_Finalize(&tctiContext)
            throw .unreachable("the TPM at \(configuration) does not answer: \(Self.describe(started))")
        }
        esys = context
        tcti = tctiContext
        self.tss = tss
    }

    /// tpm2-tss's libraries, opened (dlopen) at the first TPM use of the process rather than linked, so that
    /// a process whose device key is a plain file never maps them (docs/PERFORMANCE.md, "Size and start-up
    /// of the installed tools").
    /// - Returns: the functions the project calls.
    /// - Throws: ``TPMSealing/Failure/unreachable(_:)`` when tpm2-tss is not installed (Debian
    ///   `libtss2-esys-3.0.2-0`, `libtss2-tctildr0`, `libtss2-mu0`, `libtss2-rc0`), with dlerror's text.
    static func loadLibrary() throws(TPMSealing.Failure) -> swkc_tss2_functions {
        guard let functions = swkc_tss2_load() else {
            throw .unreachable("tpm2-tss is not installed: \(String(cString: swkc_tss2_failure()))")
        }
        return functions.pointee
    }

    /// tpm2-tss logs every failure to stderr (its TSS2_LOG variable, read at its first message): the
    /// engine reports failures itself, so unless the user set TSS2_LOG its messages are turned off.
    /// Set once, before the first TPM call, by the first connection.
    private static let quietLogging: Void = { setenv("TSS2_LOG", "all+NONE", 0) }()

    deinit {
        var context: OpaquePointer? = esys
        tss.Esys_Finalize(&context)
        tss.Tss2_TctiLdr_Finalize(&tcti)
    }

    /// Asks the TPM for 8 random bytes: the cheapest command that proves it answers.
    func randomProbe() throws(TPMSealing.Failure) {
        var random: UnsafeMutablePointer<TPM2B_DIGEST>?
        let rc = tss.Esys_GetRandom(
            esys, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), 8, &random)
        tss.Esys_Free(random)
        guard rc == TSS2_RC(TSS2_RC_SUCCESS) else {
            throw .unreachable("the TPM does not answer: \(Self.describe(rc))")
        }
    }

    /// Re-creates the owner-hierarchy primary storage key from its fixed template.
    func createPrimary() throws(TPMSealing.Failure) -> ESYS_TR {
        var sensitive = TPM2B_SENSITIVE_CREATE()
        var template = TPM2B_PUBLIC()
        swkc_tpm_primary_template(&template)
        var outside = TPM2B_DATA()
        var pcrs = TPML_PCR_SELECTION()
        var handle = ESYS_TR(ESYS_TR_NONE)
        let rc = tss.Esys_CreatePrimary(
            esys, ESYS_TR(ESYS_TR_RH_OWNER), ESYS_TR(ESYS_TR_PASSWORD), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE),
            &sensitive, &template, &outside, &pcrs, &handle, nil, nil, nil, nil)
        guard rc == TSS2_RC(TSS2_RC_SUCCESS) else {
            throw .failed("the TPM did not make its owner-hierarchy primary key: \(Self.describe(rc))")
        }
        return handle
    }

    /// Starts an HMAC (or policy) session salted with `primary`, AES-128-CFB parameter encryption.
    func saltedSession(primary: ESYS_TR, policy: Bool) throws(TPMSealing.Failure) -> ESYS_TR {
        var symmetric = TPMT_SYM_DEF()
        swkc_tpm_session_symmetric(&symmetric)
        var session = ESYS_TR(ESYS_TR_NONE)
        let rc = tss.Esys_StartAuthSession(
            esys, primary, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE),
            nil,
            TPM2_SE(policy ? TPM2_SE_POLICY : TPM2_SE_HMAC), &symmetric, TPMI_ALG_HASH(TPM2_ALG_SHA256), &session)
        guard rc == TSS2_RC(TSS2_RC_SUCCESS) else {
            throw .failed("the TPM did not start a session: \(Self.describe(rc))")
        }
        return session
    }

    /// The policy digest of "PCR 7 (SHA-256) has its current value", from a trial session.
    func pcr7PolicyDigest() throws(TPMSealing.Failure) -> TPM2B_DIGEST {
        var symmetric = TPMT_SYM_DEF()
        symmetric.algorithm = TPM2_ALG_ID(TPM2_ALG_NULL)
        var trial = ESYS_TR(ESYS_TR_NONE)
        let started = tss.Esys_StartAuthSession(
            esys, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE),
            ESYS_TR(ESYS_TR_NONE), nil, TPM2_SE(TPM2_SE_TRIAL), &symmetric, TPMI_ALG_HASH(TPM2_ALG_SHA256), &trial)
        guard started == TSS2_RC(TSS2_RC_SUCCESS) else {
            throw .failed("the TPM did not start a trial session: \(Self.describe(started))")
        }
        defer { flush(trial) }
        try applyPCR7(trial)
        var digest: UnsafeMutablePointer<TPM2B_DIGEST>?
        let rc = tss.Esys_PolicyGetDigest(
            esys, trial, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), &digest)
        defer { tss.Esys_Free(digest) }
        guard rc == TSS2_RC(TSS2_RC_SUCCESS), let digest else {
            throw .failed("the TPM did not compute the PCR 7 policy: \(Self.describe(rc))")
        }
        return digest.pointee
    }

    /// Runs `TPM2_PolicyPCR` for PCR 7 (SHA-256 bank, its current value) in `session`.
    func applyPCR7(_ session: ESYS_TR) throws(TPMSealing.Failure) {
        var selection = TPML_PCR_SELECTION()
        swkc_tpm_pcr7(&selection)
        var current = TPM2B_DIGEST()
        let rc = tss.Esys_PolicyPCR(
            esys, session, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), &current, &selection)
        guard rc == TSS2_RC(TSS2_RC_SUCCESS) else {
            throw .failed("the TPM refused the PCR 7 policy: \(Self.describe(rc))")
        }
    }

    /// Flushes a transient object or session; a handle already gone is not an error.
    func flush(_ handle: ESYS_TR) {
        guard handle != ESYS_TR(ESYS_TR_NONE) else { return }
        _ = tss.Esys_FlushContext(esys, handle)
    }

    /// Whether `rc` is the TPM's "policy check failed" (PCR values differ), whatever session or parameter it names.
    static func isPolicyFailure(_ rc: TSS2_RC) -> Bool {
        rc & 0xFFFF_00BF == 0x9D  // TPM2_RC_POLICY_FAIL (format 1: 0x080 + 0x01D)
    }

    /// tpm2-tss's text for a response code.
    static func describe(_ rc: TSS2_RC) -> String {
        swkc_tss2_load()?.pointee.Tss2_RC_Decode(rc).map { String(cString: $0) } ?? "response code \(rc)"
    }
}
