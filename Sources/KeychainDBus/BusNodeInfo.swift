package import CGIO

/// Introspection data parsed once from XML (`GDBusNodeInfo`), owned: GDBus checks each call's
/// argument signature against it and answers `Introspect` and `org.freedesktop.DBus.Properties` from it.
package final class BusNodeInfo {
    package let pointer: UnsafeMutablePointer<GDBusNodeInfo>

    /// Parses XML built into the program (D-Bus introspection format); a refusal is a programming error.
    /// - Parameters:
    ///   - xml: the introspection XML.
    ///   - what: what it describes, for the crash message.
    package init(builtIn xml: String, _ what: StaticString) {
        guard let info = g_dbus_node_info_new_for_xml(xml, nil) else {
            fatalError("the built-in \(what) introspection XML does not parse")
        }
        pointer = info
    }

    deinit { g_dbus_node_info_unref(pointer) }

    /// The interface `name`, valid while this value lives; a programming error when the XML lacks it.
    package func interface(_ name: String) -> UnsafeMutablePointer<GDBusInterfaceInfo> {
        guard let info = g_dbus_node_info_lookup_interface(pointer, name) else {
            fatalError("interface \(name) is not in its introspection XML")
        }
        return info
    }
}
