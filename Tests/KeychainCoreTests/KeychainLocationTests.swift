import Foundation
import Testing

@testable import KeychainCore

@Suite("Keychain names and paths")
struct KeychainLocationTests {
    let environment = ["HOME": "/home/u", "XDG_DATA_HOME": "/data", "XDG_STATE_HOME": "/state"]

    @Test("the login keychain and the device key follow the XDG base directories")
    func defaults() {
        #expect(KeychainLocation.login(environment: environment).databasePath == "/data/keychains/login.keychain-db")
        #expect(KeychainLocation.login(environment: environment).deviceKeyPath == "/state/keychains/device.key")
        let bare = ["HOME": "/home/u"]
        #expect(
            KeychainLocation.login(environment: bare).databasePath == "/home/u/.local/share/keychains/login.keychain-db"
        )
        #expect(KeychainLocation.login(environment: bare).deviceKeyPath == "/home/u/.local/state/keychains/device.key")
    }

    @Test(
        "X.keychain means X.keychain-db, as on macOS since 10.12",
        arguments: ["login", "login.keychain", "login.keychain-db"])
    func legacySuffix(name: String) {
        #expect(
            KeychainLocation.named(name, environment: environment).databasePath == "/data/keychains/login.keychain-db")
    }

    @Test("a relative path is made absolute against the current folder and normalised")
    func relativePath() {
        let cwd = FileManager.default.currentDirectoryPath
        let expected = URL(fileURLWithPath: cwd).appendingPathComponent("sub/work.keychain-db").standardizedFileURL.path
        #expect(
            KeychainLocation.named("./sub/../sub/work.keychain-db", environment: environment).databasePath == expected)
        #expect(
            KeychainLocation.named("/abs/dir/work.keychain", environment: environment).databasePath
                == "/abs/dir/work.keychain-db")
    }

    @Test(
        "a path is made absolute and normalised as Foundation's standardizedFileURL did, without reading the disk",
        arguments: [
            "./sub/../sub/work.keychain-db", "a//b/c", "../x/y", "../../../../../../../../x", "/a/b/../../../c", "a/b/",
            "a/./b/.", "a/b/..", "/", "//a", "a/.../b", "a/.hidden/../b", "/a/b%20c/d", "a b/c", "a/b?c#d/x", "dir/",
            "/abs/dir/work.keychain", "./", "..", "a/../..", "/..", "/a//../b", "a/b/./../c/", "~/x", "~root/x",
            "~no-such-user-here/x", "a/~/b", "~/../x", "~//x/", "/a/./", "a/:b/c", "//", "///a//b//",
        ])
    func absolutePath(path: String) {
        for cwd in ["/work/cwd/here", "/"] {
            let base = URL(fileURLWithPath: cwd, isDirectory: true)
            let foundation = URL(fileURLWithPath: path, relativeTo: base).standardizedFileURL.path
            #expect(FileSystem.absolutePath(path, currentDirectory: cwd) == foundation, "from \(cwd)")
        }
        let here = FileManager.default.currentDirectoryPath
        #expect(FileSystem.currentDirectory() == here)
        #expect(
            FileSystem.absolutePath(path)
                == URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: here)).standardizedFileURL.path)
    }
}
