import Foundation
import KeychainFuzzing
import Testing

/// The `secretservice` fuzz target's seeds (issue 17): call sequences that reach deep into the
/// provider's handlers, so that fuzzing starts past GDBus's checks. The corpus replay
/// (`FuzzCorpusTests`) runs them and every input the fuzzer kept.
@Suite("Secret Service fuzz target")
struct ProviderFuzzSeedTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Corpus/secretservice")

    @Test("The committed seeds are the ones SecretServiceFuzzer.seeds() writes")
    func seedsAreCommitted() throws {
        #expect(SecretServiceFuzzer.isReady)
        for (name, bytes) in SecretServiceFuzzer.seeds() {
            #expect(try Data(contentsOf: Self.corpus.appendingPathComponent(name)) == Data(bytes), "\(name)")
        }
    }

    /// Replies and errors per seed: the errors are the ones the sequence provokes on purpose (a secret
    /// sent in the clear on a DH session, then reading the item that was not made; reading while locked).
    @Test(
        "Each seed's calls get the replies and errors the sequence implies",
        arguments: [
            ("seed-plain-create-read.bin", 6, 0), ("seed-dh-open.bin", 2, 2), ("seed-lock-unlock-prompt.bin", 6, 1),
            ("seed-set-delete.bin", 6, 0), ("seed-collection-alias.bin", 4, 0),
        ])
    func seedReachesHandlers(name: String, replies: Int, errors: Int) throws {
        let counts = SecretServiceFuzzer.run(try Data(contentsOf: Self.corpus.appendingPathComponent(name)))
        #expect(counts.replies == replies)
        #expect(counts.errors == errors)
    }

    @Test("Empty, truncated and junk inputs run without a crash")
    func junk() {
        for input in [Data(), Data([0]), Data([0, 0x80, 0xff, 0xff]), Data(repeating: 0xff, count: 600)] {
            let counts = SecretServiceFuzzer.run(input)
            #expect(counts.replies + counts.errors <= SecretServiceFuzzer.maxCalls)
        }
    }
}
