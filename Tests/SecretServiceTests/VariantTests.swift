import CGIO
import KeychainCore
import KeychainDBus
import Testing

@testable import SecretService

/// The `GVariant` builders that bypass GLib's per-value constructors (Variant.swift).
@Suite("GVariant builders")
struct VariantTests {
    static func printed(_ value: OpaquePointer) -> String {
        let text = g_variant_print(value, 1)!
        defer { g_free(text) }
        return String(cString: text)
    }

    @Test(
        "objectPaths(under:) equals the array built one path at a time, with 1-, 2- and 4-byte framing offsets",
        arguments: [0, 1, 3, 5, 40, 2_000])
    func serializedObjectPaths(count: Int) {
        let prefix = "/org/freedesktop/secrets/collection/login"
        let elements = (0..<count).map { String($0 * 7 + 1) } + (count > 2 ? ["a_Z9"] : [])
        let fast = g_variant_ref_sink(Variant.objectPaths(under: prefix, elements))!
        let slow = g_variant_ref_sink(Variant.objectPaths(elements.map { "\(prefix)/\($0)" }))!
        defer {
            g_variant_unref(fast)
            g_variant_unref(slow)
        }
        #expect(g_variant_equal(UnsafeRawPointer(fast), UnsafeRawPointer(slow)) != 0)
        #expect(g_variant_get_size(fast) == g_variant_get_size(slow))
        // GLib's own check of the serialized form, which a trusted value skips.
        #expect(g_variant_is_normal_form(fast) != 0)
        #expect(Variant.readStrings(fast) == elements.map { "\(prefix)/\($0)" })
        if count == 3 {
            #expect(Self.printed(fast) == "[objectpath '\(prefix)/1', '\(prefix)/8', '\(prefix)/15', '\(prefix)/a_Z9']")
        }
    }

    @Test("bytes(referencing:) reads the secret's own storage and releases it with the variant")
    func referencedSecret() {
        weak var released: SecureBytes?
        do {
            let secret = SecureBytes(copying: Array("hunter2".utf8))
            released = secret
            let value = g_variant_ref_sink(Variant.bytes(referencing: secret))!
            #expect(Variant.withBytes(value) { Array($0) } == Array("hunter2".utf8))
            #expect(Variant.withBytes(value) { $0.baseAddress } == secret.withUnsafeBytes { $0.baseAddress })
            g_variant_unref(value)
        }
        #expect(released == nil)
    }
}
