public import Foundation

// On Apple platforms `NSString` (and so every `CFString`, toll-free bridged to it) turns into a
// `String` when it becomes an `AnyHashable`: `AnyHashable(kSecAttrAccount) == AnyHashable("acct")`,
// so a result read as `[AnyHashable: Any]` can be subscripted with `kSecAttrAccount` or with
// `kSecAttrAccount as String` alike (Apple's Foundation overlay, NSString's
// `_HasCustomAnyHashableRepresentation`). swift-corelibs-foundation does not do this: there an
// `AnyHashable` of an `NSString` keeps the class and never equals one of a `String`, and every
// `attributes[kSecAttrAccount]` is `nil`. This conformance gives Linux Apple's rule. It is
// process-wide, as it is on Apple platforms, and changes only how `NSString`s compare as
// `AnyHashable`s (dictionary keys, set members): with `String`s, by their characters.

extension NSString: @retroactive _HasCustomAnyHashableRepresentation {
    /// The string's `String`, so that an `NSString` (a `CFString`, a `kSec…` constant) and a `String`
    /// with the same characters are one `AnyHashable` key, as on Apple platforms.
    ///
    /// Called by the standard library when the string becomes an `AnyHashable`; code does not call it.
    /// - Returns: `AnyHashable` of the `String` with the string's characters.
    public func _toCustomAnyHashable() -> AnyHashable? {
        AnyHashable(String._unconditionallyBridgeFromObjectiveC(self))
    }
}
