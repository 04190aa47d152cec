/// GDBus refused to export an object or subtree (``BusConnection/registerObject(_:interface:handler:)``,
/// ``BusConnection/registerSubtree(_:handler:)``): the path is exported already on that connection, or
/// is not an object path.
package struct BusRegistrationError: Error, Equatable, CustomStringConvertible {
    /// The object path that was refused.
    package let path: String
    /// GDBus's message (`GError`), "unknown error" when it gave none.
    package let message: String

    package init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// "`path`: `message`".
    package var description: String { "\(path): \(message)" }
}
