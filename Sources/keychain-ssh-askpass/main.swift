// keychain-ssh-askpass: SSH_ASKPASS for ssh-add that answers from the login keychain (docs/PAM.md).
internal import KeychainSSHAskpass

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

exit(SSHAskpass.main(arguments: CommandLine.arguments))
