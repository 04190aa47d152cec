#ifndef CTSS2_SHIM_H
#define CTSS2_SHIM_H
// tpm2-tss's ESAPI and TCTI loader (Debian libtss2-dev). The TPM's structures are nested unions and
// fixed arrays that Swift imports as tuples: these helpers fill and copy them, and nothing else.
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_rc.h>
#include <tss2/tss2_tctildr.h>

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

// Marshals a sealed object's public and private parts into one blob; returns its length, 0 when it does not fit.
static inline size_t swkc_tpm_marshal(const TPM2B_PUBLIC *pub, const TPM2B_PRIVATE *priv, uint8_t *buffer, size_t size) {
    size_t offset = 0;
    if (Tss2_MU_TPM2B_PUBLIC_Marshal(pub, buffer, size, &offset) != TSS2_RC_SUCCESS) return 0;
    if (Tss2_MU_TPM2B_PRIVATE_Marshal(priv, buffer, size, &offset) != TSS2_RC_SUCCESS) return 0;
    return offset;
}

// Reverses swkc_tpm_marshal; returns 0 when the blob is malformed or has trailing bytes.
static inline int swkc_tpm_unmarshal(const uint8_t *buffer, size_t size, TPM2B_PUBLIC *pub, TPM2B_PRIVATE *priv) {
    size_t offset = 0;
    memset(pub, 0, sizeof *pub);
    memset(priv, 0, sizeof *priv);
    if (Tss2_MU_TPM2B_PUBLIC_Unmarshal(buffer, size, &offset, pub) != TSS2_RC_SUCCESS) return 0;
    if (Tss2_MU_TPM2B_PRIVATE_Unmarshal(buffer, size, &offset, priv) != TSS2_RC_SUCCESS) return 0;
    return offset == size;
}

#endif
