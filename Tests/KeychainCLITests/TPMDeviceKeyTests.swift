import Foundation
import KeychainCore
import KeychainTestProcess
import Testing

/// The device key sealed by a TPM, over swtpm, with the built `security` tool (tracker issue 28).
@Suite("device key sealed by a TPM (swtpm)")
struct TPMDeviceKeyTests {
    private static func security(
        _ arguments: [String], stdin: String = "", _ environment: [String: String], in directory: String? = nil
    )
        throws -> Outcome
    {
        try EndToEndTests.run(
            EndToEndTests.tool("security"), arguments, stdin: stdin, environment: environment, directory: directory)
    }

    private static func environment(_ sandbox: Sandbox, _ tpm: SoftwareTPM) -> [String: String] {
        sandbox.environment.merging(["KEYCHAIN_TCTI": tpm.tcti]) { $1 }
    }

    private static let found = Outcome(status: 0, stdout: "s3cret\n", stderr: "")

    @Test("a new installation with a TPM seals its device key; unseal and re-seal keep every keychain opening")
    func sealUnsealReseal() throws {
        let sandbox = try Sandbox()
        let tpm = try SoftwareTPM(in: sandbox.directory + "/tpm")
        let env = Self.environment(sandbox, tpm)
        #expect(try Self.security(["add-generic-password", "-a", "me", "-s", "api", "-w", "s3cret"], env).status == 0)
        #expect(try Self.security(["create-keychain", "-p", "", "work"], env).status == 0)
        #expect(
            try Self.security(["add-generic-password", "-a", "me", "-s", "api", "-w", "s3cret", "work"], env).status
                == 0)
        let sealed =
            "device key: \(sandbox.location.deviceKeyPath)\nkept in: the TPM at \(tpm.tcti)\nTPM: \(tpm.tcti) answers\n"
        #expect(try Self.security(["device-key", "status"], env) == Outcome(status: 0, stdout: sealed, stderr: ""))
        #expect(FileSystem.size(sandbox.location.deviceKeyPath) != 32)
        #expect(try Self.security(["find-generic-password", "-s", "api", "-w"], env) == Self.found)

        #expect(try Self.security(["device-key", "unseal"], env) == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(FileSystem.size(sandbox.location.deviceKeyPath) == 32)
        #expect(try Self.security(["device-key", "status"], env).stdout.contains("kept in: a file\n"))
        #expect(try Self.security(["find-generic-password", "-s", "api", "-w"], env) == Self.found)
        #expect(try Self.security(["find-generic-password", "-s", "api", "-w", "work"], env) == Self.found)

