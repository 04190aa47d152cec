#ifndef CTSS2_SHIM_H
#define CTSS2_SHIM_H
// tpm2-tss's ESAPI and TCTI loader (Debian libtss2-dev). The TPM's structures are nested unions and
// fixed arrays that Swift imports as tuples: these helpers fill and copy them. The libraries are not
// linked: they are opened with dlopen at the first TPM use (swkc_tss2_load), so that a process that
// never meets a TPM (a device key in a plain file, the common case) does not map tpm2-tss and the
// libcrypto it depends on at start-up (docs/PERFORMANCE.md, "Size and start-up of the installed
// tools").
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_rc.h>
#include <tss2/tss2_tctildr.h>

// Every tpm2-tss function the project calls, with the library that defines it (sonames in swkc_tss2_open).
#define SWKC_TSS2_FUNCTIONS(X) \
    X(esys, Esys_Initialize) X(esys, Esys_Finalize) X(esys, Esys_Free) X(esys, Esys_GetRandom) \
    X(esys, Esys_CreatePrimary) X(esys, Esys_Create) X(esys, Esys_Load) X(esys, Esys_Unseal) \
    X(esys, Esys_StartAuthSession) X(esys, Esys_TRSess_SetAttributes) X(esys, Esys_PolicyPCR) \
    X(esys, Esys_PolicyGetDigest) X(esys, Esys_FlushContext) X(esys, Esys_Sign) X(esys, Esys_ECDH_ZGen) \
    X(tctildr, Tss2_TctiLdr_Initialize) X(tctildr, Tss2_TctiLdr_Finalize) \
    X(mu, Tss2_MU_TPM2B_PUBLIC_Marshal) X(mu, Tss2_MU_TPM2B_PRIVATE_Marshal) \
    X(mu, Tss2_MU_TPM2B_PUBLIC_Unmarshal) X(mu, Tss2_MU_TPM2B_PRIVATE_Unmarshal) X(rc, Tss2_RC_Decode)

// The loaded functions, called from Swift as `functions.Esys_Create(…)` (same names and types as the headers').
struct swkc_tss2_functions {
#define SWKC_TSS2_FIELD(library, name) __typeof__(&name) _Nonnull name;
    SWKC_TSS2_FUNCTIONS(SWKC_TSS2_FIELD)
#undef SWKC_TSS2_FIELD
};

// What swkc_tss2_load found: one per process (a function-local static; only KeychainTPM includes this).
struct swkc_tss2_state {
    struct swkc_tss2_functions functions;
    int loaded;
    char failure[256];  // why loading failed (dlerror's text), for the error message
};

static inline struct swkc_tss2_state *swkc_tss2_state(void) {
    static struct swkc_tss2_state state;
    return &state;
}

// Opens the four libraries and resolves every function, once (pthread_once in swkc_tss2_load).
static inline void swkc_tss2_open(void) {
    struct swkc_tss2_state *state = swkc_tss2_state();
    const char *sonames[] = {"libtss2-esys.so.0", "libtss2-tctildr.so.0", "libtss2-mu.so.0", "libtss2-rc.so.0"};
    void *handles[4];
    for (int index = 0; index < 4; index++) {
        handles[index] = dlopen(sonames[index], RTLD_NOW | RTLD_LOCAL);
        if (handles[index] == NULL) {
            const char *error = dlerror();
            strncpy(state->failure, error ? error : sonames[index], sizeof state->failure - 1);
            return;
        }
    }
    void *esys = handles[0], *tctildr = handles[1], *mu = handles[2], *rc = handles[3];
#define SWKC_TSS2_RESOLVE(library, name) \
    *(void **)&state->functions.name = dlsym(library, #name); \
    if (state->functions.name == NULL) { \
        strncpy(state->failure, #name " is missing from tpm2-tss", sizeof state->failure - 1); \
        return; \
    }
    SWKC_TSS2_FUNCTIONS(SWKC_TSS2_RESOLVE)
#undef SWKC_TSS2_RESOLVE
    state->loaded = 1;
}

// tpm2-tss's functions, loaded once per process (thread-safe); NULL when a library or function is missing
// (tpm2-tss not installed), and then swkc_tss2_failure() says why. The libraries stay loaded until exit.
static inline const struct swkc_tss2_functions *swkc_tss2_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, swkc_tss2_open);
    return swkc_tss2_state()->loaded ? &swkc_tss2_state()->functions : NULL;
}

static inline const char *swkc_tss2_failure(void) { return swkc_tss2_state()->failure; }

