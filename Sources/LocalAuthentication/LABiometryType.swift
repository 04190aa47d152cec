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
