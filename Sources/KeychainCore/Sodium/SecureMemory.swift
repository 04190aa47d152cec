// KeychainCore's secrets are SecureBytes from KeychainSecureMemory, the package's one zeroising byte
// type; re-exported so that every module over the engine sees it as before.
@_exported public import KeychainSecureMemory
