/// The type of authentication to evaluate (LAPublicDefines.h; https://developer.apple.com/documentation/localauthentication/lapolicy).
public enum LAPolicy: Int, Sendable, Hashable {
    /// Biometry only (`kLAPolicyDeviceOwnerAuthenticationWithBiometrics` = 1). Never available on
    /// Linux: it behaves as an Apple device with no enrolled biometry (`LAError.Code.biometryNotEnrolled`).
    case deviceOwnerAuthenticationWithBiometrics = 1
    /// Biometry, watch or device passcode (`kLAPolicyDeviceOwnerAuthentication` = 2). On Linux: the
    /// keychain password, asked for through pinentry.
    case deviceOwnerAuthentication = 2
    /// A paired watch (= 3). Never available on Linux (`LAError.Code.watchNotAvailable`).
    case deviceOwnerAuthenticationWithWatch = 3
    /// Biometry or a paired watch (= 4). Never available on Linux (`LAError.Code.biometryNotEnrolled`).
    case deviceOwnerAuthenticationWithBiometricsOrWatch = 4
    /// Wrist detection on a paired watch (= 5). Never available on Linux (`LAError.Code.watchNotAvailable`).
    case deviceOwnerAuthenticationWithWristDetection = 5
}

/// The type of a credential set with `LAContext.setCredential(_:type:)` (LAPublicDefines.h).
public enum LACredentialType: Int, Sendable, Hashable {
    /// An application password (`kLACredentialTypeApplicationPassword` = 0), for items whose access
    /// control has `.applicationPassword`.
    case applicationPassword = 0
    /// A smart card PIN (`kLACredentialTypeSmartCardPIN` = -3). Not used on Linux.
    case smartCardPIN = -3
}

/// The biometry a device supports (https://developer.apple.com/documentation/localauthentication/labiometrytype).
public enum LABiometryType: Int, Sendable, Hashable {
    /// No biometry: always the value on Linux.
    case none = 0
    /// Touch ID.
    case touchID = 1
    /// Face ID.
    case faceID = 2
    /// Optic ID.
    case opticID = 4
}
