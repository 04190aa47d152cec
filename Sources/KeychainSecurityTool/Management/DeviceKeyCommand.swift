internal import KeychainCore
internal import KeychainToolSupport

/// `security device-key status | seal [--pcr7] | unseal`: where the installation's device key is kept,
/// and moving it into the TPM and back (tracker issue 28; no macOS counterpart, whose device key is the
/// Secure Enclave's).
///
/// - `status` prints `device key: <path>` and `kept in: a file`, `kept in: the TPM at <tcti>` (with
///   `, bound to PCR 7`), or `kept in: nowhere yet`, then whether a TPM answers.
/// - `seal` seals an existing key by the TPM of `KEYCHAIN_TCTI` (default `/dev/tpmrm0`) and `unseal` puts
///   it back in a plain file, each atomically: a kill at any moment leaves a key that opens every keychain.
/// Errors print `security: device-key <verb>: <message>` and exit 1 (2 for usage).
struct DeviceKeyCommand: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "device-key", synopsis: "status | seal [--pcr7] | unseal",
        options: [OptionSpec(nil, long: "pcr7", "Seal to PCR 7 too (firmware or Secure Boot changes then lock it)")],
        summary: "Show where the device key is kept, or seal it by the TPM and back.", minimumPrefixLength: 10)

    let verb: String
    let bindsPCR7: Bool

    init(_ options: ParsedOptions) throws(CommandFailure) {
        // getopt stops at the verb, so `seal --pcr7` arrives as an operand; `--pcr7 seal` as an option.
        let words = options.operands.filter { $0 != "--pcr7" }
        guard words.count == 1, ["status", "seal", "unseal"].contains(words[0]) else { throw .usage(nil) }
        verb = words[0]
        bindsPCR7 = options.has("pcr7") || options.operands.contains("--pcr7")
        if bindsPCR7 && verb != "seal" { throw .usage(nil) }
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        let path = KeychainLocation.defaultDeviceKeyPath(environment: context.io.environment)
        let tcti = DeviceKey.configuredTCTI
        do throws(KeychainFailure) {
            switch verb {
            case "seal":
                guard let tcti else {
                    throw KeychainFailure(
                        .notAvailable, "no TPM to seal with: no /dev/tpmrm0, and KEYCHAIN_TCTI names none")
                }
                try DeviceKey.seal(path: path, tcti: tcti, bindsPCR7: bindsPCR7)
            case "unseal":
                try DeviceKey.unseal(path: path)
            default:
                context.io.output.line("device key: \(path)")
                switch try DeviceKey.storage(path: path) {
                case .missing: context.io.output.line("kept in: nowhere yet (made with the first keychain)")
                case .file: context.io.output.line("kept in: a file")
                case .tpm(let pcr7):
                    context.io.output.line(
                        "kept in: the TPM at \(tcti ?? "(none configured)")\(pcr7 ? ", bound to PCR 7" : "")")
                }
                let reachable = tcti.map { DeviceKey.isTPMReachable(tcti: $0) } ?? false
                context.io.output.line(
                    reachable
                        ? "TPM: \(tcti ?? "") answers" : "TPM: none (the device key stays in a file, as without one)")
            }
        } catch {
            throw .message("security: device-key \(verb): \(error.detail ?? error.status.message)", status: 1)
        }
    }
}
