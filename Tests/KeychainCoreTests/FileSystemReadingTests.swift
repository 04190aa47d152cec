import Foundation
import Testing

@testable import KeychainCore

/// The POSIX readers that replaced `FileManager` in the engine (tracker issue 23): each answers as the
/// `FileManager` call it replaced.
@Suite("File system readers")
struct FileSystemReadingTests {
    let folder: String

    init() throws {
        folder = NSTemporaryDirectory() + "swkc-fs-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    @Test("contents: the whole file, empty for an empty one, nil for a missing file or a folder")
    func contents() throws {
        let big = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(big).write(to: URL(fileURLWithPath: folder + "/big"))
        try Data().write(to: URL(fileURLWithPath: folder + "/empty"))
        #expect(FileSystem.contents(folder + "/big") == big)
        #expect(FileSystem.contents(folder + "/empty") == [])
        #expect(FileSystem.contents(folder + "/missing") == nil)
        #expect(FileSystem.contents(folder) == nil)
        #expect(FileManager.default.contents(atPath: folder) == nil)
        try? FileManager.default.removeItem(atPath: folder)
    }

    @Test("entries and isExecutable answer as contentsOfDirectory and isExecutableFile")
    func entriesAndExecutable() throws {
        for name in ["a", ".hidden", "b.keychain-db"] {
            #expect(FileManager.default.createFile(atPath: folder + "/" + name, contents: Data()))
        }
        try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: false)
        #expect(chmod(folder + "/a", 0o755) == 0)
        #expect(
            FileSystem.entries(folder)?.sorted()
                == (try FileManager.default.contentsOfDirectory(atPath: folder)).sorted())
        #expect(FileSystem.entries(folder + "/missing") == nil)
        #expect(FileSystem.entries(folder + "/a") == nil)
        for path in [folder + "/a", folder + "/.hidden", folder + "/sub", folder + "/missing", "/usr/bin/env"] {
            #expect(FileSystem.isExecutable(path) == FileManager.default.isExecutableFile(atPath: path), "\(path)")
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    @Test(
        "modificationTime answers as attributesOfItem's modificationDate: a file's, a symbolic link's own, nil when missing"
    )
    func modificationTime() throws {
        let file = folder + "/file"
        let link = folder + "/link"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: 1_000_000_000.25)], ofItemAtPath: file)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
        for path in [file, link] {
            let date = try #require(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
            let time = try #require(FileSystem.modificationTime(path))
            #expect(abs(time.secondsSince1970 - date.timeIntervalSince1970) < 0.000_001, "\(path)")
        }
        #expect(FileSystem.modificationTime(file)?.secondsSince1970 == 1_000_000_000.25)
        // The link's own time (made now), not its target's.
        #expect((FileSystem.modificationTime(link)?.secondsSince1970 ?? 0) > 1_700_000_000)
        #expect(FileSystem.modificationTime(folder + "/missing") == nil)
        try? FileManager.default.removeItem(atPath: folder)
    }

    @Test("removeTree removes a folder and everything in it, a symbolic link but never what it points to")
    func removeTree() throws {
        let outside = folder + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: outside + "/keep", contents: Data("x".utf8)))
        let tree = folder + "/tree"
        try FileManager.default.createDirectory(atPath: tree + "/a/b", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: tree + "/a/b/file", contents: Data("y".utf8)))
        #expect(FileManager.default.createFile(atPath: tree + "/.git", contents: Data()))
        try FileManager.default.createSymbolicLink(atPath: tree + "/a/link", withDestinationPath: outside)
        #expect(FileSystem.removeTree(tree))
        #expect(!FileManager.default.fileExists(atPath: tree))
        #expect(FileManager.default.fileExists(atPath: outside + "/keep"))
        #expect(!FileSystem.removeTree(tree))
        #expect(FileSystem.removeTree(outside + "/keep"))
        #expect(FileSystem.entries(outside) == [])
        try? FileManager.default.removeItem(atPath: folder)
    }
}
