#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H
// OpenSSL 3's libcrypto for SecKey, X.509 and PKCS #12 (KeychainCrypto only). Deprecated
// pre-3.0 interfaces (RSA *, EC_KEY *) are hidden so that nothing can use them by mistake.
#define OPENSSL_API_COMPAT 30000
#define OPENSSL_NO_DEPRECATED 1
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/dh.h>
#include <openssl/kdf.h>
#include <openssl/objects.h>
#include <openssl/params.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/provider.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

// libcrypto is not linked: it is opened with dlopen at its first use in the process (copenssl_load), so
// that a process that never signs, parses a certificate or opens a Secret Service DH session (security
// find-generic-password, the common case) does not load it at start-up: 3.1M instructions and 120 page
// faults of dynamic loading (docs/PERFORMANCE.md, "Size and start-up of the installed tools").
// Every libcrypto function the project calls (Swift calls them as `libcrypto.EVP_PKEY_free(…)`).
#define COPENSSL_FUNCTIONS(X) \
    X(ASN1_STRING_get0_data) X(ASN1_STRING_length) X(ASN1_STRING_to_UTF8) X(ASN1_STRING_type) X(BIO_ctrl) \
    X(BIO_free) X(BIO_new) X(BIO_s_mem) X(BIO_s_secmem) X(BIO_write) X(BN_bin2bn) X(BN_bn2binpad) \
    X(BN_clear_free) X(BN_cmp) X(BN_free) X(BN_get_rfc2409_prime_1024) X(BN_new) X(BN_secure_new) X(BN_set_word) \
    X(BN_sub_word) X(BN_value_one) X(CRYPTO_free) X(ECDSA_SIG_free) X(ECDSA_SIG_get0_r) X(ECDSA_SIG_get0_s) \
    X(ECDSA_SIG_new) X(ECDSA_SIG_set0) X(EC_GROUP_free) X(EC_GROUP_new_by_curve_name) X(EC_POINT_free) \
    X(EC_POINT_mul) X(EC_POINT_new) X(EC_POINT_point2oct) X(ERR_get_error) X(ERR_reason_error_string) \
    X(EVP_CIPHER_CTX_ctrl) X(EVP_CIPHER_CTX_free) X(EVP_CIPHER_CTX_new) X(EVP_CipherFinal_ex) \
    X(EVP_CipherInit_ex2) X(EVP_CipherUpdate) X(EVP_DecryptFinal_ex) X(EVP_DecryptInit_ex) X(EVP_DecryptUpdate) \
    X(EVP_Digest) X(EVP_EncryptFinal_ex) X(EVP_EncryptInit_ex) X(EVP_EncryptUpdate) X(EVP_KDF_CTX_free) \
    X(EVP_KDF_CTX_new) X(EVP_KDF_derive) X(EVP_KDF_fetch) X(EVP_KDF_free) X(EVP_PKCS82PKEY) X(EVP_PKEY_CTX_free) \
    X(EVP_PKEY_CTX_new_from_name) X(EVP_PKEY_CTX_new_from_pkey) X(EVP_PKEY_CTX_set_dh_pad) \
    X(EVP_PKEY_CTX_set_ecdh_cofactor_mode) X(EVP_PKEY_CTX_set_rsa_mgf1_md) X(EVP_PKEY_CTX_set_rsa_oaep_md) \
    X(EVP_PKEY_CTX_set_rsa_padding) X(EVP_PKEY_CTX_set_rsa_pss_saltlen) X(EVP_PKEY_CTX_set_signature_md) \
    X(EVP_PKEY_Q_keygen) X(EVP_PKEY_decrypt) X(EVP_PKEY_decrypt_init) X(EVP_PKEY_derive) X(EVP_PKEY_derive_init) \
    X(EVP_PKEY_derive_set_peer) X(EVP_PKEY_encrypt) X(EVP_PKEY_encrypt_init) X(EVP_PKEY_free) \
    X(EVP_PKEY_fromdata) X(EVP_PKEY_fromdata_init) X(EVP_PKEY_generate) X(EVP_PKEY_get_base_id) \
    X(EVP_PKEY_get_bits) X(EVP_PKEY_get_bn_param) X(EVP_PKEY_get_group_name) X(EVP_PKEY_get_size) \
    X(EVP_PKEY_get_utf8_string_param) X(EVP_PKEY_keygen_init) X(EVP_PKEY_pairwise_check) \
    X(EVP_PKEY_public_check) X(EVP_PKEY_sign) X(EVP_PKEY_sign_init) X(EVP_PKEY_todata) X(EVP_PKEY_verify) \
    X(EVP_PKEY_verify_init) X(EVP_Q_mac) X(EVP_aes_128_cbc) X(EVP_aes_128_gcm) X(EVP_aes_256_gcm) X(EVP_md5) \
    X(EVP_sha1) X(EVP_sha224) X(EVP_sha256) X(EVP_sha384) X(EVP_sha512) X(GENERAL_NAMES_free) \
    X(GENERAL_NAME_get0_value) X(OBJ_obj2nid) X(OBJ_sn2nid) X(OPENSSL_sk_new_null) X(OPENSSL_sk_num) \
    X(OPENSSL_sk_pop_free) X(OPENSSL_sk_push) X(OPENSSL_sk_value) X(OSSL_PARAM_BLD_free) X(OSSL_PARAM_BLD_new) \
    X(OSSL_PARAM_BLD_push_BN) X(OSSL_PARAM_BLD_push_octet_string) X(OSSL_PARAM_BLD_push_utf8_string) \
    X(OSSL_PARAM_BLD_to_param) X(OSSL_PARAM_construct_end) X(OSSL_PARAM_construct_octet_string) \
    X(OSSL_PARAM_construct_utf8_string) X(OSSL_PARAM_free) X(OSSL_PROVIDER_load) X(PEM_read_bio_X509) \
    X(PEM_write_bio_PrivateKey) X(PEM_write_bio_X509) X(PKCS12_SAFEBAG_free) X(PKCS12_SAFEBAG_get0_attr) \
    X(PKCS12_SAFEBAG_get0_p8inf) X(PKCS12_SAFEBAG_get0_safes) X(PKCS12_SAFEBAG_get1_cert) \
    X(PKCS12_SAFEBAG_get_bag_nid) X(PKCS12_SAFEBAG_get_nid) X(PKCS12_create) X(PKCS12_decrypt_skey) \
    X(PKCS12_free) X(PKCS12_get_friendlyname) X(PKCS12_mac_present) X(PKCS12_unpack_authsafes) \
    X(PKCS12_unpack_p7data) X(PKCS12_unpack_p7encdata) X(PKCS12_verify_mac) X(PKCS5_PBKDF2_HMAC) X(PKCS7_free) \
    X(PKCS8_PRIV_KEY_INFO_free) X(RAND_bytes) X(SHA256) X(X509_NAME_ENTRY_get_data) \
    X(X509_NAME_ENTRY_get_object) X(X509_NAME_ENTRY_set) X(X509_NAME_add_entry) X(X509_NAME_add_entry_by_OBJ) \
    X(X509_NAME_entry_count) X(X509_NAME_free) X(X509_NAME_get_entry) X(X509_NAME_get_index_by_NID) \
    X(X509_NAME_new) X(X509_NAME_print_ex) X(X509_free) X(X509_get0_pubkey_bitstr) X(X509_get0_serialNumber) \
    X(X509_get0_subject_key_id) X(X509_get_ext_d2i) X(X509_get_issuer_name) X(X509_get_pubkey) \
    X(X509_get_subject_name) X(X509_get_version) X(X509_up_ref) X(d2i_AutoPrivateKey) X(d2i_ECDSA_SIG) \
    X(d2i_PKCS12) X(d2i_PUBKEY) X(d2i_PrivateKey) X(d2i_PublicKey) X(d2i_X509) X(d2i_X509_NAME) \
    X(i2d_ASN1_INTEGER) X(i2d_ECDSA_SIG) X(i2d_PKCS12) X(i2d_PUBKEY) X(i2d_PrivateKey) X(i2d_PublicKey) \
    X(i2d_X509) X(i2d_X509_NAME)

