internal import KeychainCore

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// The provider's callers, one per connection (unique bus name), looked up on a connection's first
/// call and kept until it leaves the bus (`NameOwnerChanged`), so each later call costs one dictionary
/// lookup (issue 27: "cached per connection").
///
/// A lookup asks the bus daemon for the connection's credentials, refuses another Unix user, then
/// reads the process through a pidfd, or its start time without `pidfd_open` (``ProcessHandle``,
/// ``ProcessIdentifier``).
///
/// Not `Sendable`: used on the provider's main context only.
final class CallerRegistry {
    /// The uid every caller must have: the provider's own.
    let uid: UInt32
    private var callers: [String: Caller] = [:] {
        didSet { last = nil }
    }
    /// The caller of the last call, while ``callers`` is unchanged: a client's calls come in runs, and its
    /// name, which GDBus hands over as the same string each time, is then compared, not hashed.
    private var last: Caller?
    private let digests = ExecutableDigest()
    /// Replaces the bus and `/proc` lookup (tests of callers the test process cannot be).
    var lookup: ((String) throws(CallerLookupError) -> Caller)?
    /// Opens a caller's pidfd when the bus daemon gives none (tests: one failing as on a kernel
    /// without `pidfd_open`, to take the start-time fallback of ``ProcessHandle``).
    var openPidfd: ProcessHandle.PidfdOpener = ProcessHandle.systemPidfdOpener

    init(uid: UInt32 = getuid()) {
        self.uid = uid
    }

    /// The caller behind `uniqueName`, from the cache or looked up now over `connection`.
    /// - Throws: ``CallerLookupError/otherUser(_:)`` for a connection of another uid; the other cases
    ///   of ``CallerLookupError`` when the daemon or the process cannot tell who it is.
    func caller(_ uniqueName: String, on connection: OpaquePointer) throws(CallerLookupError) -> Caller {
        if let last, last.uniqueName == uniqueName { return last }
        if let known = callers[uniqueName] {
            last = known
            return known
        }
        let caller: Caller
        if let lookup { caller = try lookup(uniqueName) } else { caller = try identify(uniqueName, on: connection) }
        callers[uniqueName] = caller
        return caller
    }

    /// The cached caller of `uniqueName`, if it made a call.
    func cached(_ uniqueName: String) -> Caller? { callers[uniqueName] }

    /// Forgets a connection that left the bus.
    func forget(_ uniqueName: String) { callers[uniqueName] = nil }

    /// The number of connections known (tests: the cache empties as clients leave).
    var count: Int { callers.count }

    private func identify(_ uniqueName: String, on connection: OpaquePointer) throws(CallerLookupError) -> Caller {
        let credentials = try BusCredentials.query(uniqueName, on: connection)
        guard let callerUID = credentials.uid else { throw .credentials("no UnixUserID") }
        guard callerUID == uid else { throw .otherUser(callerUID) }
        guard let pid = credentials.pid else {
            return Caller(uniqueName: uniqueName, uid: callerUID, identity: CallerIdentity(kind: .unidentified))
        }
        let processFD = credentials.takeProcessFD()
        let process = try ProcessHandle(pid: pid, pidfd: processFD >= 0 ? processFD : nil, openPidfd: openPidfd)
        let identity = try ProcessIdentifier.identify(
            process, securityLabel: credentials.securityLabel, digests: digests)
        return Caller(uniqueName: uniqueName, uid: callerUID, pid: pid, identity: identity)
    }
}
