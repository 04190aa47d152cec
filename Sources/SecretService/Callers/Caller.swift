package import KeychainCore

/// The client behind one Secret Service call: its bus connection, its process and its identity
/// (issue 23, item 5; issue 27, item 1).
///
/// Made once per connection by ``CallerRegistry`` from the bus daemon's `GetConnectionCredentials`
/// and the caller's `/proc` entry read through a pidfd, and kept until the connection leaves the bus.
package struct Caller: Sendable, Hashable, CustomStringConvertible {
    /// The connection's unique bus name (`:1.42`).
    package let uniqueName: String
    /// The connection's Unix user id, from the bus daemon.
    package let uid: UInt32?
    /// The connection's process id, from the bus daemon, when it told one.
    package let pid: Int32?
    /// Who the program is.
    package let identity: CallerIdentity

    package init(uniqueName: String, uid: UInt32? = nil, pid: Int32? = nil, identity: CallerIdentity) {
        self.uniqueName = uniqueName
        self.uid = uid
        self.pid = pid
        self.identity = identity
    }

    /// A caller whose process was not looked at (stores driven in-process, tests of the store alone).
    package static func unidentified(_ uniqueName: String) -> Caller {
        Caller(uniqueName: uniqueName, identity: CallerIdentity(kind: .unidentified))
    }

    package var description: String {
        "\(identity.string) (\(uniqueName)\(pid.map { ", pid \($0)" } ?? "")\(identity.unit.map { ", \($0)" } ?? ""))"
    }
}
