internal import CJansson
internal import KeychainCore
internal import KeychainToolSupport

/// The JSON document `store` reads: `{"ServerURL":…,"Username":…,"Secret":…}`, parsed by jansson.
///
/// Members are matched to the three fields as docker's Go decoder (`encoding/json`) matches them to
/// `Credentials`' fields: a member's name matches a field when it equals it exactly or after Go's case
/// folding (`foldName`: each ASCII letter upper-cased, any other character `unicode.ToUpper(unicode.ToLower(r))`,
/// so `serverurl` and `ſecret` match), and every matching member is assigned in document order, so the
/// last one counts whatever its case (`{"ServerURL":"a","serverurl":"b"}` stores `b`). A `null` member
/// changes nothing (Go leaves the field as it is); any other non-string member of a field's name fails
/// with Go's message. Other members are ignored. Of two members with byte-identical names, jansson keeps
/// the later value at the first one's place in the order (Go assigns the later one last: the two differ
/// only when a member of the same field in another case stands between them).
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
        var chosen: [String: UnsafeMutablePointer<json_t>] = [:]
        var iterator = json_object_iter(root)
        while let member = iterator {
            iterator = json_object_iter_next(root, member)
            guard let keyStart = json_object_iter_key(member), let value = json_object_iter_value(member) else {
                continue
            }
            let key = String(
                decoding: UnsafeRawBufferPointer(start: keyStart, count: json_object_iter_key_len(member)),
                as: UTF8.self)
            let folded = goFold(key)
            let name = fields.first { $0 == key } ?? fields.first { goFold($0) == folded }
            guard let name, value.pointee.type != JSON_NULL else { continue }
            guard value.pointee.type == JSON_STRING else {
                throw .message(
                    "json: cannot unmarshal a non-string into Go struct field Credentials.\(name) of type string",
                    status: 1)
            }
            chosen[name] = value
        }
        func text(_ name: String) -> String {
            guard let value = chosen[name], let start = json_string_value(value) else { return "" }
            return String(
                decoding: UnsafeRawBufferPointer(start: start, count: json_string_length(value)), as: UTF8.self)
        }
        let serverURL = text("ServerURL")
        let username = text("Username")
        guard !serverURL.isEmpty else { throw .message("no credentials server URL", status: 1) }
        guard !username.isEmpty else { throw .message("no credentials username", status: 1) }
        var secret = SecureBytes(copying: [])
        if let value = chosen["Secret"], let start = json_string_value(value) {
            secret = SecureBytes(copying: UnsafeRawBufferPointer(start: start, count: json_string_length(value)))
        }
        return DockerCredentials(serverURL: serverURL, username: username, secret: secret)
    }

    /// A member name as Go's `encoding/json` folds it to match a field ignoring case (`foldName` in
    /// `encoding/json/fold.go`): ASCII `a`–`z` upper-cased, any other scalar lower-cased then upper-cased by
    /// its one-scalar mapping (Go's `unicode.ToLower`/`ToUpper` are simple mappings: a scalar whose full
    /// mapping has several scalars, as `ß`'s `SS`, stays as it is).
    /// - Parameter name: a member's or field's name.
    /// - Returns: the folded name; two names match when their folds are equal.
    static func goFold(_ name: String) -> String {
        func simple(_ scalar: Unicode.Scalar, _ mapping: String) -> Unicode.Scalar {
            let scalars = mapping.unicodeScalars
            return scalars.count == 1 ? scalars.first! : scalar
        }
        var folded = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            if scalar.isASCII {
                folded.append(("a"..."z").contains(scalar) ? Unicode.Scalar(scalar.value - 0x20)! : scalar)
            } else {
                let lower = simple(scalar, scalar.properties.lowercaseMapping)
                folded.append(simple(lower, lower.properties.uppercaseMapping))
            }
        }
        return String(folded)
    }

    // MARK: - Private

    /// Installs jansson's wiping allocator once per process, before the first parse (it is global).
    private static let wipingAllocator: Void = cjansson_use_wiping_allocator()
}
