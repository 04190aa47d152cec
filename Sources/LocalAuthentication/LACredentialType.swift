/// The type of a credential set with `LAContext.setCredential(_:type:)` (LAPublicDefines.h).
public enum LACredentialType: Int, Sendable, Hashable {
    /// An application password (`kLACredentialTypeApplicationPassword` = 0), for items whose access
    /// control has `.applicationPassword`.
    case applicationPassword = 0
    /// A smart card PIN (`kLACredentialTypeSmartCardPIN` = -3). Not used on Linux.
    case smartCardPIN = -3
}