// The owner-hierarchy primary the device key is sealed under: an ECC P-256 storage key re-created
// from this fixed template (the TPM derives it from its owner seed, so it is the same key every time).
static inline void swkc_tpm_primary_template(TPM2B_PUBLIC *out) {
    memset(out, 0, sizeof *out);
    TPMT_PUBLIC *area = &out->publicArea;
    area->type = TPM2_ALG_ECC;
    area->nameAlg = TPM2_ALG_SHA256;
    area->objectAttributes = TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT | TPMA_OBJECT_FIXEDTPM |
        TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA;
    area->parameters.eccDetail.symmetric.algorithm = TPM2_ALG_AES;
    area->parameters.eccDetail.symmetric.keyBits.aes = 128;
    area->parameters.eccDetail.symmetric.mode.aes = TPM2_ALG_CFB;
    area->parameters.eccDetail.scheme.scheme = TPM2_ALG_NULL;
    area->parameters.eccDetail.curveID = TPM2_ECC_NIST_P256;
    area->parameters.eccDetail.kdf.scheme = TPM2_ALG_NULL;
}

// A sealed data object (keyed hash, no scheme), no password, no dictionary-attack lockout (noda).
// With a policy digest (PCR binding), only a policy session unseals it.
static inline void swkc_tpm_sealed_template(TPM2B_PUBLIC *out, const TPM2B_DIGEST *policy) {
    memset(out, 0, sizeof *out);
    TPMT_PUBLIC *area = &out->publicArea;
    area->type = TPM2_ALG_KEYEDHASH;
    area->nameAlg = TPM2_ALG_SHA256;
    area->objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_NODA;
    if (policy == NULL || policy->size == 0) {
        area->objectAttributes |= TPMA_OBJECT_USERWITHAUTH;
    } else {
        area->authPolicy = *policy;
    }
    area->parameters.keyedHashDetail.scheme.scheme = TPM2_ALG_NULL;
}

// PCR 7 (Secure Boot policy) of the SHA-256 bank.
static inline void swkc_tpm_pcr7(TPML_PCR_SELECTION *out) {
    memset(out, 0, sizeof *out);
    out->count = 1;
    out->pcrSelections[0].hash = TPM2_ALG_SHA256;
    out->pcrSelections[0].sizeofSelect = 3;
    out->pcrSelections[0].pcrSelect[0] = 1 << 7;
}

// The symmetric parameters of a policy session (AES-128-CFB, as the primary).
static inline void swkc_tpm_session_symmetric(TPMT_SYM_DEF *out) {
    memset(out, 0, sizeof *out);
    out->algorithm = TPM2_ALG_AES;
    out->keyBits.aes = 128;
    out->mode.aes = TPM2_ALG_CFB;
}

// Puts `count` (at most 128) bytes into the sensitive data of a sealed object.
static inline int swkc_tpm_set_sensitive(TPM2B_SENSITIVE_CREATE *out, const uint8_t *data, size_t count) {
    memset(out, 0, sizeof *out);
    if (count > sizeof out->sensitive.data.buffer) return 0;
    out->sensitive.data.size = (UINT16)count;
    memcpy(out->sensitive.data.buffer, data, count);
    return 1;
}

static inline void swkc_tpm_wipe(void *pointer, size_t count) {
    volatile uint8_t *bytes = (volatile uint8_t *)pointer;
    while (count--) *bytes++ = 0;
}

// The unsealed bytes (the TPM returns at most 128).
static inline const uint8_t *swkc_tpm_sensitive_bytes(const TPM2B_SENSITIVE_DATA *data) { return data->buffer; }

// Marshals a sealed object's public and private parts into one blob; returns its length, 0 when it does not fit
// (or tpm2-tss is not installed).
static inline size_t swkc_tpm_marshal(const TPM2B_PUBLIC *pub, const TPM2B_PRIVATE *priv, uint8_t *buffer, size_t size) {
    const struct swkc_tss2_functions *tss = swkc_tss2_load();
    size_t offset = 0;
    if (tss == NULL) return 0;
    if (tss->Tss2_MU_TPM2B_PUBLIC_Marshal(pub, buffer, size, &offset) != TSS2_RC_SUCCESS) return 0;
    if (tss->Tss2_MU_TPM2B_PRIVATE_Marshal(priv, buffer, size, &offset) != TSS2_RC_SUCCESS) return 0;
    return offset;
}

// Reverses swkc_tpm_marshal; returns 0 when the blob is malformed or has trailing bytes (or tpm2-tss is not installed).
static inline int swkc_tpm_unmarshal(const uint8_t *buffer, size_t size, TPM2B_PUBLIC *pub, TPM2B_PRIVATE *priv) {
    const struct swkc_tss2_functions *tss = swkc_tss2_load();
    size_t offset = 0;
    memset(pub, 0, sizeof *pub);
    memset(priv, 0, sizeof *priv);
    if (tss == NULL) return 0;
    if (tss->Tss2_MU_TPM2B_PUBLIC_Unmarshal(buffer, size, &offset, pub) != TSS2_RC_SUCCESS) return 0;
    if (tss->Tss2_MU_TPM2B_PRIVATE_Unmarshal(buffer, size, &offset, priv) != TSS2_RC_SUCCESS) return 0;
    return offset == size;
}

