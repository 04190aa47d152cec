internal import CPlist

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// An Apple property list (XML or binary) parsed by libplist 2.2, read-only: the one place the engine
/// touches libplist (`CPlist`), for an entitlements file (``ApplicationIdentity``) and the attributes of
/// a legacy item record (``ItemCodec/decodeLegacyAttributes(_:)``), which Foundation's
/// `PropertyListDecoder` read before (tracker issue 23).
///
/// libplist is opened with dlopen at the first parse in the process (`cplist_load`), never at start-up.
/// The tree is freed with the value; a ``Node`` keeps its list alive. Not `Sendable`: it owns the tree.
final class PropertyList {
    /// Why a property list could not be read.
    enum Failure: Error, Equatable {
        /// libplist could not be loaded: the loader's reason (`dlerror`), for the message.
        case libraryMissing(String)
        /// The bytes are not a property list libplist reads (XML or binary), or are truncated.
        case malformed
    }

    private let functions: cplist_functions
    private let root: plist_t

    /// Parses `bytes`: a binary property list when they start with `bplist00`, else XML.
    /// - Throws: ``Failure/libraryMissing(_:)`` when libplist is not installed; ``Failure/malformed``
    ///   when `bytes` are not a whole property list (libplist returns no tree) or exceed 4 GiB.
    init(parsing bytes: [UInt8]) throws(Failure) {
        guard let loaded = cplist_load() else { throw .libraryMissing(String(cString: cplist_failure())) }
        let functions = loaded.pointee
        guard let length = UInt32(exactly: bytes.count) else { throw .malformed }
        var parsed: plist_t? = nil
        bytes.withUnsafeBytes { raw in
            raw.withMemoryRebound(to: CChar.self) { functions.plist_from_memory($0.baseAddress, length, &parsed) }
        }
        guard let parsed else { throw .malformed }
        self.functions = functions
        root = parsed
    }

    deinit { functions.plist_free(root) }

    /// The top-level value.
    var rootNode: Node { Node(list: self, handle: root) }

    /// One value inside a ``PropertyList``: typed readers answer `nil` for a value of another type.
    struct Node {
        fileprivate let list: PropertyList
        fileprivate let handle: plist_t

        private var functions: cplist_functions { list.functions }
        private var type: plist_type { functions.plist_get_node_type(handle) }

        /// A dictionary's value for `key`, or `nil` (no such key, or not a dictionary).
        func value(forKey key: String) -> Node? {
            guard type == PLIST_DICT, let found = functions.plist_dict_get_item(handle, key) else { return nil }
            return Node(list: list, handle: found)
        }

        /// A dictionary's entries, in the list's order, or `nil` when this is not a dictionary.
        var entries: [(key: String, value: Node)]? {
            guard type == PLIST_DICT else { return nil }
            var iterator: plist_dict_iter? = nil
            functions.plist_dict_new_iter(handle, &iterator)
            guard let iterator else { return nil }
            defer { free(iterator) }
            var entries: [(key: String, value: Node)] = []
            while true {
                var key: UnsafeMutablePointer<CChar>? = nil
                var value: plist_t? = nil
                functions.plist_dict_next_item(handle, iterator, &key, &value)
                guard let key else { return entries }
                defer { free(key) }
                guard let value else { return nil }
                entries.append((String(cString: key), Node(list: list, handle: value)))
            }
        }

        /// An array's elements, or `nil` when this is not an array.
        var elements: [Node]? {
            guard type == PLIST_ARRAY else { return nil }
            return (0..<functions.plist_array_get_size(handle)).compactMap { index in
                functions.plist_array_get_item(handle, index).map { Node(list: list, handle: $0) }
            }
        }

        /// A string's UTF-8 text (libplist converts the UTF-16 strings of binary lists), or `nil`.
        var string: String? {
            guard type == PLIST_STRING else { return nil }
            var length: UInt64 = 0
            guard let text = functions.plist_get_string_ptr(handle, &length) else { return nil }
            return text.withMemoryRebound(to: UInt8.self, capacity: Int(length)) {
                String(decoding: UnsafeBufferPointer(start: $0, count: Int(length)), as: UTF8.self)
            }
        }

        /// A data value's bytes, or `nil`.
        var bytes: [UInt8]? {
            guard type == PLIST_DATA else { return nil }
            var length: UInt64 = 0
            guard let data = functions.plist_get_data_ptr(handle, &length) else { return length == 0 ? [] : nil }
            return data.withMemoryRebound(to: UInt8.self, capacity: Int(length)) {
                Array(UnsafeBufferPointer(start: $0, count: Int(length)))
            }
        }

        /// An integer as the 64 bits the list holds, two's complement (a binary list's 8-byte integers
        /// are signed, as Foundation writes `Int64`), or `nil`.
        var integer: Int64? {
            guard type == PLIST_UINT else { return nil }
            var value: UInt64 = 0
            functions.plist_get_uint_val(handle, &value)
            return Int64(bitPattern: value)
        }

        /// A boolean, or `nil`.
        var bool: Bool? {
            guard type == PLIST_BOOLEAN else { return nil }
            var value: UInt8 = 0
            functions.plist_get_bool_val(handle, &value)
            return value != 0
        }

        /// A date as seconds since 2001-01-01 00:00:00 UTC, exactly as the list holds it
        /// (`cplist_date_seconds`), or `nil`.
        var secondsSinceReferenceDate: Double? {
            var functions = functions
            var seconds = 0.0
            return cplist_date_seconds(&functions, handle, &seconds) != 0 ? seconds : nil
        }
    }
}
