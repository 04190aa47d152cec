internal import CGIO
internal import KeychainDBus

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// What the bus daemon says about a connection: `org.freedesktop.DBus.GetConnectionCredentials`
/// (D-Bus specification, "Message Bus Messages"). The daemon reads them from the socket
/// (`SO_PEERCRED`, `SO_PEERPIDFD`, `SO_PEERSEC`), so the client cannot choose them.
///
/// Not `Sendable`: it owns ``processFD``, closed in `deinit`.
final class BusCredentials {
    /// `UnixUserID`.
    let uid: UInt32?
    /// `ProcessID`.
    let pid: Int32?
    /// `ProcessFD`: a pidfd of the connecting process, offered by dbus-broker and dbus-daemon 1.15.6+
    /// (not by Debian 12's 1.14); `-1` when not offered. Owned by this object.
    private(set) var processFD: Int32
    /// `LinuxSecurityLabel` without its trailing NUL (an AppArmor label such as `snap.foo.foo (enforce)`,
    /// or `unconfined`).
    let securityLabel: String?

    init(uid: UInt32?, pid: Int32?, processFD: Int32, securityLabel: String?) {
        self.uid = uid
        self.pid = pid
        self.processFD = processFD
        self.securityLabel = securityLabel
    }

    deinit { if processFD >= 0 { close(processFD) } }

    /// Hands the pidfd to a new owner (`-1` if none); this object no longer closes it.
    func takeProcessFD() -> Int32 {
        defer { processFD = -1 }
        return processFD
    }

    /// Asks the bus daemon about `uniqueName` over `connection` (a blocking round trip; called once
    /// per connection, whose answer ``CallerRegistry`` keeps).
    /// - Throws: ``CallerLookupError/credentials(_:)`` with GDBus's message when the daemon refuses
    ///   (the name has already left the bus, for example).
    static func query(_ uniqueName: String, on connection: OpaquePointer) throws(CallerLookupError) -> BusCredentials {
        // A peer-to-peer connection (no bus daemon: the fuzz target's socket pair) has one peer, whose
        // credentials GLib read from the socket when it authenticated.
        if g_dbus_connection_get_unique_name(connection) == nil {
            guard let peer = g_dbus_connection_get_peer_credentials(connection) else {
                throw .credentials("a peer-to-peer connection without credentials")
            }
            let uid = g_credentials_get_unix_user(peer, nil)
            let pid = g_credentials_get_unix_pid(peer, nil)
            return BusCredentials(uid: UInt32(uid), pid: pid > 0 ? pid : nil, processFD: -1, securityLabel: nil)
        }
        var error: UnsafeMutablePointer<GError>?
        var fdList: UnsafeMutablePointer<GUnixFDList>?
        let reply = Variant.withType("(a{sv})") { replyType in
            g_dbus_connection_call_with_unix_fd_list_sync(
                connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                "GetConnectionCredentials", Variant.tuple([Variant.string(uniqueName)]), replyType,
                G_DBUS_CALL_FLAGS_NONE, 5000, nil, &fdList, nil, &error)
        }
        defer { if let fdList { g_object_unref(UnsafeMutableRawPointer(fdList)) } }
        guard let reply else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "no reply"
            if let error { g_error_free(error) }
            throw .credentials(message)
        }
        defer { g_variant_unref(reply) }
        let map = Variant.withChild(reply, 0, Variant.readVariantMap)
        defer { Variant.release(map) }
        let uid = map["UnixUserID"].flatMap { Variant.isOfType($0, "u") ? UInt32(g_variant_get_uint32($0)) : nil }
        let pid = map["ProcessID"].flatMap {
            Variant.isOfType($0, "u") ? Int32(bitPattern: g_variant_get_uint32($0)) : nil
        }
        var processFD: Int32 = -1
        if let value = map["ProcessFD"], Variant.isOfType(value, "h"), let fdList {
            processFD = g_unix_fd_list_get(fdList, g_variant_get_handle(value), nil)
        }
        let label = map["LinuxSecurityLabel"].flatMap { value -> String? in
            guard Variant.isOfType(value, "ay") else { return nil }
            return Variant.withBytes(value) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
        }
        return BusCredentials(uid: uid, pid: pid, processFD: processFD, securityLabel: label)
    }
}