// A P-256 key pair made inside the TPM (kSecAttrTokenIDSecureEnclave keys): unrestricted, signs and
// agrees keys (sign and decrypt set, no fixed scheme: the ECDSA hash comes with each TPM2_Sign), no
// password, noda; fixedTPM and fixedParent keep its private part wrapped by this TPM's primary.
static inline void swkc_tpm_ecc_key_template(TPM2B_PUBLIC *out) {
    memset(out, 0, sizeof *out);
    TPMT_PUBLIC *area = &out->publicArea;
    area->type = TPM2_ALG_ECC;
    area->nameAlg = TPM2_ALG_SHA256;
    area->objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN |
        TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_DECRYPT | TPMA_OBJECT_NODA;
    area->parameters.eccDetail.symmetric.algorithm = TPM2_ALG_NULL;
    area->parameters.eccDetail.scheme.scheme = TPM2_ALG_NULL;
    area->parameters.eccDetail.curveID = TPM2_ECC_NIST_P256;
    area->parameters.eccDetail.kdf.scheme = TPM2_ALG_NULL;
}

// Whether a public area is a P-256 key of swkc_tpm_ecc_key_template (a stored blob is checked before use).
static inline int swkc_tpm_is_ecc_key(const TPM2B_PUBLIC *pub) {
    const TPMT_PUBLIC *area = &pub->publicArea;
    return area->type == TPM2_ALG_ECC && area->parameters.eccDetail.curveID == TPM2_ECC_NIST_P256 &&
        (area->objectAttributes & (TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_DECRYPT)) ==
            (TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_DECRYPT) &&
        area->unique.ecc.x.size == 32 && area->unique.ecc.y.size == 32;
}

// The public point of an ECC key as X9.63 `04 || X || Y` into `out` (65 bytes for P-256); returns its length.
static inline size_t swkc_tpm_ecc_public_point(const TPM2B_PUBLIC *pub, uint8_t *out, size_t size) {
    const TPMS_ECC_POINT *point = &pub->publicArea.unique.ecc;
    size_t total = 1 + (size_t)point->x.size + point->y.size;
    if (total > size) return 0;
    out[0] = 0x04;
    memcpy(out + 1, point->x.buffer, point->x.size);
    memcpy(out + 1 + point->x.size, point->y.buffer, point->y.size);
    return total;
}

// An ECC point from its coordinates (`width` bytes each, at most 128).
static inline int swkc_tpm_set_ecc_point(TPM2B_ECC_POINT *out, const uint8_t *x, const uint8_t *y, size_t width) {
    memset(out, 0, sizeof *out);
    if (width > sizeof out->point.x.buffer) return 0;
    out->point.x.size = (UINT16)width;
    out->point.y.size = (UINT16)width;
    memcpy(out->point.x.buffer, x, width);
    memcpy(out->point.y.buffer, y, width);
    return 1;
}

// The x-coordinate of a point (TPM2_ECDH_ZGen's shared secret) and its length.
static inline const uint8_t *swkc_tpm_ecc_point_x(const TPM2B_ECC_POINT *point, size_t *count) {
    *count = point->point.x.size;
    return point->point.x.buffer;
}

// A digest for TPM2_Sign (at most 64 bytes).
static inline int swkc_tpm_set_digest(TPM2B_DIGEST *out, const uint8_t *data, size_t count) {
    memset(out, 0, sizeof *out);
    if (count > sizeof out->buffer) return 0;
    out->size = (UINT16)count;
    memcpy(out->buffer, data, count);
    return 1;
}

// ECDSA with SHA-256 (the digest's hash), and the empty hash-check ticket an unrestricted key signs with.
static inline void swkc_tpm_ecdsa_sha256(TPMT_SIG_SCHEME *scheme, TPMT_TK_HASHCHECK *ticket) {
    memset(scheme, 0, sizeof *scheme);
    scheme->scheme = TPM2_ALG_ECDSA;
    scheme->details.ecdsa.hashAlg = TPM2_ALG_SHA256;
    memset(ticket, 0, sizeof *ticket);
    ticket->tag = TPM2_ST_HASHCHECK;
    ticket->hierarchy = TPM2_RH_NULL;
}

// An ECDSA signature as `r || s`, each left-padded to `width` bytes; returns 0 when it is not one or does not fit.
static inline int swkc_tpm_ecdsa_raw(const TPMT_SIGNATURE *signature, uint8_t *out, size_t width) {
    if (signature->sigAlg != TPM2_ALG_ECDSA) return 0;
    const TPM2B_ECC_PARAMETER *r = &signature->signature.ecdsa.signatureR;
    const TPM2B_ECC_PARAMETER *s = &signature->signature.ecdsa.signatureS;
    if (r->size > width || s->size > width) return 0;
    memset(out, 0, 2 * width);
    memcpy(out + width - r->size, r->buffer, r->size);
    memcpy(out + 2 * width - s->size, s->buffer, s->size);
    return 1;
}

#endif
