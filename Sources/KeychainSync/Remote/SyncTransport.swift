/// Where the remote's files are read and written: a folder another engine keeps in sync, or a private clone
/// of a git remote. Paths are relative to the remote's root (`trust/…`, `devices/<id>/…`, `requests/…`).
///
/// Each device writes only its own files (its segments, its head, its join request) and, when it changes
/// trust, a new trust file named after itself, so no engine ever has to merge a file (docs/SYNC.md, "Layout").
package protocol SyncTransport {
    /// A line for messages: the URL or folder.
    var displayName: String { get }
    /// Brings the local view up to date with the remote (git: fetch and fast-forward; a folder: nothing).
    func pull() throws(SyncError)
    /// The names of the files directly in `directory`, sorted; engine temporaries and conflict copies
    /// (`*.sync-conflict-*`, `.syncthing.*`, `~*`, `*.tmp`, `*.new-*`) left out; empty when it is missing.
    func list(_ directory: String) throws(SyncError) -> [String]
    /// The names of the folders directly in `directory`, sorted; empty when it is missing.
    func folders(_ directory: String) throws(SyncError) -> [String]
    /// A file's bytes, or nil when it is missing.
    func read(_ path: String) throws(SyncError) -> [UInt8]?
    /// Writes files atomically (temporary file, then rename).
    func write(_ files: [(path: String, bytes: [UInt8])]) throws(SyncError)
    /// Removes files (only this device's own join request).
    func remove(_ paths: [String]) throws(SyncError)
    /// Makes what was written visible to the other devices (git: commit and push; a folder: nothing).
    func publish(message: String) throws(SyncError)
}

extension SyncTransport {
    /// Whether a name in a synced folder is a file of the format rather than an engine's temporary or
    /// conflict copy (Syncthing's `*.sync-conflict-*` and `.syncthing.*.tmp`, Nextcloud's and Dropbox's
    /// `~…` and `*.tmp`, and our own `*.new-<pid>`).
    static func isFormatName(_ name: String) -> Bool {
        !name.hasPrefix(".") && !name.hasPrefix("~") && !name.hasSuffix(".tmp") && !name.contains(".sync-conflict-")
            && !name.contains(".new-") && !name.contains(" (conflicted copy")
    }
}
