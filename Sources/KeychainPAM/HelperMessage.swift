package import KeychainCore

/// What `pam_keychain.so` sends `keychain-pam-helper` on its standard input (docs/PAM.md, "The helper's
/// message"): one message, then end of input.
///
/// Version 1, byte by byte: version (`1`), operation (1 byte, ``Operation``), token count (1 byte), then
/// each token as a 4-byte big-endian length and that many bytes (at most ``maximumTokenBytes``). Nothing
/// may follow the last token. The tokens are passwords; they are kept in ``SecureBytes`` only.
package struct HelperMessage {
    /// What the module asks for.
    package enum Operation: UInt8, Sendable, CaseIterable {
        /// Token: the login password. Unlocks the login keychain for every process of the user, or creates it.
        case unlock = 1
        /// Tokens: the old and the new login password. Re-keys every keychain that opens with the old one.
        case change = 2
        /// Token: the new login password, set without the old one (root ran `passwd user`).
        case changedWithoutOld = 3
        /// No token. Locks every keychain when the session closing is the user's last.
        case lockIfLastSession = 4

        /// How many tokens the operation carries.
        package var tokenCount: Int {
            switch self {
            case .unlock, .changedWithoutOld: 1
            case .change: 2
            case .lockIfLastSession: 0
            }
        }
    }

    /// Why a message was refused; the helper says so and changes nothing.
    package enum Refusal: Error, Equatable, CustomStringConvertible {
        case empty
        case unsupportedVersion(UInt8)
        case unknownOperation(UInt8)
        case wrongTokenCount(operation: Operation, count: Int)
        case truncated
        case tokenTooLong(Int)
        case trailingBytes(Int)

        package var description: String {
            switch self {
            case .empty: "empty message"
            case .unsupportedVersion(let version): "message version \(version) is not supported (this helper reads 1)"
            case .unknownOperation(let code): "unknown operation \(code)"
            case .wrongTokenCount(let operation, let count):
                "operation \(operation) takes \(operation.tokenCount) tokens, not \(count)"
            case .truncated: "the message ends inside a token"
            case .tokenTooLong(let length):
                "a token of \(length) bytes is longer than \(HelperMessage.maximumTokenBytes)"
            case .trailingBytes(let count): "\(count) bytes follow the last token"
            }
        }
    }

    /// The version this helper reads.
    package static let version: UInt8 = 1
    /// The longest token (password) accepted, as the module's limit.
    package static let maximumTokenBytes = 4096
    /// The longest message: the header and two tokens of the maximum length.
    package static let maximumBytes = 3 + 2 * (4 + maximumTokenBytes)

    package let operation: Operation
    package let tokens: [SecureBytes]

    package init(operation: Operation, tokens: [SecureBytes]) {
        self.operation = operation
        self.tokens = tokens
    }

    /// Parses a whole message.
    /// - Throws: a ``Refusal`` naming what is wrong; nothing is kept from a refused message.
    package static func parse(_ bytes: UnsafeRawBufferPointer) throws(Refusal) -> HelperMessage {
        guard bytes.count >= 3 else { throw bytes.isEmpty ? .empty : .truncated }
        guard bytes[0] == version else { throw .unsupportedVersion(bytes[0]) }
        guard let operation = Operation(rawValue: bytes[1]) else { throw .unknownOperation(bytes[1]) }
        let count = Int(bytes[2])
        guard count == operation.tokenCount else { throw .wrongTokenCount(operation: operation, count: count) }
        var offset = 3
        var tokens: [SecureBytes] = []
        for _ in 0..<count {
            guard bytes.count - offset >= 4 else { throw .truncated }
            let length = (0..<4).reduce(0) { ($0 << 8) | Int(bytes[offset + $1]) }
            offset += 4
            guard length <= maximumTokenBytes else { throw .tokenTooLong(length) }
            guard bytes.count - offset >= length else { throw .truncated }
            tokens.append(SecureBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length])))
            offset += length
        }
        guard offset == bytes.count else { throw .trailingBytes(bytes.count - offset) }
        return HelperMessage(operation: operation, tokens: tokens)
    }
}