// The loaded functions, with the headers' names and types.
struct copenssl_functions {
#define COPENSSL_FIELD(name) __typeof__(&name) _Nonnull name;
    COPENSSL_FUNCTIONS(COPENSSL_FIELD)
#undef COPENSSL_FIELD
};

// The one table of the process's copy of this header (a function-local static).
static inline struct copenssl_functions *copenssl_table(void) {
    static struct copenssl_functions table;
    return &table;
}

// Opens libcrypto and resolves every function, once (pthread_once in copenssl_load). libcrypto is a
// dependency of the package (Debian libssl3), as it was when linked: without it the process stops here
// with the loader's message, as the dynamic loader stopped it at start before.
static inline void copenssl_open(void) {
    void *library = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        fprintf(stderr, "libcrypto (Debian libssl3) is not installed: %s\n", dlerror());
        abort();
    }
    struct copenssl_functions *table = copenssl_table();
#define COPENSSL_RESOLVE(name) \
    *(void **)&table->name = dlsym(library, #name); \
    if (table->name == NULL) { \
        fprintf(stderr, "libcrypto.so.3 has no %s: OpenSSL 3 is needed\n", #name); \
        abort(); \
    }
    COPENSSL_FUNCTIONS(COPENSSL_RESOLVE)
#undef COPENSSL_RESOLVE
}

// libcrypto's functions, loaded at the first call in the process (thread-safe).
static inline const struct copenssl_functions *_Nonnull copenssl_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, copenssl_open);
    return copenssl_table();
}

