internal import CGIO

/// Builders and readers of `GVariant` values through GLib's non-variadic API (`g_variant_new` is
/// variadic, so Swift cannot call it). Builders return floating references, which the call that takes
/// them (a reply, a signal, a parent container) sinks.
///
/// The one set of builders: the provider, the portal backend, the session agent, the migration client,
/// the `secretservice` fuzz target (`KeychainFuzzing`) and the tests all use it (`package`: shared
/// inside this package only).
package enum Variant {
    package static func string(_ value: String) -> OpaquePointer { g_variant_new_string(value)! }
    package static func objectPath(_ value: String) -> OpaquePointer { g_variant_new_object_path(value)! }
    package static func boolean(_ value: Bool) -> OpaquePointer { g_variant_new_boolean(value ? 1 : 0)! }
    package static func uint64(_ value: UInt64) -> OpaquePointer { g_variant_new_uint64(guint64(value))! }
    package static func uint32(_ value: UInt32) -> OpaquePointer { g_variant_new_uint32(value)! }
    /// `v`: a value in a variant box.
    package static func boxed(_ value: OpaquePointer) -> OpaquePointer { g_variant_new_variant(value)! }

    package static func tuple(_ children: [OpaquePointer]) -> OpaquePointer {
        var children = children.map { Optional($0) }
        return g_variant_new_tuple(&children, gsize(children.count))!
    }

    /// An array whose element type is `elementType` (needed for empty arrays).
    package static func array(_ elementType: String, _ children: [OpaquePointer]) -> OpaquePointer {
        var children = children.map { Optional($0) }
        return withType(elementType) { g_variant_new_array($0, &children, gsize(children.count))! }
    }

    /// A `{kv}` dict entry.
    package static func dictEntry(_ key: OpaquePointer, _ value: OpaquePointer) -> OpaquePointer {
        g_variant_new_dict_entry(key, value)!
    }

    /// `ao`.
    package static func objectPaths(_ paths: [String]) -> OpaquePointer { array("o", paths.map(objectPath)) }

    /// `ao` of `prefix/element` for each of `elements`, written in GVariant's serialized form and handed
    /// to GLib whole (`g_variant_new_from_bytes`, trusted): a collection's `Items` with thousands of
    /// items, for which ``objectPaths(_:)`` builds, validates and reference-counts one `GVariant` per path
    /// (several thousand instructions a path; this is about 650).
    /// - Parameters:
    ///   - prefix: an object path other than `/`.
    ///   - elements: path elements (``PathElementID`` raw values: non-empty, `[A-Za-z0-9_]` only), so
    ///     that every path is valid without GLib checking it again.
    package static func objectPaths(under prefix: String, _ elements: [String]) -> OpaquePointer {
        precondition(prefix.count > 1 && g_variant_is_object_path(prefix) != 0, "not an object path: \(prefix)")
        // GVariant serialization of an array of variable-size elements: the elements (each path and its
        // NUL; strings need no alignment), then one framing offset per element (where it ends), each
        // as wide as the smallest of 1, 2, 4 or 8 bytes that can address the whole array
        // (GVariant specification, "Arrays" and "Framing Offsets"; gvs_calculate_total_size).
        let head = Array(prefix.utf8) + [UInt8(ascii: "/")]
        var ends: [Int] = []
        ends.reserveCapacity(elements.count)
        var body = 0
        for element in elements {
            precondition(
                !element.isEmpty && element.utf8.allSatisfy(isPathElementByte), "not a path element: \(element)")
            body += head.count + element.utf8.count + 1
            ends.append(body)
        }
        let width =
            if body + elements.count <= Int(UInt8.max) {
                1
            } else if body + 2 * elements.count <= Int(UInt16.max) {
                2
            } else if body + 4 * elements.count <= Int(UInt32.max) {
                4
            } else {
                8
            }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(elements.isEmpty ? 0 : body + width * elements.count)
        for element in elements {
            bytes += head
            bytes += element.utf8
            bytes.append(0)
        }
        for end in ends {
            for index in 0..<width { bytes.append(UInt8(truncatingIfNeeded: end >> (8 * index))) }
        }
        let data = bytes.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count))! }
        defer { g_bytes_unref(data) }
        return "ao".withCString { g_variant_new_from_bytes(cgio_variant_type($0), data, 1)! }
    }

    /// `as`.
    package static func strings(_ values: [String]) -> OpaquePointer { array("s", values.map(string)) }

    /// `a{ss}`, sorted by name so that replies are deterministic.
    package static func stringMap(_ map: [String: String]) -> OpaquePointer {
        array("{ss}", map.sorted { $0.key < $1.key }.map { dictEntry(string($0.key), string($0.value)) })
    }

    /// `a{sv}`.
    package static func variantMap(_ entries: [(String, OpaquePointer)]) -> OpaquePointer {
        array("{sv}", entries.map { dictEntry(string($0.0), boxed($0.1)) })
    }

    /// `ay`, copied from `bytes` into GLib's memory.
    package static func bytes(_ bytes: UnsafeRawBufferPointer) -> OpaquePointer {
        "y".withCString { g_variant_new_fixed_array(cgio_variant_type($0), bytes.baseAddress, gsize(bytes.count), 1)! }
    }

    package static func bytes(_ bytes: [UInt8]) -> OpaquePointer { bytes.withUnsafeBytes { Self.bytes($0) } }

    /// Gives `body` the `GVariantType` of a type string. GLib's type is the string's own bytes
    /// (`G_VARIANT_TYPE` is a cast), and a Swift `String`'s C pointer lives only for one call, so the
    /// type is valid only inside `body`. (Literals such as `"y"` are static and need no scope.)
    package static func withType<R>(_ type: String, _ body: (OpaquePointer) throws -> R) rethrows -> R {
        try type.withCString { try body(cgio_variant_type($0)) }
    }

    // MARK: - Reading

    package static func isOfType(_ value: OpaquePointer, _ type: String) -> Bool {
        withType(type) { g_variant_is_of_type(value, $0) } != 0
    }

    /// Child `index` of a container, given to `body`, then released.
    package static func withChild<R, E: Error>(
        _ value: OpaquePointer, _ index: Int, _ body: (OpaquePointer) throws(E) -> R
    ) throws(E) -> R {
        let child = g_variant_get_child_value(value, gsize(index))!
        defer { g_variant_unref(child) }
        return try body(child)
    }

    package static func childCount(_ value: OpaquePointer) -> Int { Int(g_variant_n_children(value)) }

    /// The string of an `s` or `o` value.
    package static func readString(_ value: OpaquePointer) -> String {
        String(cString: g_variant_get_string(value, nil))
    }

    package static func readBoolean(_ value: OpaquePointer) -> Bool { g_variant_get_boolean(value) != 0 }

    /// The strings of an `ao` or `as` value.
    package static func readStrings(_ value: OpaquePointer) -> [String] {
        (0..<childCount(value)).map { index in withChild(value, index, readString) }
    }

    /// An `a{ss}` value (a repeated name keeps its last value).
    package static func readStringMap(_ value: OpaquePointer) -> [String: String] {
        let count = childCount(value)
        var map: [String: String] = [:]
        map.reserveCapacity(count)
        for index in 0..<count {
            withChild(value, index) { entry in
                map[withChild(entry, 0, readString)] = withChild(entry, 1, readString)
            }
        }
        return map
    }

    /// An `a{sv}` value with each variant unboxed; the values are new references the caller releases
    /// with ``release(_:)``.
    package static func readVariantMap(_ value: OpaquePointer) -> [String: OpaquePointer] {
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

    package static func release(_ map: [String: OpaquePointer]) { map.values.forEach { g_variant_unref($0) } }

    /// Gives the bytes of an `ay` value, in GLib's memory, to `body`.
    package static func withBytes<R, E: Error>(_ value: OpaquePointer, _ body: (UnsafeRawBufferPointer) throws(E) -> R)
        throws(E) -> R
    {
        var count: gsize = 0
        let base = g_variant_get_fixed_array(value, &count, 1)
        return try body(UnsafeRawBufferPointer(start: count == 0 ? nil : base, count: Int(count)))
    }
}
