/// The ``KeychainPreferences`` in one file, read again only when the file changes: for a long-running
/// process (the Secret Service provider resolves its `default` alias on most calls) that must still
/// see `security default-keychain -s` run in another process.
///
/// Each ``current()`` costs one `stat` (``FileSystem/version(_:)``: device, inode, size, modification
/// and status-change times); the file is read only when that differs from the version last read. The
/// version is taken *before* the read, so a file that changes during the read is read again at the
/// next call. The tools replace the file by a rename (a new inode); an editor that rewrites it in
/// place changes its size or times. A file whose version cannot be told (`.unknown`) is read every time.
///
/// Not `Sendable`: one owner (the provider's main context) uses it.
package final class KeychainPreferencesCache {
    /// The preferences file (`keychains.conf`).
    package let path: String
    private var version: FileSystem.Version?
    private var preferences = KeychainPreferences()
    /// How many times the file was read (for tests).
    package private(set) var reads = 0

    /// A cache of the preferences file at `path`; nothing is read until ``current()``.
    package init(path: String) {
        self.path = path
    }

    /// The preferences as the file holds them now (a missing or unreadable file gives the defaults,
    /// as ``KeychainPreferences/load(path:)``).
    package func current() -> KeychainPreferences {
        let now = FileSystem.version(path)
        if now != .unknown, now == version { return preferences }
        reads += 1
        preferences = KeychainPreferences.load(path: path)
        version = now
        return preferences
    }
}
