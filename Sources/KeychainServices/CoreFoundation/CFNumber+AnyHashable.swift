public import Foundation

// On Apple platforms an `NSNumber` (a `CFNumber` or `CFBoolean`) becomes the Swift value it holds when
// it becomes an `AnyHashable`: `AnyHashable(kCFBooleanTrue) == AnyHashable(true)` and
// `AnyHashable(NSNumber(value: 443)) == AnyHashable(443)` (Apple's Foundation overlay, NSNumber's
// `_HasCustomAnyHashableRepresentation`). swift-corelibs-foundation keeps the class, so result values
// collected into a `Set<AnyHashable>` or compared as `AnyHashable`s never equal Swift's. This
// conformance gives Linux Apple's rule, process-wide as it is there.

extension NSNumber: @retroactive _HasCustomAnyHashableRepresentation {
    /// The Swift value the number holds, as Apple's Foundation gives it: `Bool` for `kCFBooleanTrue`
    /// and `kCFBooleanFalse`, else `Int64`, `UInt64` or `Double`, the first that holds the value exactly.
    ///
    /// Called by the standard library when the number becomes an `AnyHashable`; code does not call it.
    /// - Returns: `AnyHashable` of that value; `nil` (the number itself) for a value none holds exactly.
    public func _toCustomAnyHashable() -> AnyHashable? {
        // Foundation makes one object for each boolean (`NSNumber(value: true)` is always the same).
        if self === kCFBooleanTrue { return AnyHashable(true) }
        if self === kCFBooleanFalse { return AnyHashable(false) }
        if NSNumber(value: int64Value) == self { return AnyHashable(int64Value) }
        if NSNumber(value: uint64Value) == self { return AnyHashable(uint64Value) }
        if NSNumber(value: doubleValue) == self { return AnyHashable(doubleValue) }
        return nil
    }
}
