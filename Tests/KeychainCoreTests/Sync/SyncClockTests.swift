import Testing

@testable import KeychainCore

/// The hybrid logical clock (Kulkarni et al. 2014, algorithm 2) and the sync ids' text and byte forms.
@Suite("Sync clock and ids")
struct SyncClockTests {
    let device = SyncDeviceID(bytes: Array(repeating: 1, count: 16))!
    let other = SyncDeviceID(bytes: Array(repeating: 2, count: 16))!

    @Test("a new event takes the wall clock when it is ahead, and counts up within one millisecond")
    func nextEvent() {
        let first = SyncClock.next(after: nil, now: 1_000, device: device)
        #expect(first == SyncClock(milliseconds: 1_000, counter: 0, device: device))
        let same = SyncClock.next(after: first, now: 1_000, device: device)
        #expect(same == SyncClock(milliseconds: 1_000, counter: 1, device: device))
        let later = SyncClock.next(after: same, now: 2_000, device: device)
        #expect(later == SyncClock(milliseconds: 2_000, counter: 0, device: device))
    }

    @Test("a wall clock that goes back never makes a smaller stamp")
    func clockGoesBack() {
        let last = SyncClock(milliseconds: 5_000, counter: 3, device: device)
        let next = SyncClock.next(after: last, now: 1_000, device: device)
        #expect(next == SyncClock(milliseconds: 5_000, counter: 4, device: device))
        #expect(next > last)
    }

    @Test("receiving a stamp from the future moves the local clock past it")
    func receiveRule() {
        let local = SyncClock(milliseconds: 1_000, counter: 7, device: device)
        let remote = SyncClock(milliseconds: 9_000, counter: 2, device: other)
        let after = local.receiving(remote, now: 1_500)
        #expect(after == SyncClock(milliseconds: 9_000, counter: 3, device: device))
        #expect(after > remote && after > local)
        #expect(SyncClock.next(after: after, now: 1_600, device: device) > remote)
        let equal = SyncClock(milliseconds: 1_000, counter: 9, device: other)
        #expect(local.receiving(equal, now: 10) == SyncClock(milliseconds: 1_000, counter: 10, device: device))
        #expect(local.receiving(remote, now: 20_000) == SyncClock(milliseconds: 20_000, counter: 0, device: device))
    }

    @Test("stamps order by milliseconds, then counter, then device")
    func ordering() {
        let a = SyncClock(milliseconds: 1, counter: 9, device: other)
        let b = SyncClock(milliseconds: 2, counter: 0, device: device)
        #expect(a < b)
        #expect(
            SyncClock(milliseconds: 2, counter: 0, device: device)
                < SyncClock(milliseconds: 2, counter: 1, device: device))
        #expect(
            SyncClock(milliseconds: 2, counter: 1, device: device)
                < SyncClock(milliseconds: 2, counter: 1, device: other))
    }

    @Test("a stamp encodes as 28 big-endian bytes and decodes back; other lengths are refused")
    func encoding() {
        let clock = SyncClock(milliseconds: 0x0102_0304_0506_0708, counter: 0x0A0B_0C0D, device: other)
        let bytes = clock.encoded
        #expect(bytes.count == SyncClock.encodedSize)
        #expect(Array(bytes[0..<12]) == [1, 2, 3, 4, 5, 6, 7, 8, 0x0A, 0x0B, 0x0C, 0x0D])
        #expect(SyncClock(encoded: bytes) == clock)
        #expect(SyncClock(encoded: bytes.dropLast()) == nil)
        #expect(SyncClock(encoded: bytes + [0]) == nil)
    }

    @Test("ids print as 32 lowercase hex digits and parse back; bad text and lengths are refused")
    func ids() {
        let id = SyncItemID(bytes: Array(0..<16))!
        #expect(id.description == "000102030405060708090a0b0c0d0e0f")
        #expect(SyncItemID(hex: id.description) == id)
        #expect(SyncItemID(hex: "000102030405060708090A0B0C0D0E0F") == id)
        #expect(SyncItemID(hex: "000102030405060708090a0b0c0d0e0") == nil)
        #expect(SyncItemID(hex: "zz0102030405060708090a0b0c0d0e0f") == nil)
        #expect(SyncItemID(bytes: Array(0..<15)) == nil)
        #expect(SyncDeviceID(hex: other.description) == other)
        #expect(SyncDeviceID.random() != SyncDeviceID.random())
    }
}
