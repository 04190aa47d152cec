// swift-tools-version: 6.0
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "swift-keychain",
    products: [
        .library(name: "KeychainServices", targets: ["KeychainServices"]),
        .library(name: "Keychain", targets: ["Keychain"]),
        // Apple's module name on Linux: re-exports KeychainServices so `import Security` compiles unchanged.
        .library(name: "Security", targets: ["Security"]),
        // Apple's LocalAuthentication on Linux: LAContext asks for the keychain password.
        .library(name: "LocalAuthentication", targets: ["LocalAuthentication"]),
        .executable(name: "security", targets: ["security"]),
        .executable(name: "git-credential-keychain", targets: ["git-credential-keychain"]),
        .executable(name: "docker-credential-keychain", targets: ["docker-credential-keychain"]),
        .executable(name: "keychain-bench", targets: ["keychain-bench"]),
        .executable(name: "keychain-secret-service", targets: ["keychain-secret-service"]),
        // The program pam_keychain.so (pam/, docs/PAM.md) starts as the user at login and password changes.
        .executable(name: "keychain-pam-helper", targets: ["keychain-pam-helper"]),
        // SSH_ASKPASS for ssh-add, answering from the login keychain with gcr-ssh-agent's items.
        .executable(name: "keychain-ssh-askpass", targets: ["keychain-ssh-askpass"]),
    ],
    targets: [
        // C libraries from Debian's -dev packages (see design brief: libsodium and SQLite only).
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // OpenSSL 3's libcrypto: SecKey (EC, RSA), X.509 and PKCS #12 (KeychainCrypto), and the Secret
        // Service DH session (SecretService: RFC 2409 group 2, HKDF-SHA256, AES-128-CBC). Headers from Debian
        // libssl-dev; the library is opened with dlopen at its first use, not linked, so that a tool that never
        // needs it does not load it (issue 23): hence no pkgConfig, whose `-lcrypto` would link it.
        .systemLibrary(name: "COpenSSL"),
        // Non-variadic wrappers of the kernel keyring syscalls (lock state shared by the user's processes).
        .systemLibrary(name: "CKeyring"),
        // GLib's GIO: D-Bus (GDBus) for KeychainDBus and the Secret Service provider only.
        .systemLibrary(name: "CGIO", pkgConfig: "gio-2.0", providers: [.apt(["libglib2.0-dev"])]),
        // tpm2-tss's ESAPI, TCTI loader and marshalling (no FAPI): KeychainTPM only (issue 28). Headers in
        // /usr/include/tss2 (Debian libtss2-dev); no pkgConfig, whose -pthread SwiftPM warns about. The
        // libraries are opened with dlopen at the first TPM use, not linked, so that a process that never
        // meets a TPM does not load them (issue 23).
        .systemLibrary(name: "CTSS2"),
        // jansson (Debian libjansson-dev): the JSON docker-credential-keychain's `store` reads, parsed with an
        // allocator whose free wipes each block (the document holds a secret); KeychainDockerCredential only.
        .systemLibrary(name: "CJansson", pkgConfig: "jansson", providers: [.apt(["libjansson-dev"])]),
        // glibc's pidfd_open and pidfd_send_signal (sys/pidfd.h): the Secret Service provider's caller identity.
        .systemLibrary(name: "CPidfd"),
        // libplist 2.2 (Debian libplist-dev): entitlements files and legacy item records, the two property
        // lists the engine reads. Opened with dlopen at its first use, not linked, so that a process that never
        // reads one does not load it (issue 23): hence no pkgConfig, whose `-lplist-2.0` would link it.
        .systemLibrary(name: "CPlist"),

        // SecureBytes: the one zeroising byte type (sodium_malloc storage), shared by KeychainCore and KeychainCrypto.
        .target(name: "KeychainSecureMemory", dependencies: ["CSodium"], swiftSettings: strictSettings),
        // The engine: item store, keybag, crypto, query model, entitlements.
        .target(
            name: "KeychainCore",
            dependencies: ["KeychainSecureMemory", "CSodium", "CSQLite", "CKeyring", "CPlist", "KeychainTPM"],
            swiftSettings: strictSettings),
        // The device key sealed by a TPM 2.0 (docs/ARCHITECTURE.md, "Device key"): every process that opens
        // a keychain may need to unseal it, so it links where KeychainCore does.
        .target(name: "KeychainTPM", dependencies: ["CTSS2"], swiftSettings: strictSettings),
        // Keys, certificates and PKCS #12 over libcrypto: the engine behind SecKey, SecCertificate, SecIdentity.
        .target(
            name: "KeychainCrypto", dependencies: ["KeychainSecureMemory", "COpenSSL"], swiftSettings: strictSettings),
        // Key, certificate and identity items below SecItem, without Foundation: derived attributes and
        // the identity join, shared by KeychainServices and the security tool's certificate commands.
        .target(
            name: "KeychainItems", dependencies: ["KeychainCore", "KeychainCrypto", "KeychainTPM"],
            swiftSettings: strictSettings),
        // Apple's SecItem API, names and statuses unchanged.
        .target(
            name: "KeychainServices", dependencies: ["KeychainCore", "KeychainCrypto", "KeychainItems"],
            swiftSettings: strictSettings),
        // `import Security` on Linux (design brief: module `Security`); no code of its own.
        .target(name: "Security", dependencies: ["KeychainServices"], swiftSettings: strictSettings),
        // LAContext, LAPolicy, LAError (design brief: product `LocalAuthentication`).
        .target(name: "LocalAuthentication", dependencies: ["KeychainCore"], swiftSettings: strictSettings),
        // The high-level Swift API.
        .target(name: "Keychain", dependencies: ["KeychainCore"], swiftSettings: strictSettings),
        // The command-line tools: one library per tool over a small shared support target (options,
        // I/O, failures, platform calls), none linking Foundation; the executables are thin mains.
        .target(name: "KeychainToolSupport", dependencies: ["KeychainCore"], swiftSettings: strictSettings),
        .target(
            name: "KeychainSecurityTool",
            dependencies: ["KeychainToolSupport", "KeychainCore", "KeychainItems", "KeychainCrypto", "KeychainSync"],
            swiftSettings: strictSettings),
        .target(
            name: "KeychainGitCredential", dependencies: ["KeychainToolSupport", "KeychainCore"],
            swiftSettings: strictSettings),
        .target(
            name: "KeychainDockerCredential", dependencies: ["KeychainToolSupport", "KeychainCore", "CJansson"],
            swiftSettings: strictSettings),
        .executableTarget(
            name: "security", dependencies: ["KeychainSecurityTool", "KeychainToolSupport"],
            swiftSettings: strictSettings),
        .executableTarget(
            name: "git-credential-keychain", dependencies: ["KeychainGitCredential", "KeychainToolSupport"],
            swiftSettings: strictSettings),
        .executableTarget(
            name: "docker-credential-keychain", dependencies: ["KeychainDockerCredential", "KeychainToolSupport"],
            swiftSettings: strictSettings),
        .executableTarget(
            name: "keychain-bench",
            dependencies: ["KeychainCore", "KeychainServices", "KeychainTesting", "CSodium", "CSQLite"],
            swiftSettings: strictSettings),
        // End-to-end encrypted sync of synchronizable items over git or a synced folder (docs/SYNC.md, issue 26).
        .target(
            name: "KeychainSync", dependencies: ["KeychainCore", "KeychainSecureMemory", "CSodium"],
            swiftSettings: strictSettings),
        // The D-Bus support layer over GDBus (connection, exports and method tables, deferred replies,
        // fd lists, signals, name watches, owned GVariant builders, main-loop timers and signals): what the
        // provider, the portal backend, the session agent and the migration client share.
        .target(name: "KeychainDBus", dependencies: ["CGIO"], swiftSettings: strictSettings),
        // The freedesktop Secret Service provider (org.freedesktop.secrets over GDBus) and its thin main.
        .target(
            name: "SecretService", dependencies: ["KeychainCore", "KeychainDBus", "CGIO", "COpenSSL", "CPidfd"],
            swiftSettings: strictSettings),
        .executableTarget(
            name: "keychain-secret-service", dependencies: ["SecretService"], swiftSettings: strictSettings),
        // What pam_keychain.so asks at login, logout and password changes (docs/PAM.md), and its thin main.
        .target(name: "KeychainPAM", dependencies: ["KeychainCore"], swiftSettings: strictSettings),
        .executableTarget(name: "keychain-pam-helper", dependencies: ["KeychainPAM"], swiftSettings: strictSettings),
        // ssh-add's passphrases from the login keychain (gcr-ssh-agent's unique=ssh-store:<path> items).
        .target(name: "KeychainSSHAskpass", dependencies: ["KeychainCore"], swiftSettings: strictSettings),
        .executableTarget(
            name: "keychain-ssh-askpass", dependencies: ["KeychainSSHAskpass"], swiftSettings: strictSettings),
        // libFuzzer targets (scripts/fuzz) and their corpus replayer.
        .target(
            name: "KeychainFuzzing",
            dependencies: [
                "KeychainCore", "KeychainServices", "KeychainToolSupport", "KeychainSecurityTool",
                "KeychainGitCredential",
                "KeychainDockerCredential", "KeychainCrypto", "SecretService", "KeychainDBus", "CGIO", "KeychainSync",
            ], swiftSettings: strictSettings),
        .executableTarget(name: "keychain-fuzz", dependencies: ["KeychainFuzzing"], swiftSettings: strictSettings),
        // The sync figures of issue 26 (scripts/bench-sync), each step in its own process.
        .executableTarget(
            name: "keychain-sync-bench", dependencies: ["KeychainSync", "KeychainCore"], swiftSettings: strictSettings),
        // The floor of keychain-bench's CLI workload: opens a database without Foundation.
        .executableTarget(name: "keychain-floor-open", dependencies: ["CSQLite"], swiftSettings: strictSettings),
        // A small program the tests start as a second (third, …) process.
        .executableTarget(
            name: "keychain-test-helper",
            dependencies: ["KeychainServices", "Keychain", "KeychainCore", "KeychainTesting"],
            path: "Tests/Helper", swiftSettings: strictSettings),

        // Writer and reader processes for the crash-safety and concurrency suites.
        .executableTarget(
            name: "keychain-stress", dependencies: ["KeychainCore", "KeychainTesting"], path: "Tests/Stress",
            swiftSettings: strictSettings),

        .testTarget(
            name: "KeychainCoreTests",
            dependencies: [
                "KeychainCore", "KeychainFuzzing", "CSQLite", "keychain-stress", "KeychainTestProcess",
                "KeychainTesting",
                "keychain-bench",
            ],
            exclude: ["Fixtures"], swiftSettings: strictSettings),
        // The test process itself: its own kernel keyring (CTestKeyring, linked into every suite that
        // depends on this) and the keychain-test-helper processes it starts (HelperProcess).
        .target(
            name: "KeychainTestProcess", dependencies: ["CTestKeyring"], path: "Tests/TestProcess",
            swiftSettings: strictSettings),
        // Test support shared by the suites, the benchmark, the stress tool and the test helper:
        // reproducible randomness and the one temporary-keychain helper; never linked into the shipped tools.
        .target(
            name: "KeychainTesting", dependencies: ["KeychainCore"], path: "Tests/Testing",
            swiftSettings: strictSettings),
        // The test run's own kernel keyring ($KEYCHAIN_KEYRING), made at start-up and removed at exit.
        .target(name: "CTestKeyring", path: "Tests/TestKeyring"),
        .testTarget(name: "KeychainCryptoTests", dependencies: ["KeychainCrypto"], swiftSettings: strictSettings),
        .testTarget(
            name: "KeychainServicesTests",
            dependencies: [
                "KeychainServices", "KeychainItems", "Security", "LocalAuthentication", "Keychain", "KeychainCore",
                "KeychainTestProcess",
                "KeychainTesting", "keychain-test-helper",
            ],
            swiftSettings: strictSettings),
        .testTarget(
            name: "KeychainTests",
            dependencies: [
                "Keychain", "KeychainCore", "KeychainTestProcess", "KeychainTesting", "keychain-test-helper",
            ],
            swiftSettings: strictSettings),
        .testTarget(
            name: "KeychainCLITests",
            dependencies: [
                "KeychainToolSupport", "KeychainSecurityTool", "KeychainGitCredential", "KeychainDockerCredential",
                "KeychainCore", "KeychainServices", "KeychainTestProcess", "security",
            ],
            swiftSettings: strictSettings),
        .testTarget(
            name: "SecretServiceTests",
            dependencies: [
                "SecretService", "KeychainDBus", "KeychainCore", "KeychainTesting", "KeychainFuzzing", "CGIO",
                "keychain-secret-service",
            ],
            swiftSettings: strictSettings),
        // The sync protocol (issue 26): formats, the engine over folders and git remotes, hostile remotes.
        .testTarget(
            name: "KeychainSyncTests",
            dependencies: [
                "KeychainSync", "KeychainCore", "KeychainSecurityTool", "KeychainToolSupport", "KeychainTestProcess",
                "KeychainTesting", "security",
            ],
            swiftSettings: strictSettings),
        // pam_keychain.so under pam_wrapper (no root), driving the real keychain-pam-helper.
        .testTarget(
            name: "KeychainPAMTests",
            dependencies: [
                "KeychainPAM", "KeychainSSHAskpass", "KeychainCore", "KeychainTestProcess", "KeychainTesting",
                "keychain-pam-helper", "keychain-ssh-askpass", "security",
            ],
            swiftSettings: strictSettings),
    ],
    swiftLanguageModes: [.v6]
)
