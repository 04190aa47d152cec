internal import COpenSSL

/// libcrypto's functions, opened with dlopen at the first use in the process (`copenssl_load` in the
/// COpenSSL shim) rather than linked, so that a process that never needs them does not load libcrypto
/// at start-up (docs/PERFORMANCE.md, "Size and start-up of the installed tools"). Every OpenSSL call of
/// this module goes through it: `libcrypto.EVP_PKEY_free(key)`.
// nonisolated(unsafe): immutable; the shim fills the table once, under pthread_once, before it is read.
nonisolated(unsafe) let libcrypto = copenssl_load().pointee
