internal import CGIO
internal import KeychainCore
internal import KeychainDBus

extension Variant {
    /// `ay` over `secret`'s own zeroising storage, not copied: the variant holds a reference to `secret`
    /// (whose storage never moves) and drops it when GLib frees the variant, on whichever thread does
    /// (GDBus's worker, once the message is written), and `secret` wipes its bytes then. A plain session's
    /// `GetSecret` reply thus keeps no unwiped copy of the secret but GDBus's serialized message.
    static func bytes(referencing secret: SecureBytes) -> OpaquePointer {
        let owner = Unmanaged.passRetained(secret).toOpaque()
        let data = secret.withUnsafeBytes { buffer in
            g_bytes_new_with_free_func(
                buffer.baseAddress, gsize(buffer.count),
                { owner in Unmanaged<SecureBytes>.fromOpaque(owner!).release() },
                owner)!
        }
        defer { g_bytes_unref(data) }
        return "ay".withCString { g_variant_new_from_bytes(cgio_variant_type($0), data, 1)! }
    }
}
