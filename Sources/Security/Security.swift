// The module Apple's code imports: `import Security` compiles unchanged on Linux.
//
// It re-exports `KeychainServices` (SecItem functions, `kSec…` constants, `errSec…` codes, the CF
// names, `SecAccessControl`, `SecRandomCopyBytes`). Apple's Security framework is
// https://developer.apple.com/documentation/security; the differences on Linux are listed in the
// porting guide of this module's documentation catalog.
@_exported public import KeychainServices
