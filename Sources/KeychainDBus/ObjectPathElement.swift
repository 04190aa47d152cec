/// `[A-Za-z0-9_]`: the bytes of a D-Bus object path element (D-Bus Specification, "Valid Object Paths").
/// - Parameter byte: one UTF-8 byte of a would-be element.
/// - Returns: whether an object path element may hold it.
/// Inlinable: callers in other modules check paths byte by byte several times per D-Bus call.
@inlinable package func isPathElementByte(_ byte: UInt8) -> Bool {
    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
}
