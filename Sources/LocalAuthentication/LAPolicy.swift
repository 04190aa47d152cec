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
