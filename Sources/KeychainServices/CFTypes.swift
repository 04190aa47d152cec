public import Foundation

// The Core Foundation names that Swift code written against Apple's Security framework uses,
// mapped to Foundation types so that such code compiles on Linux unchanged:
//
//     var result: CFTypeRef?
//     let status = SecItemCopyMatching(query as CFDictionary, &result)
//     let data = result as? Data
//
// Difference from Apple: `CFString` is Swift's `String` (toll-free on Apple platforms), so the
// `kSec…` constants are plain Sendable strings; `kSecClass as String` still compiles.

/// Core Foundation's root type: any object (`NSData`, `NSDictionary`, `NSArray`, `NSNumber`, …).
public typealias CFTypeRef = AnyObject
/// A dictionary passed to or returned from SecItem calls.
public typealias CFDictionary = NSDictionary
/// An array returned under `kSecMatchLimitAll`.
public typealias CFArray = NSArray
/// Bytes: secrets, persistent references, and `Data`-typed attributes.
public typealias CFData = NSData
/// A string. On Linux this is Swift's `String`.
public typealias CFString = String
/// A boolean value (`kCFBooleanTrue`, `kCFBooleanFalse`).
public typealias CFBoolean = NSNumber
/// A number value.
public typealias CFNumber = NSNumber
/// A date value (`kSecAttrCreationDate`, `kSecAttrModificationDate`).
public typealias CFDate = NSDate
/// The result code of every Security call; `errSecSuccess` (0) is success.
public typealias OSStatus = Int32

/// Core Foundation's `true`.
public let kCFBooleanTrue: CFBoolean = NSNumber(value: true)
/// Core Foundation's `false`.
public let kCFBooleanFalse: CFBoolean = NSNumber(value: false)

/// No error (Carbon's name for `errSecSuccess`).
public let noErr: OSStatus = 0
