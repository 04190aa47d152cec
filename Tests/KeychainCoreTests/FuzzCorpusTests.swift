import Foundation
import Testing
import KeychainFuzzing

/// Replays the committed fuzz corpus (tracker issue 8): every input, including each crash the fuzzer
/// found (kept as a regression), must run through its target without crashing.
@Suite("Fuzz corpus replay")
struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus")

    @Test("every corpus input runs through its target", arguments: FuzzTarget.allCases)
    func replay(target: FuzzTarget) throws {
        let folder = Self.corpus.appendingPathComponent(target.rawValue)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(!files.isEmpty, "the \(target.rawValue) corpus is empty")
        for file in files {
            target.run(try Data(contentsOf: folder.appendingPathComponent(file)))
        }
    }
}
