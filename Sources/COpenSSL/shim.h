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
