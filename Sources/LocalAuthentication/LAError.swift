public import Foundation

/// The error domain of LocalAuthentication errors (`"com.apple.LocalAuthentication"`).
public let LAErrorDomain = "com.apple.LocalAuthentication"

/// An error from `LAContext`, with Apple's codes (LAError.h;
/// https://developer.apple.com/documentation/localauthentication/laerror).
///
/// As on Apple platforms, `catch LAError.userCancel` and `error.code == .passcodeNotSet` both work,
/// and the error bridges to an `NSError` in ``LAErrorDomain``.
public struct LAError: Error, Hashable, Sendable, CustomNSError {
    /// LAError.h's codes.
    public enum Code: Int, Sendable, Hashable {
        /// The user gave wrong credentials (-1). On Linux: three wrong keychain passwords.
        case authenticationFailed = -1
        /// The user canceled (-2).
        case userCancel = -2
        /// The user chose the fallback (-3).
        case userFallback = -3
        /// The system canceled (-4).
        case systemCancel = -4
        /// No passcode is set (-5). On Linux: the keychain has no password.
        case passcodeNotSet = -5
        /// Biometry is not available (-6).
        case biometryNotAvailable = -6
        /// No biometry is enrolled (-7): always, on Linux.
        case biometryNotEnrolled = -7
        /// Biometry is locked out (-8).
        case biometryLockout = -8
        /// The app canceled (-9).
        case appCancel = -9
        /// The context was invalidated (-10).
        case invalidContext = -10
        /// No paired watch is available (-11).
        case watchNotAvailable = -11
        /// No paired biometric accessory (-12).
        case biometryNotPaired = -12
        /// The biometric accessory is disconnected (-13).
        case biometryDisconnected = -13
        /// Invalid dimensions (-14).
        case invalidDimensions = -14
        /// Interaction was needed but not allowed (-1004): `interactionNotAllowed`, or no prompt can be shown.
        case notInteractive = -1004

        /// Deprecated name of ``biometryNotAvailable``.
        public static let touchIDNotAvailable = Code.biometryNotAvailable
        /// Deprecated name of ``biometryNotEnrolled``.
        public static let touchIDNotEnrolled = Code.biometryNotEnrolled
        /// Deprecated name of ``biometryLockout``.
        public static let touchIDLockout = Code.biometryLockout
    }

    /// The code.
    public let code: Code

    /// Creates an error with `code`.
    public init(_ code: Code) { self.code = code }

    public static var errorDomain: String { LAErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] {
        [NSLocalizedDescriptionKey: "LocalAuthentication error \(code.rawValue)"]
    }

    public static let authenticationFailed = Code.authenticationFailed
    public static let userCancel = Code.userCancel
    public static let userFallback = Code.userFallback
    public static let systemCancel = Code.systemCancel
    public static let passcodeNotSet = Code.passcodeNotSet
    public static let biometryNotAvailable = Code.biometryNotAvailable
    public static let biometryNotEnrolled = Code.biometryNotEnrolled
    public static let biometryLockout = Code.biometryLockout
    public static let touchIDNotAvailable = Code.biometryNotAvailable
    public static let touchIDNotEnrolled = Code.biometryNotEnrolled
    public static let touchIDLockout = Code.biometryLockout
    public static let appCancel = Code.appCancel
    public static let invalidContext = Code.invalidContext
    public static let watchNotAvailable = Code.watchNotAvailable
    public static let biometryNotPaired = Code.biometryNotPaired
    public static let biometryDisconnected = Code.biometryDisconnected
    public static let invalidDimensions = Code.invalidDimensions
    public static let notInteractive = Code.notInteractive
}

extension LAError.Code {
    /// Matches `catch LAError.userCancel` against any error with that code in ``LAErrorDomain``.
    public static func ~= (code: LAError.Code, error: any Error) -> Bool {
        if let error = error as? LAError { return error.code == code }
        let bridged = error as NSError
        return bridged.domain == LAErrorDomain && bridged.code == code.rawValue
    }
}
