public import Foundation
internal import KeychainCore

// Result codes with Apple's values and SecBase.h meanings (macOS 10.15 SDK, SecBase.h).

/// No error.
public let errSecSuccess: OSStatus = 0
/// Function or operation not implemented. Returned for Apple features this keychain does not
/// implement: certificate, key and identity items.
public let errSecUnimplemented: OSStatus = -4
/// The disk is full.
public let errSecDiskFull: OSStatus = -34
/// I/O error.
public let errSecIO: OSStatus = -36
/// One or more parameters passed to a function were not valid.
public let errSecParam: OSStatus = -50
/// Failed to allocate memory.
public let errSecAllocate: OSStatus = -108
/// User canceled the operation.
public let errSecUserCanceled: OSStatus = -128
/// Bad parameter or invalid state for operation.
public let errSecBadReq: OSStatus = -909
/// A required entitlement isn't present.
public let errSecMissingEntitlement: OSStatus = -34018
/// No keychain is available.
public let errSecNotAvailable: OSStatus = -25291
/// This keychain cannot be modified.
public let errSecReadOnly: OSStatus = -25292
/// The user name or passphrase you entered is not correct.
public let errSecAuthFailed: OSStatus = -25293
/// The specified keychain could not be found.
public let errSecNoSuchKeychain: OSStatus = -25294
/// The specified keychain is not a valid keychain file.
public let errSecInvalidKeychain: OSStatus = -25295
/// A keychain with the same name already exists.
public let errSecDuplicateKeychain: OSStatus = -25296
/// The specified item already exists in the keychain.
public let errSecDuplicateItem: OSStatus = -25299
/// The specified item could not be found in the keychain.
public let errSecItemNotFound: OSStatus = -25300
/// There is not enough memory available to use the specified item.
public let errSecBufferTooSmall: OSStatus = -25301
/// This item contains information which is too large or in a format that cannot be displayed.
public let errSecDataTooLarge: OSStatus = -25302
/// The specified attribute does not exist.
public let errSecNoSuchAttr: OSStatus = -25303
/// The specified item is no longer valid.
public let errSecInvalidItemRef: OSStatus = -25304
/// The specified item does not appear to be a valid keychain item.
public let errSecNoSuchClass: OSStatus = -25306
/// A default keychain could not be found.
public let errSecNoDefaultKeychain: OSStatus = -25307
/// User interaction is not allowed: the item's protection class is locked, or the item needs
/// authentication and `kSecUseAuthenticationUI` is `kSecUseAuthenticationUIFail` (or no prompter is
/// available).
public let errSecInteractionNotAllowed: OSStatus = -25308
/// This keychain was created by a different version of the system software and cannot be opened.
public let errSecWrongSecVersion: OSStatus = -25310
/// An internal component failed (SecBase.h `errSecInternalComponent`).
public let errSecInternalComponent: OSStatus = -2070
/// The specified item has no access control.
public let errSecNoAccessForItem: OSStatus = -25243
/// Unable to decode the provided data.
public let errSecDecode: OSStatus = -26275

/// Returns a string explaining the meaning of a result code.
///
/// Follows Apple's `SecCopyErrorMessageString` (SecBase.h): the message is the one SecBase.h gives
/// for the code. For a code it does not know it returns `"OSStatus <code>"`.
/// - Parameters:
///   - status: a result code.
///   - reserved: must be `nil`.
/// - Returns: the message; never `nil` on Linux.
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
    KeychainStatus(status).message._bridgeToObjectiveC()
}
