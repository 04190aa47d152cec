internal import CJansson
internal import KeychainCore
internal import KeychainToolSupport

/// The JSON document `store` reads: `{"ServerURL":…,"Username":…,"Secret":…}`, parsed by jansson.
///
/// Members are matched to the three fields as docker's Go decoder matches them to `Credentials`'
/// fields: a member named exactly after a field wins, else the first whose name equals it ignoring
/// case (`serverurl`); a `null` member is skipped; any other non-string member of a field's name
/// fails with Go's message. Other members are ignored. Of two members with byte-identical names,
/// the later one counts (jansson keeps the last, as Go's decoder does).
///
/// - Important: the secret never becomes a `String`. jansson decodes it into its own heap block,
///   from which it is copied into ``SecureBytes``; jansson's allocator is installed once per process
///   with a `free` that wipes every block it releases (`cjansson_use_wiping_allocator`), so neither
///   the decoded string nor the lexer's copy of the token outlives the parse. The caller wipes the input.
struct DockerCredentials {
    var serverURL: String
    var username: String
    /// The secret, never a `String`: copied from jansson's decoded string into zeroising storage.
    var secret: SecureBytes

    /// The fields of docker's `credentials.Credentials`, in its order.
    static let fields = ["ServerURL", "Username", "Secret"]

    /// Decodes and validates (docker's `isValid`).
    /// - Parameter input: the JSON read from standard input (left as it is; the caller wipes it).
    /// - Returns: the credentials; the secret is empty when the document has none.
    /// - Throws: `.message` with status 1: `EOF` for empty input; `invalid character in the credentials
    ///   JSON` for input that is not one JSON object (RFC 8259, as jansson parses it: UTF-8, `\u0000`
    ///   allowed, nothing after the object); `json: cannot unmarshal a non-string into Go struct field
    ///   Credentials.<Field> of type string`; `no credentials server URL` when `ServerURL` is missing or
    ///   empty; `no credentials username` likewise for `Username`.
    static func decode(_ input: [UInt8]) throws(CommandFailure) -> DockerCredentials {
        guard !input.isEmpty else { throw .message("EOF", status: 1) }
        _ = wipingAllocator
        // No json_error_t: its text would quote the token near an error, which may be the secret.
        let flags = Int(JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL)
        let parsed = input.withUnsafeBytes { bytes in
            json_loadb(bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count, flags, nil)
        }
        guard let root = parsed else { throw .message("invalid character in the credentials JSON", status: 1) }
        defer { json_decref(root) }
        guard root.pointee.type == JSON_OBJECT else {
            throw .message("invalid character in the credentials JSON", status: 1)
        }
        var chosen: [String: (exact: Bool, value: UnsafeMutablePointer<json_t>)] = [:]
        var iterator = json_object_iter(root)
        while let member = iterator {
            iterator = json_object_iter_next(root, member)
            guard let keyStart = json_object_iter_key(member), let value = json_object_iter_value(member) else {
                continue
            }
            let key = String(
                decoding: UnsafeRawBufferPointer(start: keyStart, count: json_object_iter_key_len(member)),
                as: UTF8.self)
            let name = fields.first { $0 == key } ?? fields.first { $0.lowercased() == key.lowercased() }
            guard let name, value.pointee.type != JSON_NULL else { continue }
            guard value.pointee.type == JSON_STRING else {
                throw .message(
                    "json: cannot unmarshal a non-string into Go struct field Credentials.\(name) of type string",
                    status: 1)
            }
            if chosen[name] == nil || (key == name && chosen[name]?.exact == false) {
                chosen[name] = (key == name, value)
            }
        }
        func text(_ name: String) -> String {
            guard let value = chosen[name]?.value, let start = json_string_value(value) else { return "" }
            return String(
                decoding: UnsafeRawBufferPointer(start: start, count: json_string_length(value)), as: UTF8.self)
        }
        let serverURL = text("ServerURL")
        let username = text("Username")
        guard !serverURL.isEmpty else { throw .message("no credentials server URL", status: 1) }
        guard !username.isEmpty else { throw .message("no credentials username", status: 1) }
        var secret = SecureBytes(copying: [])
        if let value = chosen["Secret"]?.value, let start = json_string_value(value) {
            secret = SecureBytes(copying: UnsafeRawBufferPointer(start: start, count: json_string_length(value)))
        }
        return DockerCredentials(serverURL: serverURL, username: username, secret: secret)
    }

    // MARK: - Private

    /// Installs jansson's wiping allocator once per process, before the first parse (it is global).
    private static let wipingAllocator: Void = cjansson_use_wiping_allocator()
}
