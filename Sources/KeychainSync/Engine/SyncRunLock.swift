internal import Glibc
package import KeychainCore

/// One keychain's sync runs on this device, one at a time: an exclusive `flock(2)` on
/// `$XDG_STATE_HOME/keychains/sync/<device id>.lock` (beside the clone, ``GitTransport/clonePath(device:environment:)``),
/// held for the whole run, so the timer's run, the path unit's and a manual one never share the clone or interleave
/// their pushes. The kernel drops the lock when the process ends, however it ends.
///
/// A run that finds the file gone after taking the lock (the holder removed it: the keychain stopped syncing) takes
/// the lock again on a new file, so two runs never hold locks on different files at once.
package struct SyncRunLock: Sendable {
    package let path: String
    let descriptor: Int32

    /// The lock file of `device`'s sync runs in `environment`'s state folder.
    package static func path(device: SyncDeviceID, environment: [String: String]) -> String {
        GitTransport.clonePath(device: device, environment: environment) + ".lock"
    }

    /// Takes the lock at `path`, making the file (0600) and its folder (0700) when missing.
    /// - Parameters:
    ///   - wait: wait for a run that holds it to end; false: return nil at once then.
    ///   - waiting: called once before waiting.
    /// - Returns: the lock, held until ``release(removing:)`` or the process's end; nil when `wait` is false and
    ///   another run holds it.
    /// - Throws: ``SyncError`` `.local` when the file cannot be made, opened or locked (the message says why).
    package static func acquire(path: String, wait: Bool, waiting: (() -> Void)? = nil) throws(SyncError)
        -> SyncRunLock?
    {
        do { try FileSystem.makePrivateDirectory(holding: path) } catch {
            throw SyncError(.local, "cannot make the folder of \(path): \(error.detail ?? "I/O error")")
        }
        var announced = false
        while true {
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard descriptor >= 0 else { throw failure("cannot open", path) }
            var locked = flock(descriptor, LOCK_EX | LOCK_NB) == 0
            if !locked {
                guard errno == EWOULDBLOCK, wait else {
                    let busy = errno == EWOULDBLOCK
                    let error = failure("cannot lock", path)
                    close(descriptor)
                    if busy { return nil }
                    throw error
                }
                if !announced { waiting?() }
                announced = true
                repeat { locked = flock(descriptor, LOCK_EX) == 0 } while !locked && errno == EINTR
                guard locked else {
                    let error = failure("cannot lock", path)
                    close(descriptor)
                    throw error
                }
            }
            var held = stat()
            var named = stat()
            if fstat(descriptor, &held) == 0, stat(path, &named) == 0, held.st_dev == named.st_dev,
                held.st_ino == named.st_ino
            {
                return SyncRunLock(path: path, descriptor: descriptor)
            }
            close(descriptor)
        }
    }

    /// Ends the run's hold; with `removing` (the keychain no longer syncs here), first removes the file, and its
    /// folder when that leaves it empty (`rmdir(2)`). The lock is dropped with `LOCK_UN` before the descriptor is
    /// closed: a child being spawned at that moment holds a copy of the descriptor until its `exec` closes it
    /// (`O_CLOEXEC`), and `flock(2)` keeps the lock while any copy is open, so a close alone could leave the next run
    /// finding it busy (seen when the tool runs in the test process beside other tests starting processes).
    package func release(removing: Bool) {
        if removing {
            unlink(path)
            rmdir(FileSystem.directory(of: path))
        }
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    private static func failure(_ action: String, _ path: String) -> SyncError {
        SyncError(.local, "\(action) \(path): \(String(cString: strerror(errno)))")
    }
}
