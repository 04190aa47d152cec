import CGIO
import Foundation
import KeychainDBus
import Testing

@testable import SecretService

/// Stands in for xdg-desktop-portal's frontend on a private bus: a connection that owns
/// `org.freedesktop.portal.Desktop` (unless told not to) and calls the provider's
/// `org.freedesktop.impl.portal.Secret.RetrieveSecret` with a pipe, as the frontend does for an app.
///
/// Not `Sendable`: one test's thread uses it. ``close()`` ends the connection.
final class PortalFrontendStub {
    let connection: OpaquePointer
    private var nextHandle = 1

    /// The answer of one call: the response code, the results' `token`, and the bytes read from the pipe.
    struct Answer {
        var response: UInt32
        var token: String?
        var secret: [UInt8]
    }

    init(_ bus: PrivateBus, owning: Bool = true) throws {
        connection = try bus.connect()
        guard owning else { return }
        switch bus.call(
            "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
            [Variant.string(SecretPortal.frontendBusName), Variant.uint32(0x4)], destination: "org.freedesktop.DBus",
            on: connection)
        {
        case .success(let reply): g_variant_unref(reply)
        case .failure(let error): throw error
        }
    }

    func close() {
        g_dbus_connection_close_sync(connection, nil, nil)
        g_object_unref(UnsafeMutableRawPointer(connection))
    }

    /// A handle as the frontend makes them: `/org/freedesktop/portal/desktop/request/<sender>/<token>`.
    func newHandle() -> String {
        defer { nextHandle += 1 }
        return "/org/freedesktop/portal/desktop/request/1_1/t\(nextHandle)"
    }

    /// Calls `RetrieveSecret` with `fd` (passed as fd index `index`; `nil`: no fd list at all).
    func call(
        appID: String, fd: Int32?, index: Int32 = 0, options: OpaquePointer? = nil, handle: String? = nil,
        timeoutMilliseconds: Int32 = 30_000
    ) -> Result<(response: UInt32, token: String?), PrivateBus.DBusError> {
        let list = fd.map { descriptor -> UnsafeMutablePointer<GUnixFDList> in
            let list = g_unix_fd_list_new()!
            _ = g_unix_fd_list_append(list, descriptor, nil)
            return list
        }
        defer { if let list { g_object_unref(UnsafeMutableRawPointer(list)) } }
        let arguments = Variant.tuple([
            Variant.objectPath(handle ?? newHandle()), Variant.string(appID), g_variant_new_handle(index)!,
            options ?? Variant.variantMap([]),
        ])
        var error: UnsafeMutablePointer<GError>?
        let reply = g_dbus_connection_call_with_unix_fd_list_sync(
            connection, "org.freedesktop.secrets", SecretPortal.objectPath, SecretPortal.interface, "RetrieveSecret",
            arguments, nil, G_DBUS_CALL_FLAGS_NONE, timeoutMilliseconds, list, nil, nil, &error)
        guard let reply else {
            let remote = error.flatMap { g_dbus_error_get_remote_error($0) }
            let name = remote.map { String(cString: $0) } ?? "(local)"
            g_free(remote)
            let message = error.map { String(cString: $0.pointee.message) } ?? ""
            if let error { g_error_free(error) }
            return .failure(PrivateBus.DBusError(name: name, message: message))
        }
        defer { g_variant_unref(reply) }
        let response = Variant.withChild(reply, 0) { g_variant_get_uint32($0) }
        let token = Variant.withChild(reply, 1) { results -> String? in
            guard let value = g_variant_lookup_value(results, "token", nil) else { return nil }
            defer { g_variant_unref(value) }
            return Variant.readString(value)
        }
        return .success((response, token))
    }

    /// Calls with the writing end of a new pipe and reads what the provider wrote to it.
    func retrieve(
        appID: String, options: OpaquePointer? = nil, handle: String? = nil, timeoutMilliseconds: Int32 = 30_000
    ) -> Result<Answer, PrivateBus.DBusError> {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return .failure(PrivateBus.DBusError(name: "(local)", message: "pipe failed")) }
        defer { Glibc.close(ends[0]) }
        let result = call(
            appID: appID, fd: ends[1], options: options, handle: handle, timeoutMilliseconds: timeoutMilliseconds)
        Glibc.close(ends[1])
        return result.map { response, token in
            Answer(response: response, token: token, secret: Self.readAll(ends[0]))
        }
    }

    /// Every byte until end of file.
    static func readAll(_ fd: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return bytes
    }
}
