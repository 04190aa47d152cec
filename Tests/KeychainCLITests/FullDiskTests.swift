import Foundation
import Testing

@testable import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// A keychain on a full file system (tracker issue 24, item 6): reads work and nothing is lost; a
/// delete, which SQLite must journal before it frees anything, either works or says how to free space.
/// It mounts a small tmpfs, so it needs root: CI runs it in its root step (`.ci/run`).
@Suite("a keychain on a full disk", .serialized)
struct FullDiskTests {
    static let isRoot = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/mount")

    static func shell(_ command: String) throws -> Outcome {
        try EndToEndTests.run("/bin/sh", ["-c", command], environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"])
    }

    @Test(
        "On a full tmpfs, a delete-generic-password works or says to free space; reads keep working and no item is lost",
        .enabled(if: isRoot, "mounts a tmpfs: needs root (CI runs it in its root step)"))
    func deleteOnFullDisk() throws {
        let sandbox = try Sandbox()
        let mountPoint = sandbox.directory + "/small"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        try #require(try Self.shell("mount -t tmpfs -o size=1m,mode=0700 swkc-full-disk '\(mountPoint)'").status == 0)
        defer { _ = try? Self.shell("umount '\(mountPoint)'") }
        let security = try EndToEndTests.tool("security")
        let path = mountPoint + "/full.keychain-db"
        func run(_ arguments: String...) throws -> Outcome {
            try EndToEndTests.run(security, arguments, environment: sandbox.environment)
        }
        #expect(try run("create-keychain", "-p", "pw", path).status == 0)
        for index in 0..<20 {
            #expect(
                try run(
                    "add-generic-password", "-a", "a", "-s", "s\(index)", "-w", String(repeating: "x", count: 2000),
                    path
                ).status == 0)
        }
        // Fill what is left of the file system.
        _ = try Self.shell("dd if=/dev/zero of='\(mountPoint)/filler' bs=4k 2>/dev/null; sync")
        let add = try run(
            "add-generic-password", "-a", "a", "-s", "more", "-w", String(repeating: "y", count: 20000), path)
        #expect(add.status != 0, "the file system is full: \(add)")
        #expect(add.stderr.contains("free space"), "the error says how to free space: \(add)")
        let delete = try run("delete-generic-password", "-s", "s3", path)
        #expect(delete.status == 0 || delete.stderr.contains("free space"), "\(delete)")
        // A new process cannot even make SQLite's WAL index there: it says so, never "not a valid keychain".
        let read = try run("find-generic-password", "-s", "s4", "-w", path)
        #expect(
            read.stdout == String(repeating: "x", count: 2000) + "\n" || read.stderr.contains("free space"), "\(read)")
        #expect(!read.stderr.contains("not a valid keychain"), "\(read)")
        // Freeing space as told makes the delete work, and nothing was lost.
        try FileManager.default.removeItem(atPath: mountPoint + "/filler")
        let s3 = try run("find-generic-password", "-s", "s3", path)
        #expect(s3.status == (delete.status == 0 ? 44 : 0), "s3 is gone exactly when the delete said so: \(s3)")
        if delete.status != 0 { #expect(try run("delete-generic-password", "-s", "s3", path).status == 0) }
        for index in 0..<20 where index != 3 {
            #expect(
                try run("find-generic-password", "-s", "s\(index)", "-w", path).stdout == String(
                    repeating: "x", count: 2000) + "\n")
        }
        try Keystore(
            location: KeychainLocation(databasePath: path, deviceKeyPath: sandbox.location.deviceKeyPath), create: false
        )
        .withdrawAllClassKeys()
    }
}
