public import Foundation

// CFBundle.h's main-bundle calls, for code that reads its bundle identifier or Info.plist values the
// Core Foundation way (`CFBundleGetValueForInfoDictionaryKey(CFBundleGetMainBundle(), kCFBundleIdentifierKey)`,
// as Apple's KeychainItemWrapper sample and Locksmith-style wrappers derive their service names).

/// A bundle (CFBundle.h `CFBundleRef`): Foundation's `Bundle`, as toll-free as Apple's `CFBundle` is to
/// `NSBundle` for these calls.
public typealias CFBundle = Bundle

/// Returns the application's main bundle.
///
/// Follows CFBundle.h `CFBundleGetMainBundle`. On Linux this is `Bundle.main`: the folder of the
/// executable, whose Info.plist (if one lies beside it) gives the identifier and the other keys.
/// - Returns: the main bundle (never `nil` here; typed `CFBundle!` as Swift imports it).
public func CFBundleGetMainBundle() -> CFBundle! { Bundle.main }

/// Returns a bundle's identifier.
///
/// Follows CFBundle.h `CFBundleGetIdentifier`: the Info.plist's `CFBundleIdentifier`.
/// - Parameter bundle: the bundle.
/// - Returns: the identifier, or `nil` when the bundle has none (a program without an Info.plist).
public func CFBundleGetIdentifier(_ bundle: CFBundle!) -> CFString! {
    bundle.bundleIdentifier.map { NSString(string: $0) }
}

/// Returns a value of a bundle's Info.plist.
///
/// Follows CFBundle.h `CFBundleGetValueForInfoDictionaryKey` (localized values first, as `NSBundle`'s
/// `object(forInfoDictionaryKey:)`).
/// - Parameters:
///   - bundle: the bundle.
///   - key: the key, such as `kCFBundleIdentifierKey` or `kCFBundleVersionKey`.
/// - Returns: the value (a string, number, array or dictionary), or `nil` when the key is absent.
public func CFBundleGetValueForInfoDictionaryKey(_ bundle: CFBundle!, _ key: CFString!) -> CFTypeRef! {
    bundle.object(forInfoDictionaryKey: String(key)).map { $0 as AnyObject }
}

/// Returns a bundle's Info.plist.
///
/// Follows CFBundle.h `CFBundleGetInfoDictionary`.
/// - Parameter bundle: the bundle.
/// - Returns: the Info.plist's keys and values; empty for a program without one.
public func CFBundleGetInfoDictionary(_ bundle: CFBundle!) -> CFDictionary! {
    NSDictionary(dictionary: bundle.infoDictionary ?? [:])
}
