/// An `OSStatus` the engine reports, with Apple's value and SecBase.h message.
///
/// Values and messages are Apple's (SecBase.h, macOS 10.15 SDK). `KeychainServices` exposes
/// them under their `errSec…` names; the CLI prints ``message`` and exits with the low 8 bits.
///
/// The engine never throws it: its error is ``KeychainFailure``, which carries a status. It is an
/// `Error` for the SecItem layer (`KeychainServices`), whose whole error model is the `OSStatus` its
/// functions return, so its request parsing throws the status itself (one error type per layer).
package struct KeychainStatus: Error, Hashable, Sendable, CustomStringConvertible {
    /// The `OSStatus` value.
    package let rawValue: Int32

    package init(_ rawValue: Int32) { self.rawValue = rawValue }

    package static let success = KeychainStatus(0)
    package static let unimplemented = KeychainStatus(-4)
    package static let diskFull = KeychainStatus(-34)
    package static let io = KeychainStatus(-36)
    package static let param = KeychainStatus(-50)
    package static let allocate = KeychainStatus(-108)
    package static let internalComponent = KeychainStatus(-2070)
    package static let userCanceled = KeychainStatus(-128)
    package static let notAvailable = KeychainStatus(-25291)
    package static let readOnly = KeychainStatus(-25292)
    package static let authFailed = KeychainStatus(-25293)
    package static let noSuchKeychain = KeychainStatus(-25294)
    package static let invalidKeychain = KeychainStatus(-25295)
    package static let duplicateKeychain = KeychainStatus(-25296)
    package static let duplicateItem = KeychainStatus(-25299)
    package static let itemNotFound = KeychainStatus(-25300)
    package static let dataTooLarge = KeychainStatus(-25302)
    package static let noSuchAttr = KeychainStatus(-25303)
    package static let noSuchClass = KeychainStatus(-25306)
    package static let noDefaultKeychain = KeychainStatus(-25307)
    package static let interactionNotAllowed = KeychainStatus(-25308)
    package static let wrongSecVersion = KeychainStatus(-25310)
    package static let noAccessForItem = KeychainStatus(-25243)
    package static let decode = KeychainStatus(-26275)
    package static let missingEntitlement = KeychainStatus(-34018)

    /// The message SecBase.h gives for this status, or a generic one for values it does not list.
    package var message: String {
        Self.messages[rawValue] ?? "OSStatus \(rawValue)"
    }

    package var description: String { "\(message) (\(rawValue))" }

    private static let messages: [Int32: String] = [
        0: "No error.",
        -4: "Function or operation not implemented.",
        -34: "The disk is full.",
        -36: "I/O error.",
        -49: "File already open with write permission.",
        -50: "One or more parameters passed to a function were not valid.",
        -61: "Write permissions error.",
        -108: "Failed to allocate memory.",
        -128: "User canceled the operation.",
        -2070: "An internal component failed.",
        -909: "Bad parameter or invalid state for operation.",
        -34018: "A required entitlement isn't present.",
        -25291: "No keychain is available. You may need to restart your computer.",
        -25292: "This keychain cannot be modified.",
        -25293: "The user name or passphrase you entered is not correct.",
        -25294: "The specified keychain could not be found.",
        -25295: "The specified keychain is not a valid keychain file.",
        -25296: "A keychain with the same name already exists.",
        -25297: "The specified callback function is already installed.",
        -25298: "The specified callback function is not valid.",
        -25299: "The specified item already exists in the keychain.",
        -25300: "The specified item could not be found in the keychain.",
        -25301: "There is not enough memory available to use the specified item.",
        -25302: "This item contains information which is too large or in a format that cannot be displayed.",
        -25303: "The specified attribute does not exist.",
        -25304: "The specified item is no longer valid. It may have been deleted from the keychain.",
        -25305: "Unable to search the current keychain.",
        -25306: "The specified item does not appear to be a valid keychain item.",
        -25307: "A default keychain could not be found.",
        -25308: "User interaction is not allowed.",
        -25309: "The specified attribute could not be modified.",
        -25310: "This keychain was created by a different version of the system software and cannot be opened.",
        -25315: "User interaction is required, but is currently not allowed.",
        -25316: "The contents of this item cannot be retrieved.",
        -25317: "The contents of this item cannot be modified.",
        -25243: "The specified item has no access control.",
        -25244: "Invalid attempt to change the owner of this item.",
        -25256: "Import/Export format unsupported.",
        -25257: "Unknown format in import.",
        -25260: "Passphrase is required for import/export.",
        -26275: "Unable to decode the provided data.",
    ]
}
