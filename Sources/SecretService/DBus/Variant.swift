internal import CGIO

/// Builders and readers of `GVariant` values through GLib's non-variadic API (`g_variant_new` is
/// variadic, so Swift cannot call it). Builders return floating references, which the call that takes
/// them (a reply, a signal, a parent container) sinks.
enum Variant {
    static func string(_ value: String) -> OpaquePointer { g_variant_new_string(value)! }
    static func objectPath(_ value: String) -> OpaquePointer { g_variant_new_object_path(value)! }
    static func boolean(_ value: Bool) -> OpaquePointer { g_variant_new_boolean(value ? 1 : 0)! }
    static func uint64(_ value: UInt64) -> OpaquePointer { g_variant_new_uint64(guint64(value))! }
    static func uint32(_ value: UInt32) -> OpaquePointer { g_variant_new_uint32(value)! }
    /// `v`: a value in a variant box.
    static func boxed(_ value: OpaquePointer) -> OpaquePointer { g_variant_new_variant(value)! }

    static func tuple(_ children: [OpaquePointer]) -> OpaquePointer {
        var children = children.map { Optional($0) }
        return g_variant_new_tuple(&children, gsize(children.count))!
    }

    /// An array whose element type is `elementType` (needed for empty arrays).
    static func array(_ elementType: String, _ children: [OpaquePointer]) -> OpaquePointer {
        var children = children.map { Optional($0) }
        return withType(elementType) { g_variant_new_array($0, &children, gsize(children.count))! }
    }

    /// `ao`.
    static func objectPaths(_ paths: [String]) -> OpaquePointer { array("o", paths.map(objectPath)) }

    /// `as`.
    static func strings(_ values: [String]) -> OpaquePointer { array("s", values.map(string)) }

    /// `a{ss}`, sorted by name so that replies are deterministic.
    static func stringMap(_ map: [String: String]) -> OpaquePointer {
        array(
            "{ss}", map.sorted { $0.key < $1.key }.map { g_variant_new_dict_entry(string($0.key), string($0.value))! })
    }

    /// `a{sv}`.
    static func variantMap(_ entries: [(String, OpaquePointer)]) -> OpaquePointer {
        array("{sv}", entries.map { g_variant_new_dict_entry(string($0.0), boxed($0.1))! })
    }

    /// `ay`, copied from `bytes` into GLib's memory.
    static func bytes(_ bytes: UnsafeRawBufferPointer) -> OpaquePointer {
        "y".withCString { g_variant_new_fixed_array(cgio_variant_type($0), bytes.baseAddress, gsize(bytes.count), 1)! }
    }

    static func bytes(_ bytes: [UInt8]) -> OpaquePointer { bytes.withUnsafeBytes { Self.bytes($0) } }

    /// Gives `body` the `GVariantType` of a type string. GLib's type is the string's own bytes
    /// (`G_VARIANT_TYPE` is a cast), and a Swift `String`'s C pointer lives only for one call, so the
    /// type is valid only inside `body`. (Literals such as `"y"` are static and need no scope.)
    static func withType<R>(_ type: String, _ body: (OpaquePointer) throws -> R) rethrows -> R {
        try type.withCString { try body(cgio_variant_type($0)) }
    }

    // MARK: - Reading

    static func isOfType(_ value: OpaquePointer, _ type: String) -> Bool {
        withType(type) { g_variant_is_of_type(value, $0) } != 0
    }

    /// Child `index` of a container, given to `body`, then released.
    static func withChild<R, E: Error>(_ value: OpaquePointer, _ index: Int, _ body: (OpaquePointer) throws(E) -> R)
        throws(E) -> R
    {
        let child = g_variant_get_child_value(value, gsize(index))!
        defer { g_variant_unref(child) }
        return try body(child)
    }

    static func childCount(_ value: OpaquePointer) -> Int { Int(g_variant_n_children(value)) }

    /// The string of an `s` or `o` value.
    static func readString(_ value: OpaquePointer) -> String { String(cString: g_variant_get_string(value, nil)) }

    static func readBoolean(_ value: OpaquePointer) -> Bool { g_variant_get_boolean(value) != 0 }

    /// The strings of an `ao` or `as` value.
    static func readStrings(_ value: OpaquePointer) -> [String] {
        (0..<childCount(value)).map { index in withChild(value, index, readString) }
    }

    /// An `a{ss}` value (a repeated name keeps its last value).
    static func readStringMap(_ value: OpaquePointer) -> [String: String] {
        var map: [String: String] = [:]
        for index in 0..<childCount(value) {
            withChild(value, index) { entry in
                map[withChild(entry, 0, readString)] = withChild(entry, 1, readString)
            }
        }
        return map
    }

    /// An `a{sv}` value with each variant unboxed; the values are new references the caller releases
    /// with ``release(_:)``.
    static func readVariantMap(_ value: OpaquePointer) -> [String: OpaquePointer] {
        var map: [String: OpaquePointer] = [:]
        for index in 0..<childCount(value) {
            withChild(value, index) { entry in
                let key = withChild(entry, 0, readString)
                let unboxed = withChild(entry, 1) { g_variant_get_variant($0)! }
                if let old = map.updateValue(unboxed, forKey: key) { g_variant_unref(old) }
            }
        }
        return map
    }

    static func release(_ map: [String: OpaquePointer]) { map.values.forEach { g_variant_unref($0) } }

    /// Gives the bytes of an `ay` value, in GLib's memory, to `body`.
    static func withBytes<R, E: Error>(_ value: OpaquePointer, _ body: (UnsafeRawBufferPointer) throws(E) -> R)
        throws(E) -> R
    {
        var count: gsize = 0
        let base = g_variant_get_fixed_array(value, &count, 1)
        return try body(UnsafeRawBufferPointer(start: count == 0 ? nil : base, count: Int(count)))
    }
}
