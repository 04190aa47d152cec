import Foundation
import KeychainFuzzing

// Built two ways:
//   scripts/fuzz TARGET SECONDS   → with -sanitize=fuzzer,address -DFUZZING: a libFuzzer binary;
//                                   the target is chosen by KEYCHAIN_FUZZ_TARGET.
//   swift build                   → a replayer: `keychain-fuzz TARGET FILE…` runs each file once;
//                                   `keychain-fuzz --make-backup-seed FILE` writes the backup seed
//                                   and record-N.bin record seeds beside it;
//                                   `keychain-fuzz --make-secretservice-seeds DIR` writes the
//                                   secretservice target's seed call sequences into DIR.

#if FUZZING
    private let target =
        FuzzTarget(rawValue: ProcessInfo.processInfo.environment["KEYCHAIN_FUZZ_TARGET"] ?? "") ?? .secItem

    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
        target.run(Data(bytes: bytes, count: count))
        return 0
    }

    // SwiftPM links an executable's entry point as `<module>_main`; hand it to libFuzzer's driver.
    @_silgen_name("LLVMFuzzerRunDriver")
    func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
    ) -> CInt

    @_cdecl("keychain_fuzz_main")
    public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
        var count = argc
        var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
        return LLVMFuzzerRunDriver(&count, &arguments, fuzzOneInput)
    }
#else
    @main
    struct FuzzReplay {
        static func main() {
            let arguments = CommandLine.arguments.dropFirst()
            if arguments.first == "--make-backup-seed", let path = arguments.dropFirst().first {
                do { try FuzzTarget.writeBackupSeed(to: path) } catch {
                    print("keychain-fuzz: \(error)")
                    exit(1)
                }
                return
            }
            if arguments.first == "--make-secretservice-seeds", let folder = arguments.dropFirst().first {
                for (name, bytes) in SecretServiceFuzzer.seeds() {
                    _ = FileManager.default.createFile(atPath: folder + "/" + name, contents: Data(bytes))
                }
                return
            }
            if arguments.first == "--make-sync-seeds", let folder = arguments.dropFirst().first {
                for (name, bytes) in SyncFuzzer.seeds() {
                    _ = FileManager.default.createFile(atPath: folder + "/" + name, contents: Data(bytes))
                }
                return
            }
            guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
                print("usage: keychain-fuzz \(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")) FILE…")
                exit(2)
            }
            for path in arguments.dropFirst() {
                guard let data = FileManager.default.contents(atPath: path) else { continue }
                if target == .secretService, ProcessInfo.processInfo.environment["KEYCHAIN_FUZZ_VERBOSE"] != nil {
                    let counts = SecretServiceFuzzer.run(data)
                    print("\(path): \(counts.replies) replies, \(counts.errors) errors")
                } else {
                    target.run(data)
                }
            }
            print("replayed \(arguments.count - 1) inputs through \(name)")
        }
    }
#endif
