public import Foundation

// The standard Info.plist keys of CFBundle.h, with Apple's values, for code that reads a bundle's
// identifier or version as `Bundle.main.infoDictionary?[kCFBundleIdentifierKey as String]` (Locksmith
// derives its default service from it). On Linux `Bundle.main.infoDictionary` of a program without an
// Info.plist is empty, so such reads give `nil` and the code takes its fallback.
// `nonisolated(unsafe)`: immutable `NSString`s, never mutated, so sharing them across threads is safe.

/// The bundle's identifier key, `"CFBundleIdentifier"` (CFBundle.h). Typed `CFString!` as Swift imports it.
nonisolated(unsafe) public let kCFBundleIdentifierKey: CFString! = "CFBundleIdentifier"
/// The bundle's version key, `"CFBundleVersion"` (CFBundle.h).
nonisolated(unsafe) public let kCFBundleVersionKey: CFString! = "CFBundleVersion"
/// The bundle's short name key, `"CFBundleName"` (CFBundle.h).
nonisolated(unsafe) public let kCFBundleNameKey: CFString! = "CFBundleName"
/// The bundle's executable name key, `"CFBundleExecutable"` (CFBundle.h).
nonisolated(unsafe) public let kCFBundleExecutableKey: CFString! = "CFBundleExecutable"
/// The Info.plist format version key, `"CFBundleInfoDictionaryVersion"` (CFBundle.h).
nonisolated(unsafe) public let kCFBundleInfoDictionaryVersionKey: CFString! = "CFBundleInfoDictionaryVersion"
/// The development region key, `"CFBundleDevelopmentRegion"` (CFBundle.h).
nonisolated(unsafe) public let kCFBundleDevelopmentRegionKey: CFString! = "CFBundleDevelopmentRegion"
/// The localizations key, `"CFBundleLocalizations"` (CFBundle.h).
nonisolated(unsafe) public let kCFBundleLocalizationsKey: CFString! = "CFBundleLocalizations"
