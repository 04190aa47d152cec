package import KeychainSecureMemory

/// Private key material (an external representation, a derived secret): the package's one
/// zeroising byte type, ``SecureBytes`` (`sodium_malloc` storage, wiped with `sodium_memzero` when
/// released), under the name KeychainCrypto's operations have used. Callers keep the bytes as they
/// are; nothing is copied from one zeroising type into another.
///
/// - Important: Anything copied out of `withUnsafeBytes` is outside its protection.
package typealias SensitiveBytes = SecureBytes
