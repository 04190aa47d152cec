internal import CGIO

/// The handlers of one exported subtree (``BusConnection/registerSubtree(_:handler:)``): which child
/// nodes it lists, which interfaces a node has, and which method table answers a call on a node.
/// Owns its GDBus vtable.
package final class BusSubtreeHandler {
    /// The introspection data whose interfaces ``introspect`` names.
    package let nodeInfo: BusNodeInfo
    /// The child nodes of a subtree root (names, not paths).
    package let enumerate: (_ root: String) -> [String]
    /// The interface names of `node` under `path` (`node` nil: the path itself). GLib 2.74 passes the
    /// subtree root as `path` when introspecting, and the full object path when dispatching a call.
    package let introspect: (_ path: String, _ node: String?) -> [String]
    /// The method table for a call on `node` under `path` (same arguments as ``introspect``): one the
    /// owner keeps for as long as the subtree is exported.
    package let dispatch: (_ path: String, _ node: String?) -> BusInterfaceHandler
    /// The vtable GDBus calls, with this object as its user data.
    let vtable: UnsafeMutablePointer<GDBusSubtreeVTable>
    /// The paths and nodes of recent callbacks (GDBus asks ``introspect`` and ``dispatch`` about the
    /// same path for every call).
    private let strings = BusStringCache()

    package init(
        nodeInfo: BusNodeInfo, enumerate: @escaping (String) -> [String],
        introspect: @escaping (String, String?) -> [String],
        dispatch: @escaping (String, String?) -> BusInterfaceHandler
    ) {
        self.nodeInfo = nodeInfo
        self.enumerate = enumerate
        self.introspect = introspect
        self.dispatch = dispatch
        vtable = .allocate(capacity: 1)
        vtable.initialize(to: Self.makeVTable())
    }

    deinit { vtable.deallocate() }

    private static func handler(_ data: UnsafeMutableRawPointer?) -> BusSubtreeHandler {
        Unmanaged<BusSubtreeHandler>.fromOpaque(data!).takeUnretainedValue()
    }

    private static func makeVTable() -> GDBusSubtreeVTable {
        var table = GDBusSubtreeVTable()
        table.enumerate = { _, _, path, data in
            let subtree = BusSubtreeHandler.handler(data)
            let names = subtree.enumerate(subtree.strings.string(path!))
            let array = g_malloc0(gsize((names.count + 1) * MemoryLayout<UnsafeMutablePointer<gchar>?>.stride))!
                .bindMemory(to: UnsafeMutablePointer<gchar>?.self, capacity: names.count + 1)
            for (index, name) in names.enumerated() { array[index] = g_strdup(name) }
            return array
        }
        table.introspect = { _, _, path, node, data in
            let subtree = BusSubtreeHandler.handler(data)
            let names = subtree.introspect(subtree.strings.string(path!), node.map(subtree.strings.string))
            let array = g_malloc0(
                gsize((names.count + 1) * MemoryLayout<UnsafeMutablePointer<GDBusInterfaceInfo>?>.stride))!
                .bindMemory(to: UnsafeMutablePointer<GDBusInterfaceInfo>?.self, capacity: names.count + 1)
            for (index, name) in names.enumerated() {
                array[index] = g_dbus_interface_info_ref(subtree.nodeInfo.interface(name))
            }
            return array
        }
        table.dispatch = { _, _, path, _, node, outData, data in
            let subtree = BusSubtreeHandler.handler(data)
            let target = subtree.dispatch(subtree.strings.string(path!), node.map(subtree.strings.string))
            outData?.pointee = Unmanaged.passUnretained(target).toOpaque()
            return UnsafePointer(target.vtable)
        }
        return table
    }
}
