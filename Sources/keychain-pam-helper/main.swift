// keychain-pam-helper: the program pam_keychain.so starts as the user (docs/PAM.md). It reads one
// HelperMessage from standard input, carries it out, prints one line saying what it did, and exits
// 0 (done), 1 (the login password does not open the login keychain), 2 (malformed message) or 3.
internal import KeychainPAM

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

exit(HelperMain.run())
