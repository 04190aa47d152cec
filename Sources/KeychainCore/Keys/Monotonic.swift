#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// Seconds on clocks that the engine needs, without Foundation.
enum Monotonic {
    /// Seconds since boot (`CLOCK_BOOTTIME`, counts suspend), for auto-lock expiry in process memory.
    static func seconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return UInt64(now.tv_sec)
    }
}
