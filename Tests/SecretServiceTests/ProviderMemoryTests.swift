import CGIO
import KeychainDBus
import Testing

@testable import SecretService

/// Issue 29, item 5: large messages at the provider's limits. Its resident memory after them is a memory goal,
/// measured by `scripts/bench-secret-service --large-message` (docs/PERFORMANCE.md), not asserted here.
@Suite("keychain-secret-service with large messages")
struct ProviderMemoryTests: SecretServiceSuite {
    @Test("A 10 MB CreateItem is refused, a 4 MiB secret (the limit) is stored, and the provider goes on serving")
    func residentMemoryAfterLargeMessages() throws {
        try PrivateBus.with { bus in
            let session = try bus.openPlainSession()
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
        }
    }
}
