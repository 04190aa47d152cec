/// A hybrid logical clock stamp: physical milliseconds, a counter for events within one millisecond, and the
/// device that made it.
///
/// Stamps order by milliseconds, then counter, then device, so any two distinct stamps are ordered and every
/// device agrees on the order. A device's stamps only ever grow, even when its wall clock goes back, and a stamp
/// received from another device pushes the local clock past it (the receive rule), so an edit made after seeing
/// another device's change always has the greater stamp.
///
/// Source: Kulkarni, Demirbas et al., "Logical Physical Clocks and Consistent Snapshots in Globally Distributed
/// Databases" (2014), algorithm 2.
package struct SyncClock: Sendable, Hashable, Comparable {
    /// Unix time in milliseconds of the newest event seen.
    package var milliseconds: UInt64
    /// Events within that millisecond.
    package var counter: UInt32
    /// The device that made the stamp: breaks ties.
    package var device: SyncDeviceID

    /// The length of ``encoded``: milliseconds (8, big-endian) ‖ counter (4, big-endian) ‖ device (16).
    package static let encodedSize = 28

    package init(milliseconds: UInt64, counter: UInt32, device: SyncDeviceID) {
        self.milliseconds = milliseconds
        self.counter = counter
        self.device = device
    }

    /// The stamp of a new local event after `last` (the newest stamp this device has made or received).
    ///
    /// The milliseconds are the greater of `now` and `last`'s; the counter starts at 0 when the milliseconds
    /// move and goes up by one when they do not. A counter at its maximum moves to the next millisecond.
    /// - Parameters:
    ///   - last: the device's newest stamp, nil before its first event.
    ///   - now: the wall clock, Unix time in milliseconds.
    ///   - device: this device.
    /// - Returns: a stamp greater than `last`.
    package static func next(after last: SyncClock?, now: UInt64, device: SyncDeviceID) -> SyncClock {
        guard let last, last.milliseconds >= now else {
            return SyncClock(milliseconds: now, counter: 0, device: device)
        }
        if last.counter == .max { return SyncClock(milliseconds: last.milliseconds + 1, counter: 0, device: device) }
        return SyncClock(milliseconds: last.milliseconds, counter: last.counter + 1, device: device)
    }

    /// The local clock after receiving `remote`: greater than both this stamp and `remote`, and stamped with this
    /// stamp's device.
    /// - Parameters:
    ///   - remote: a stamp made by another device.
    ///   - now: the wall clock, Unix time in milliseconds.
    /// - Returns: the new local stamp.
    package func receiving(_ remote: SyncClock, now: UInt64) -> SyncClock {
        let milliseconds = Swift.max(self.milliseconds, remote.milliseconds, now)
        var counter: UInt32
        if milliseconds == self.milliseconds && milliseconds == remote.milliseconds {
            counter = Swift.max(self.counter, remote.counter)
        } else if milliseconds == self.milliseconds {
            counter = self.counter
        } else if milliseconds == remote.milliseconds {
            counter = remote.counter
        } else {
            return SyncClock(milliseconds: milliseconds, counter: 0, device: device)
        }
        if counter == .max { return SyncClock(milliseconds: milliseconds + 1, counter: 0, device: device) }
        counter += 1
        return SyncClock(milliseconds: milliseconds, counter: counter, device: device)
    }

    /// The stamp's ``encodedSize`` bytes: milliseconds (big-endian) ‖ counter (big-endian) ‖ device.
    package var encoded: [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(Self.encodedSize)
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: milliseconds >> shift))
        }
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: counter >> shift)) }
        bytes += device.bytes
        return bytes
    }

    /// The stamp from its ``encoded`` form; nil unless `encoded` is exactly ``encodedSize`` bytes.
    package init?(encoded: some Collection<UInt8>) {
        let bytes = Array(encoded)
        guard bytes.count == Self.encodedSize else { return nil }
        milliseconds = bytes[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
        counter = bytes[8..<12].reduce(0) { $0 << 8 | UInt32($1) }
        device = SyncDeviceID(bytes: Array(bytes[12..<28]))!
    }

    package static func < (lhs: SyncClock, rhs: SyncClock) -> Bool {
        if lhs.milliseconds != rhs.milliseconds { return lhs.milliseconds < rhs.milliseconds }
        if lhs.counter != rhs.counter { return lhs.counter < rhs.counter }
        return lhs.device < rhs.device
    }
}
