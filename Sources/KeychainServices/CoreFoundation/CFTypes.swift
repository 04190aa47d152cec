public import Foundation

// The Core Foundation names that Swift code written against Apple's Security framework uses,
// mapped to Foundation types so that such code compiles on Linux unchanged:
//
//     var result: CFTypeRef?
//     let status = SecItemCopyMatching(query as CFDictionary, &result)
//     let data = result as? Data
//
// On Apple platforms these are toll-free bridged to the Foundation classes (CFString ⇄ NSString,
// CFDictionary ⇄ NSDictionary, CFError ⇄ NSError); here they *are* those classes. So a `kSec…`
// constant (a `CFString`) works both as `kSecClass as String` and where `AnyObject`/`CFTypeRef` is
// expected, as on iOS (CFBase.h, CFString.h; https://developer.apple.com/documentation/corefoundation).

/// Core Foundation's root type: any object (`NSData`, `NSDictionary`, `NSArray`, `NSNumber`, …).
public typealias CFTypeRef = AnyObject
/// A dictionary passed to or returned from SecItem calls.
public typealias CFDictionary = NSDictionary
/// An array returned under `kSecMatchLimitAll`.
public typealias CFArray = NSArray
/// Bytes: secrets, persistent references, and `Data`-typed attributes.
public typealias CFData = NSData
/// A string. As on Apple platforms it is a class (`NSString`): `kSecClass as String` and
/// `kSecClass as AnyObject` both compile.
public typealias CFString = NSString
/// A boolean value (`kCFBooleanTrue`, `kCFBooleanFalse`).
public typealias CFBoolean = NSNumber
/// A number value.
public typealias CFNumber = NSNumber
/// A date value (`kSecAttrCreationDate`, `kSecAttrModificationDate`).
public typealias CFDate = NSDate
/// The result code of every Security call; `errSecSuccess` (0) is success.
public typealias OSStatus = Int32
/// Core Foundation's signed index and count type (CFBase.h: `signed long`).
public typealias CFIndex = Int
/// Core Foundation's bit-field type for options (CFBase.h: `unsigned long`).
public typealias CFOptionFlags = UInt
/// Core Foundation's type identifier (CFBase.h: `unsigned long`).
public typealias CFTypeID = UInt

/// Core Foundation's `true`. Typed `CFBoolean!` as Swift imports it from CFNumber.h, so both
/// `kCFBooleanTrue` and `kCFBooleanTrue!` compile.
public let kCFBooleanTrue: CFBoolean! = NSNumber(value: true)
/// Core Foundation's `false`, typed `CFBoolean!` as on Apple platforms.
public let kCFBooleanFalse: CFBoolean! = NSNumber(value: false)

/// Returns the value of a `CFBoolean`.
///
/// Follows CFNumber.h `CFBooleanGetValue`.
/// - Parameter boolean: `kCFBooleanTrue`, `kCFBooleanFalse`, or any `CFBoolean`.
/// - Returns: its value.
public func CFBooleanGetValue(_ boolean: CFBoolean!) -> Bool {
    boolean.boolValue
}

/// No error (Carbon's name for `errSecSuccess`).
public let noErr: OSStatus = 0

/// Returns the type identifier of a Core Foundation object (CFBase.h `CFGetTypeID`), to compare with
/// `SecKeyGetTypeID()`, `SecCertificateGetTypeID()`, `SecIdentityGetTypeID()` and
/// `SecAccessControlGetTypeID()`, as `CFGetTypeID(ref) == SecKeyGetTypeID()` does on Apple platforms.
/// - Parameter cf: the object; `nil` gives 0.
/// - Returns: an identifier of the object's class, stable for the life of the process (not Apple's values).
public func CFGetTypeID(_ cf: CFTypeRef?) -> CFTypeID {
    guard let cf else { return 0 }
    return CFTypeID(bitPattern: ObjectIdentifier(type(of: cf)).hashValue)
}

/// Whether two Core Foundation objects are equal (CFBase.h `CFEqual`): the same object, or equal
/// values of one kind (strings by their characters, numbers and booleans by value, data by bytes,
/// dictionaries and arrays by their contents, keys and certificates by their key or DER).
///
/// As on Apple platforms, a `CFBoolean` never equals a `CFNumber`: `CFEqual(kCFBooleanTrue, 1 as NSNumber)`
/// is `false`.
/// - Parameters:
///   - cf1: the first object; `nil` equals only `nil` (Apple's crashes on `NULL`).
///   - cf2: the second object.
/// - Returns: `true` when the objects are equal.
public func CFEqual(_ cf1: CFTypeRef!, _ cf2: CFTypeRef!) -> Bool {
    switch (cf1, cf2) {
    case (nil, nil): return true
    case (nil, _), (_, nil): return false
    case (let a?, let b?):
        if a === b { return true }
        guard let a = a as? AnyHashable, let b = b as? AnyHashable else { return false }
        return a == b
    }
}