        #expect(try Self.security(["device-key", "seal"], env) == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(try Self.security(["device-key", "status"], env) == Outcome(status: 0, stdout: sealed, stderr: ""))
        #expect(try Self.security(["find-generic-password", "-s", "api", "-w"], env) == Self.found)
        #expect(try Self.security(["find-generic-password", "-s", "api", "-w", "work"], env) == Self.found)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: sandbox.directory + "/state/keychains")
        #expect(leftovers.filter { $0.hasPrefix("device.key") } == ["device.key"])
    }

    @Test("without a TPM (KEYCHAIN_TCTI=none) the device key stays a 32-byte file, and seal says why it cannot")
    func noTPM() throws {
        let sandbox = try Sandbox()
        let env = sandbox.environment.merging(["KEYCHAIN_TCTI": "none"]) { $1 }
        #expect(try Self.security(["add-generic-password", "-a", "me", "-s", "api", "-w", "s3cret"], env).status == 0)
        #expect(FileSystem.size(sandbox.location.deviceKeyPath) == 32)
        #expect(
            try Self.security(["device-key", "status"], env)
                == Outcome(
                    status: 0,
                    stdout: "device key: \(sandbox.location.deviceKeyPath)\nkept in: a file\n"
                        + "TPM: none (the device key stays in a file, as without one)\n", stderr: ""))
        #expect(
            try Self.security(["device-key", "seal"], env)
                == Outcome(
                    status: 1, stdout: "",
                    stderr:
                        "security: device-key seal: no TPM to seal with: no /dev/tpmrm0, and KEYCHAIN_TCTI names none\n"
                ))
        #expect(try Self.security(["device-key", "bogus"], env).status == 2)
    }

    @Test("a SIGKILL at each step of device-key seal leaves a device key that opens the keychain")
    func sealKilledAtEachStep() throws {
        for point in DeviceKey.sealCrashPoints {
            let sandbox = try Sandbox()
            let tpm = try SoftwareTPM(in: sandbox.directory + "/tpm")
            let plain = sandbox.environment.merging(["KEYCHAIN_TCTI": "none"]) { $1 }
            #expect(
                try Self.security(["add-generic-password", "-a", "me", "-s", "api", "-w", "s3cret"], plain).status == 0)
            let env = Self.environment(sandbox, tpm)
            let killed = try Self.security(["device-key", "seal"], env.merging(["KEYCHAIN_CRASH_POINT": point]) { $1 })
            #expect(killed.status == SIGKILL, "\(point): \(killed)")
            #expect(try Self.security(["find-generic-password", "-s", "api", "-w"], env) == Self.found, "\(point)")
            #expect(try Self.security(["device-key", "seal"], env).status == 0, "\(point)")
            #expect(try Self.security(["find-generic-password", "-s", "api", "-w"], env) == Self.found, "\(point)")
        }
    }

    @Test("keychain and device files copied to another machine (a second swtpm) are refused with the cause")
    func copiedToAnotherMachine() throws {
        let first = try Sandbox(), second = try Sandbox()
        let firstTPM = try SoftwareTPM(in: first.directory + "/tpm")
        let secondTPM = try SoftwareTPM(in: second.directory + "/tpm")
        #expect(
            try Self.security(
                ["add-generic-password", "-a", "me", "-s", "api", "-w", "s3cret"], Self.environment(first, firstTPM)
            ).status == 0)
        for folder in ["/data", "/state"] {
            try FileManager.default.copyItem(atPath: first.directory + folder, toPath: second.directory + folder)
        }
        let refused = try Self.security(
            ["find-generic-password", "-s", "api", "-w"], Self.environment(second, secondTPM))
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("the device key is sealed by another machine's TPM"), "\(refused)")
        #expect(
            try Self.security(["find-generic-password", "-s", "api", "-w"], Self.environment(first, firstTPM))
                == Self.found)
    }

    @Test("the TPM cleared: the keychain is refused with the cause, and its backup restores the portable items")
    func clearedTPMThenBackup() throws {
        let sandbox = try Sandbox()
        let tpm = try SoftwareTPM(in: sandbox.directory + "/tpm")
        let env = Self.environment(sandbox, tpm)
        #expect(try Self.security(["add-generic-password", "-a", "me", "-s", "api", "-w", "s3cret"], env).status == 0)
        #expect(try Self.security(["backup-keychain"], stdin: "pass phrase\n", env, in: sandbox.directory).status == 0)
        try tpm.wipe()
        let refused = try Self.security(["find-generic-password", "-s", "api", "-w"], env)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("this machine's TPM was cleared"), "\(refused)")
        #expect(refused.stderr.contains("security restore-keychain"), "\(refused)")
        // The way back: a new installation (the old files moved aside) and the encrypted backup.
        try FileManager.default.moveItem(atPath: sandbox.directory + "/data", toPath: sandbox.directory + "/old-data")
        try FileManager.default.moveItem(atPath: sandbox.directory + "/state", toPath: sandbox.directory + "/old-state")
        let restored = try Self.security(["restore-keychain"], stdin: "pass phrase\n", env, in: sandbox.directory)
        #expect(restored.status == 0, "\(restored)")
        #expect(try Self.security(["find-generic-password", "-s", "api", "-w"], env) == Self.found)
        #expect(try Self.security(["device-key", "status"], env).stdout.contains("kept in: the TPM at \(tpm.tcti)\n"))
    }

    @Test("seal --pcr7 binds the key to PCR 7: status says so, and the keychain opens while PCR 7 is unchanged")
    func sealedToPCR7() throws {
        let sandbox = try Sandbox()
        let tpm = try SoftwareTPM(in: sandbox.directory + "/tpm")
        let env = Self.environment(sandbox, tpm)
        #expect(try Self.security(["add-generic-password", "-a", "me", "-s", "api", "-w", "s3cret"], env).status == 0)
        #expect(try Self.security(["device-key", "seal", "--pcr7"], env) == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(
            try Self.security(["device-key", "status"], env).stdout.contains(
                "kept in: the TPM at \(tpm.tcti), bound to PCR 7\n"))
        #expect(try Self.security(["find-generic-password", "-s", "api", "-w"], env) == Self.found)
        #expect(try Self.security(["device-key", "status", "--pcr7"], env).status == 2)
    }

    @Test(
        "a key sealed to PCR 7 is refused once PCR 7 changes (tpm2_pcrextend), naming the Secure Boot state; the old state opens it again",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tpm2_pcrextend")))
    func pcr7ChangedAfterSeal() throws {
        let sandbox = try Sandbox()
        let tpm = try SoftwareTPM(in: sandbox.directory + "/tpm")
        let env = Self.environment(sandbox, tpm)
        #expect(try Self.security(["add-generic-password", "-a", "me", "-s", "api", "-w", "s3cret"], env).status == 0)
        #expect(try Self.security(["device-key", "seal", "--pcr7"], env).status == 0)
        #expect(try Self.security(["find-generic-password", "-s", "api", "-w"], env) == Self.found)

        // A firmware or Secure Boot change measured into PCR 7, as tpm2-tools would make it.
        let extend = try EndToEndTests.run(
            "/usr/bin/tpm2_pcrextend", ["7:sha256=" + String(repeating: "ab", count: 32)], stdin: "",
            environment: ["TPM2TOOLS_TCTI": tpm.tcti, "PATH": "/usr/bin:/bin"])
        #expect(extend.status == 0, "\(extend)")
        let refused = try Self.security(["find-generic-password", "-s", "api", "-w"], env)
        #expect(refused.status != 0)
        #expect(refused.stdout.isEmpty)
        #expect(
            refused.stderr.contains(
                "the device key \(sandbox.location.deviceKeyPath) is sealed to PCR 7 and the Secure Boot state changed"),
            "\(refused)")
        #expect(!refused.stderr.contains("s3cret"))

        // swtpm restarted with startup-clear resets its PCRs: the state sealed to is back, and so is the key.
        tpm.stop()
        try tpm.start()
        #expect(try Self.security(["find-generic-password", "-s", "api", "-w"], env) == Self.found)
    }

    @Test("a damaged sealed device key is refused as damaged, and a missing one cannot be sealed")
    func damagedSealedKey() throws {
        let sandbox = try Sandbox()
        let tpm = try SoftwareTPM(in: sandbox.directory + "/tpm")
        let env = Self.environment(sandbox, tpm)
        #expect(
            try Self.security(["device-key", "seal"], env)
                == Outcome(
                    status: 1, stdout: "",
                    stderr:
                        "security: device-key seal: there is no device key at \(sandbox.location.deviceKeyPath) to seal\n"
                ))
        #expect(try Self.security(["add-generic-password", "-a", "me", "-s", "api", "-w", "s3cret"], env).status == 0)
        let contents = try #require(FileManager.default.contents(atPath: sandbox.location.deviceKeyPath))
        try contents.prefix(contents.count - 1).write(to: URL(fileURLWithPath: sandbox.location.deviceKeyPath))
        let refused = try Self.security(["find-generic-password", "-s", "api", "-w"], env)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("the device key \(sandbox.location.deviceKeyPath) is damaged"), "\(refused)")
        // Nothing was lost: the file is left as it was, and the whole one opens the keychain again.
        #expect(
            FileManager.default.contents(atPath: sandbox.location.deviceKeyPath) == contents.prefix(contents.count - 1))
        try contents.write(to: URL(fileURLWithPath: sandbox.location.deviceKeyPath))
        #expect(try Self.security(["find-generic-password", "-s", "api", "-w"], env) == Self.found)
    }
}
