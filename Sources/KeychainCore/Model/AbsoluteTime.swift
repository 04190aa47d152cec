#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// A point in time as Apple's `CFAbsoluteTime`: seconds since the reference date, 1 January 2001 00:00:00 UTC,
/// with the fraction kept. The engine's own date type, so that `KeychainCore` and the tools need no Foundation
/// (tracker issue 23); front ends that hand dates to callers convert at their edge (`Date(timeIntervalSinceReferenceDate:)`
/// takes ``secondsSinceReferenceDate`` unchanged).
///
/// Source: Apple's CFDate reference, "CFAbsoluteTime" ("Absolute time is measured in seconds relative to the
/// absolute reference date of Jan 1 2001 00:00:00 GMT").
package struct AbsoluteTime: Sendable, Hashable, Comparable {
    /// Seconds from the reference date (negative before it); the value Apple stores for date attributes.
    package var secondsSinceReferenceDate: Double

    /// Seconds from 1 January 1970 to the reference date: 31 years, 8 of them leap years.
    package static let referenceDateSince1970: Double = 978_307_200

    /// The reference date itself (`CFAbsoluteTime` 0), Apple's value for a key's unset start and end dates.
    package static let referenceDate = AbsoluteTime(secondsSinceReferenceDate: 0)

    /// - Parameter secondsSinceReferenceDate: seconds from 1 January 2001 00:00:00 UTC.
    package init(secondsSinceReferenceDate: Double) { self.secondsSinceReferenceDate = secondsSinceReferenceDate }

    /// - Parameter secondsSince1970: seconds from the Unix epoch, 1 January 1970 00:00:00 UTC.
    package init(secondsSince1970: Double) {
        secondsSinceReferenceDate = secondsSince1970 - Self.referenceDateSince1970
    }

    /// Seconds from the Unix epoch.
    package var secondsSince1970: Double { secondsSinceReferenceDate + Self.referenceDateSince1970 }

    /// The current time from the system's real-time clock (`clock_gettime(CLOCK_REALTIME)`), to the nanosecond
    /// the clock gives.
    package static var now: AbsoluteTime {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return AbsoluteTime(secondsSince1970: Double(spec.tv_sec) + Double(spec.tv_nsec) / 1_000_000_000)
    }

    package static func < (lhs: AbsoluteTime, rhs: AbsoluteTime) -> Bool {
        lhs.secondsSinceReferenceDate < rhs.secondsSinceReferenceDate
    }
}