// The helpers below call libcrypto through the table too (the OpenSSL macros they use expand to these names).
#define BIO_ctrl (copenssl_load()->BIO_ctrl)
#define CRYPTO_free (copenssl_load()->CRYPTO_free)
#define EVP_PKEY_Q_keygen (copenssl_load()->EVP_PKEY_Q_keygen)
#define GENERAL_NAMES_free (copenssl_load()->GENERAL_NAMES_free)
#define OBJ_obj2nid (copenssl_load()->OBJ_obj2nid)
#define PKCS12_SAFEBAG_free (copenssl_load()->PKCS12_SAFEBAG_free)
#define PKCS7_free (copenssl_load()->PKCS7_free)
#define X509_free (copenssl_load()->X509_free)
#define OPENSSL_sk_num (copenssl_load()->OPENSSL_sk_num)
#define OPENSSL_sk_value (copenssl_load()->OPENSSL_sk_value)
#define OPENSSL_sk_new_null (copenssl_load()->OPENSSL_sk_new_null)
#define OPENSSL_sk_push (copenssl_load()->OPENSSL_sk_push)
#define OPENSSL_sk_pop_free (copenssl_load()->OPENSSL_sk_pop_free)

// EVP_EC_gen is a macro over the variadic EVP_PKEY_Q_keygen.
static inline EVP_PKEY *copenssl_ec_generate(const char *group) { return EVP_EC_gen(group); }

// EVP_RSA_gen is a macro over the variadic EVP_PKEY_Q_keygen.
static inline EVP_PKEY *copenssl_rsa_generate(unsigned int bits) { return EVP_RSA_gen(bits); }

// OPENSSL_free is a macro (it passes __FILE__ and __LINE__ to CRYPTO_free).
static inline void copenssl_free(void *pointer) { OPENSSL_free(pointer); }

// The STACK_OF(X509) accessors are macros over the untyped OPENSSL_sk_* functions.
static inline int copenssl_x509_stack_count(const STACK_OF(X509) *stack) { return sk_X509_num(stack); }
static inline X509 *copenssl_x509_stack_value(const STACK_OF(X509) *stack, int index) { return sk_X509_value(stack, index); }
static inline STACK_OF(X509) *copenssl_x509_stack_new(void) { return sk_X509_new_null(); }
static inline int copenssl_x509_stack_push(STACK_OF(X509) *stack, X509 *certificate) { return sk_X509_push(stack, certificate); }
static inline void copenssl_x509_stack_free(STACK_OF(X509) *stack) { sk_X509_pop_free(stack, X509_free); }

