internal import Glibc

/// The strings GDBus hands to a handler's callbacks (object paths, interface, member and property
/// names, senders, subtree nodes), each made into a Swift `String` once and handed out again while it
/// recurs.
///
/// Each call reaches the handlers three times or more (GDBus asks a subtree for the node's interfaces
/// and its method table before the call itself), each time with the same C strings, and a client's
/// calls repeat the same names: `String(cString:)` validated the bytes again and allocated every path
/// and interface name (longer than a small string's 15 bytes) on every callback. The cache compares the
/// bytes with those of the last ``capacity`` strings it made and returns the same `String` on a match,
/// so the result is always exactly `String(cString:)` of the bytes.
///
/// The entries live in memory this object allocates once, so that a lookup walks them without
/// reference counting. Not thread-safe: one cache belongs to one handler, whose callbacks GDBus runs on
/// the main context it was registered from.
package final class BusStringCache {
    /// How many recent strings are kept (replaced in turn): one call's four, and the names a client repeats.
    package static let capacity = 16
    /// The longest string kept, in bytes: object paths and names are short, and a client's long one
    /// (a message may be megabytes) is converted but not held after its call.
    package static let maximumCount = 256

    /// Each entry's bytes (without the NUL; `nil` while unused) and their count.
    private let bytes: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    private let counts: UnsafeMutablePointer<Int>
    private let strings: UnsafeMutablePointer<String>
    /// The entry replaced next.
    private let next: UnsafeMutablePointer<Int>

    package init() {
        bytes = .allocate(capacity: Self.capacity)
        bytes.initialize(repeating: nil, count: Self.capacity)
        counts = .allocate(capacity: Self.capacity)
        counts.initialize(repeating: -1, count: Self.capacity)
        strings = .allocate(capacity: Self.capacity)
        strings.initialize(repeating: "", count: Self.capacity)
        next = .allocate(capacity: 1)
        next.initialize(to: 0)
    }

    deinit {
        for index in 0..<Self.capacity { bytes[index]?.deallocate() }
        bytes.deallocate()
        counts.deallocate()
        strings.deinitialize(count: Self.capacity)
        strings.deallocate()
        next.deallocate()
    }

    /// The bytes of the strings kept (their UTF-8, without the NULs).
    package var keptBytes: Int { (0..<Self.capacity).reduce(0) { $0 + max(counts[$1], 0) } }

    /// `String(cString: cString)`, the same value as before when these bytes were converted recently.
    package func string(_ cString: UnsafePointer<CChar>) -> String {
        let count = strlen(cString)
        for index in 0..<Self.capacity where counts[index] == count {
            if memcmp(bytes[index]!, cString, count) == 0 { return strings[index] }
        }
        let made = String(cString: cString)
        guard count <= Self.maximumCount else { return made }
        let slot = next.pointee
        next.pointee = (slot + 1) % Self.capacity
        bytes[slot]?.deallocate()
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: max(count, 1))
        copy.initialize(from: cString, count: count)
        bytes[slot] = copy
        counts[slot] = count
        strings[slot] = made
        return made
    }
}
