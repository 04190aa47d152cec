import CGIO
import Foundation
import KeychainDBus
import Testing

@testable import SecretService

/// Issue 29, item 5: a large message must not leave the provider holding its buffers. The provider
/// is a long-lived session daemon; resident memory it does not give back is memory every desktop
/// session pays for until logout.
@Suite("keychain-secret-service memory")
struct ProviderMemoryTests: SecretServiceSuite {
    /// `VmRSS` of a process, in KiB.
    static func residentKiB(_ pid: Int32) throws -> Int {
        // Read to the end: /proc files report a size of 0.
        let handle = try #require(FileHandle(forReadingAtPath: "/proc/\(pid)/status"))
        defer { try? handle.close() }
        let status = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }

    /// What the provider may keep after the two messages: the 4 MiB secret it stores, the read buffer
    /// GDBus keeps per connection at the size of the largest message read (10 MB; GLib 2.74 never
    /// shrinks it), and 2 MiB of slack. Before malloc's mmap threshold was fixed, the freed copies of
    /// the message stayed in malloc's heap too: 18.7 MiB of growth in this test.
    static let allowedGrowthKiB = 4 << 10 + 10_000_000 / 1_024 + 2 << 10

    @Test("After a refused 10 MB CreateItem and a stored 4 MiB secret, the provider keeps no copy of either message")
    func residentMemoryAfterLargeMessages() throws {
        try PrivateBus.with { bus in
            let session = try bus.openPlainSession()
            let pid = try #require(bus.provider?.processIdentifier)
            let before = try Self.residentKiB(pid)
            func create(secretBytes: Int) -> String? {
                let properties = Variant.variantMap([
                    ("org.freedesktop.Secret.Item.Label", Variant.string("big")),
                    ("org.freedesktop.Secret.Item.Attributes", Variant.stringMap(["size": "\(secretBytes)"])),
                ])
                return bus.errorName(
                    Self.sessionAlias, Self.collectionInterface, "CreateItem",
                    [
                        properties, PrivateBus.secretValue(session, [UInt8](repeating: 0x5a, count: secretBytes)),
                        Variant.boolean(false),
                    ])
            }
            // Over the 4 MiB limit: refused.
            #expect(create(secretBytes: 10_000_000) == Self.invalidArgs)
            // At the limit: stored.
            #expect(create(secretBytes: SecretServiceProvider.Limits.secretBytes) == nil)
            // The provider still answers, and its items are there.
            let item = try bus.createItem(
                Self.sessionAlias, label: "small", attributes: [:], secret: "s", session: session)
            let label = try bus.property(item, Self.itemInterface, "Label")
            #expect(Variant.readString(label) == "small")
            g_variant_unref(label)
            let after = try Self.residentKiB(pid)
            #expect(after - before < Self.allowedGrowthKiB, "resident \(before) KiB before, \(after) KiB after")
        }
    }
}
