public import Foundation

// CFError.h on Linux. `CFError` is Foundation's `NSError` (toll-free bridged on Apple platforms), so
// `error.takeRetainedValue() as Error`, `CFErrorGetCode(error)` and `(error as Error).localizedDescription`
// all work. Security functions report `OSStatus` failures in `kCFErrorDomainOSStatus`, as Apple's
// `SecError` does (utilities/SecCFError.c), with the message in `kCFErrorDescriptionKey`.

/// An error object: a domain, a code and a user-info dictionary (https://developer.apple.com/documentation/corefoundation/cferror).
public typealias CFError = NSError
/// An error domain name.
public typealias CFErrorDomain = CFString

// `nonisolated(unsafe)` on the constants below: immutable `NSString`s (not declared `Sendable` by
// Foundation), never mutated, so sharing them across threads is safe.

/// The domain of errors whose code is an `OSStatus` (`"NSOSStatusErrorDomain"`), used by every Security call.
nonisolated(unsafe) public let kCFErrorDomainOSStatus: CFErrorDomain = "NSOSStatusErrorDomain"
/// The domain of POSIX `errno` codes (`"NSPOSIXErrorDomain"`).
nonisolated(unsafe) public let kCFErrorDomainPOSIX: CFErrorDomain = "NSPOSIXErrorDomain"
/// User-info key of the human-readable description (`"NSDescription"`).
nonisolated(unsafe) public let kCFErrorDescriptionKey: CFString = "NSDescription"
/// User-info key of the localized description (`"NSLocalizedDescription"`).
nonisolated(unsafe) public let kCFErrorLocalizedDescriptionKey: CFString = "NSLocalizedDescription"
/// User-info key of the underlying error (`"NSUnderlyingError"`).
nonisolated(unsafe) public let kCFErrorUnderlyingErrorKey: CFString = "NSUnderlyingError"

/// Creates an error object.
///
/// Follows CFError.h `CFErrorCreate`.
/// - Parameters:
///   - allocator: ignored (`kCFAllocatorDefault` or `nil`).
///   - domain: the error domain, e.g. `kCFErrorDomainOSStatus`.
///   - code: the error code.
///   - userInfo: `String`-keyed details, or `nil`.
/// - Returns: the new error; `nil` when `domain` is `nil`.
public func CFErrorCreate(
    _ allocator: CFAllocator!, _ domain: CFErrorDomain!, _ code: CFIndex, _ userInfo: CFDictionary!
) -> CFError! {
    guard let domain else { return nil }
    var info: [String: Any] = [:]
    userInfo?.enumerateKeysAndObjects { key, value, _ in
        if let key = key as? String { info[key] = value }
    }
    return NSError(domain: domain as String, code: code, userInfo: info)
}

/// Returns the error's domain.
///
/// Follows CFError.h `CFErrorGetDomain`.
/// - Parameter err: the error.
/// - Returns: its domain, e.g. `kCFErrorDomainOSStatus` for errors from Security functions.
public func CFErrorGetDomain(_ err: CFError!) -> CFErrorDomain! {
    err.domain._bridgeToObjectiveC()
}

/// Returns the error's code.
///
/// Follows CFError.h `CFErrorGetCode`.
/// - Parameter err: the error.
/// - Returns: its code; for Security functions an `OSStatus` such as `errSecParam` (-50).
public func CFErrorGetCode(_ err: CFError!) -> CFIndex {
    err.code
}

/// Returns a copy of the error's user-info dictionary.
///
/// Follows CFError.h `CFErrorCopyUserInfo`.
/// - Parameter err: the error.
/// - Returns: its user info (empty when it has none), never `nil`.
public func CFErrorCopyUserInfo(_ err: CFError!) -> CFDictionary! {
    NSDictionary(dictionary: err.userInfo)
}

/// Returns a human-readable description of the error.
///
/// Follows CFError.h `CFErrorCopyDescription`.
/// - Parameter err: the error.
/// - Returns: its localized description.
public func CFErrorCopyDescription(_ err: CFError!) -> CFString! {
    err.localizedDescription._bridgeToObjectiveC()
}

/// Returns the error's failure reason, if it has one.
///
/// Follows CFError.h `CFErrorCopyFailureReason` (the `NSLocalizedFailureReason` user-info entry).
/// - Parameter err: the error.
/// - Returns: the reason, or `nil`.
public func CFErrorCopyFailureReason(_ err: CFError!) -> CFString! {
    err.localizedFailureReason?._bridgeToObjectiveC()
}

/// Returns the error's recovery suggestion, if it has one.
///
/// Follows CFError.h `CFErrorCopyRecoverySuggestion` (the `NSLocalizedRecoverySuggestion` user-info entry).
/// - Parameter err: the error.
/// - Returns: the suggestion, or `nil`.
public func CFErrorCopyRecoverySuggestion(_ err: CFError!) -> CFString! {
    err.localizedRecoverySuggestion?._bridgeToObjectiveC()
}

// MARK: - Internal

extension CFError {
    /// An `OSStatus` error as Apple's `SecError` makes it: domain `kCFErrorDomainOSStatus`, the status
    /// as code, and a non-secret message under `kCFErrorDescriptionKey`.
    static func osStatus(_ status: OSStatus, _ message: String) -> CFError {
        NSError(
            domain: kCFErrorDomainOSStatus as String, code: Int(status),
            userInfo: [kCFErrorDescriptionKey as String: message, NSLocalizedDescriptionKey: message])
    }

    /// Stores a retained `OSStatus` error in `pointer`, when one was given (the create rule of
    /// `CFErrorRef *` out-parameters), and returns `nil` for the caller to return.
    static func report<T>(
        _ status: OSStatus, _ message: String, to pointer: UnsafeMutablePointer<Unmanaged<CFError>?>?
    ) -> T? {
        pointer?.pointee = Unmanaged.passRetained(osStatus(status, message))
        return nil
    }
}