// The STACK_OF(PKCS7) and STACK_OF(PKCS12_SAFEBAG) accessors of a PKCS #12 file's contents are macros.
static inline int copenssl_pkcs7_stack_count(const STACK_OF(PKCS7) *stack) { return sk_PKCS7_num(stack); }
static inline PKCS7 *copenssl_pkcs7_stack_value(const STACK_OF(PKCS7) *stack, int index) { return sk_PKCS7_value(stack, index); }
static inline void copenssl_pkcs7_stack_free(STACK_OF(PKCS7) *stack) { sk_PKCS7_pop_free(stack, PKCS7_free); }
static inline int copenssl_safebag_stack_count(const STACK_OF(PKCS12_SAFEBAG) *stack) { return sk_PKCS12_SAFEBAG_num(stack); }
static inline PKCS12_SAFEBAG *copenssl_safebag_stack_value(const STACK_OF(PKCS12_SAFEBAG) *stack, int index) { return sk_PKCS12_SAFEBAG_value(stack, index); }
static inline void copenssl_safebag_stack_free(STACK_OF(PKCS12_SAFEBAG) *stack) { sk_PKCS12_SAFEBAG_pop_free(stack, PKCS12_SAFEBAG_free); }
// PKCS7_type_is_data/encrypted are macros over the content type field.
static inline int copenssl_pkcs7_type(const PKCS7 *p7) { return OBJ_obj2nid(p7->type); }
// A localKeyID attribute's octets (ASN1_TYPE's value is a union).
static inline const ASN1_OCTET_STRING *copenssl_type_octets(const ASN1_TYPE *type) {
    return (type != NULL && type->type == V_ASN1_OCTET_STRING) ? type->value.octet_string : NULL;
}

// The STACK_OF(GENERAL_NAME) accessors are macros too.
static inline int copenssl_general_names_count(const GENERAL_NAMES *names) { return sk_GENERAL_NAME_num(names); }
static inline GENERAL_NAME *copenssl_general_names_value(const GENERAL_NAMES *names, int index) { return sk_GENERAL_NAME_value(names, index); }
static inline void copenssl_general_names_free(GENERAL_NAMES *names) { GENERAL_NAMES_free(names); }

// BIO_get_mem_data is a macro over the variadic-style BIO_ctrl.
static inline long copenssl_bio_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }

// XN_FLAG_RFC2253 is a macro of macros that Swift does not import.
static inline unsigned long copenssl_name_flags_rfc2253(void) { return XN_FLAG_RFC2253; }

// OSSL_PARAM keys must outlive the parameter arrays that point to them (OSSL_PARAM_BLD and
// OSSL_PARAM_construct_* keep the pointer); Swift string arguments are temporaries, so the
// parameter names come from here as static strings.
static inline const char *copenssl_param_group(void) { return OSSL_PKEY_PARAM_GROUP_NAME; }
static inline const char *copenssl_param_pub(void) { return OSSL_PKEY_PARAM_PUB_KEY; }
static inline const char *copenssl_param_priv(void) { return OSSL_PKEY_PARAM_PRIV_KEY; }
static inline const char *copenssl_param_encoding(void) { return OSSL_PKEY_PARAM_EC_ENCODING; }
static inline const char *copenssl_param_digest(void) { return OSSL_KDF_PARAM_DIGEST; }
static inline const char *copenssl_param_key(void) { return OSSL_KDF_PARAM_KEY; }
static inline const char *copenssl_param_info(void) { return OSSL_KDF_PARAM_INFO; }

// ERR_GET_REASON is a macro (inline function in 3.0, but keep one entry point for the library's errors).
static inline int copenssl_err_reason(unsigned long error) { return ERR_GET_REASON(error); }
static inline int copenssl_err_lib(unsigned long error) { return ERR_GET_LIB(error); }

// EVP_PKEY_KEY_PARAMETERS and EVP_PKEY_PUBLIC_KEY are macros built from OR-ed selection bits
// (the Secret Service DH session builds group-2 keys with EVP_PKEY_fromdata).
static inline int copenssl_selection_key_parameters(void) { return EVP_PKEY_KEY_PARAMETERS; }
static inline int copenssl_selection_public_key(void) { return EVP_PKEY_PUBLIC_KEY; }

#endif
