internal import KeychainCore

/// An error from the `Keychain` API: which operation failed, and the keychain status it failed with.
///
/// The ``code`` is an extensible set of static constants that carry Apple's `OSStatus` values, so a
/// status this module has no name for still arrives intact (``Code/rawValue``) and is never swallowed.
/// Two errors are equal when their codes are equal; the operation and detail are for people.
///
/// Catch a particular code with a pattern:
/// ```swift
/// do {
///     let token = try keychain.string(forKey: "token")
/// } catch KeychainError.interactionNotAllowed {
///     // The keychain is locked: try again after the user unlocks it. The item was NOT reported missing.
/// } catch {
///     // Any other failure.
/// }
/// ```
///
/// - Important: ``description`` names the operation, the status and a non-secret detail from the
///   engine. It never contains secret data, and it never contains the key (account) or the service.
public struct KeychainError: Error, Sendable, Hashable, CustomStringConvertible {
    // MARK: - Public

    /// A keychain status: Apple's `OSStatus` value, with names for the ones this API documents.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The `OSStatus` value (SecBase.h).
        public let rawValue: Int32

        /// Wraps an `OSStatus` value; any value is accepted, named or not.
        /// - Parameter rawValue: the `OSStatus`.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// `errSecItemNotFound` (-25300): no item matched. Reading a missing key returns `nil` instead.
        public static let itemNotFound = Code(rawValue: -25300)
        /// `errSecDuplicateItem` (-25299): an item with the same primary key exists (for example a
        /// migration target that is already taken).
        public static let duplicateItem = Code(rawValue: -25299)
        /// `errSecInteractionNotAllowed` (-25308): the item's protection class is locked.
        public static let interactionNotAllowed = Code(rawValue: -25308)
        /// `errSecMissingEntitlement` (-34018): the process does not hold the access group it named,
        /// or holds no access group at all.
        public static let missingEntitlement = Code(rawValue: -34018)
        /// `errSecAuthFailed` (-25293): the keychain password was wrong.
        public static let authFailed = Code(rawValue: -25293)
        /// `errSecDecode` (-26275): stored data failed authentication, or a value did not decode as
        /// the type asked for (UTF-8 text, JSON, a UUID).
        public static let decode = Code(rawValue: -26275)
        /// `errSecDataTooLarge` (-25302): the secret exceeds the engine's limit (1 MiB).
        public static let dataTooLarge = Code(rawValue: -25302)
        /// `errSecParam` (-50): the request is invalid (for example a synchronizable item with a
        /// `ThisDeviceOnly` accessibility, a migration across item classes, or a value that cannot be encoded).
        public static let param = Code(rawValue: -50)
        /// `errSecNotAvailable` (-25291): the keychain stayed busy or cannot be opened.
        public static let notAvailable = Code(rawValue: -25291)
        /// `errSecInvalidKeychain` (-25295): the keychain file is damaged or not a keychain.
        public static let invalidKeychain = Code(rawValue: -25295)
        /// `errSecNoSuchKeychain` (-25294): there is no keychain file at the path given.
        public static let noSuchKeychain = Code(rawValue: -25294)
        /// `errSecDuplicateKeychain` (-25296): a keychain file already exists at the path given.
        public static let duplicateKeychain = Code(rawValue: -25296)
        /// `errSecWrongSecVersion` (-25310): the keychain file was written by a newer version of this library.
        public static let wrongSecVersion = Code(rawValue: -25310)
        /// `errSecAllocate` (-108): memory could not be allocated (for example Argon2id's 256 MiB).
        public static let allocate = Code(rawValue: -108)
        /// `errSecDiskFull` (-34): the disk is full.
        public static let diskFull = Code(rawValue: -34)
        /// `errSecIO` (-36): an I/O error.
        public static let io = Code(rawValue: -36)

        /// The code's SecBase.h message and value, for example
        /// `"User interaction is not allowed. (OSStatus -25308)"`.
        public var description: String { "\(Self.message(rawValue)) (OSStatus \(rawValue))" }

        /// Matches a ``KeychainError`` against a code: `catch KeychainError.Code.decode`.
        /// - Parameters:
        ///   - pattern: a code.
        ///   - error: the error being matched.
        /// - Returns: whether `error` is a ``KeychainError`` with code `pattern`.
        public static func ~= (pattern: Code, error: any Error) -> Bool {
            (error as? KeychainError)?.code == pattern
        }
    }

    /// What the caller was doing when the error happened.
    public struct Operation: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// A short, non-secret name such as `"set"`.
        public let rawValue: String
        /// Wraps an operation name.
        /// - Parameter rawValue: the name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Reading a value.
        public static let get = Operation(rawValue: "get")
        /// Storing a value.
        public static let set = Operation(rawValue: "set")
        /// Adding an item that must not exist yet.
        public static let add = Operation(rawValue: "add")
        /// Removing one key.
        public static let remove = Operation(rawValue: "remove")
        /// Checking whether a key exists.
        public static let contains = Operation(rawValue: "contains")
        /// Listing keys or items.
        public static let list = Operation(rawValue: "list")
        /// Removing every item of a scope.
        public static let removeAll = Operation(rawValue: "removeAll")
        /// Moving items to another accessibility, group or synchronizable state.
        public static let migrate = Operation(rawValue: "migrate")
        /// Opening the keychain or reading the process's entitlements.
        public static let open = Operation(rawValue: "open")
        /// Creating a keychain file.
        public static let create = Operation(rawValue: "create")
        /// Unlocking a keychain, or reading a password.
        public static let unlock = Operation(rawValue: "unlock")
        /// Locking a keychain.
        public static let lock = Operation(rawValue: "lock")
        /// Asking a keychain's lock state.
        public static let lockState = Operation(rawValue: "lockState")
        /// Reading or changing a keychain's settings (the auto-lock timeout).
        public static let settings = Operation(rawValue: "settings")
        /// Setting, changing or removing a keychain's password.
        public static let changePassword = Operation(rawValue: "changePassword")

        /// The name.
        public var description: String { rawValue }
    }

    /// The status.
    public let code: Code
    /// The operation that failed.
    public let operation: Operation
    /// A non-secret explanation from the engine (file names, counts), when there is one.
    public let detail: String?

    /// Creates an error.
    /// - Parameters:
    ///   - code: the status.
    ///   - operation: what was being done; defaults to `"unknown"`.
    ///   - detail: a non-secret explanation. Never put secrets or account names here.
    public init(_ code: Code, operation: Operation = Operation(rawValue: "unknown"), detail: String? = nil) {
        self.code = code
        self.operation = operation
        self.detail = detail
    }

    /// The raw `OSStatus`, as `KeychainServices` would return it.
    public var status: Int32 { code.rawValue }

    /// `"Keychain <operation> failed: <message> (OSStatus <n>)"`, then the engine's detail if any.
    public var description: String {
        "Keychain \(operation) failed: \(code)" + (detail.map { ": \($0)" } ?? "")
    }

    /// Equal when the codes are equal, whatever the operation and detail.
    /// - Parameters:
    ///   - lhs: an error.
    ///   - rhs: another error.
    /// - Returns: `lhs.code == rhs.code`.
    public static func == (lhs: KeychainError, rhs: KeychainError) -> Bool { lhs.code == rhs.code }

    /// Hashes the code only, consistent with ``==(_:_:)``.
    /// - Parameter hasher: the hasher.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// Matches any error that is a ``KeychainError`` with the pattern's code: `catch KeychainError.decode`.
    /// - Parameters:
    ///   - pattern: a ``KeychainError`` such as ``KeychainError/itemNotFound``.
    ///   - error: the error being matched.
    /// - Returns: whether `error` is a ``KeychainError`` with the same code.
    public static func ~= (pattern: KeychainError, error: any Error) -> Bool {
        (error as? KeychainError)?.code == pattern.code
    }

    /// An error with code ``Code/itemNotFound``, for `catch` patterns and comparisons.
    public static let itemNotFound = KeychainError(.itemNotFound)
    /// An error with code ``Code/duplicateItem``, for `catch` patterns and comparisons.
    public static let duplicateItem = KeychainError(.duplicateItem)
    /// An error with code ``Code/interactionNotAllowed``, for `catch` patterns and comparisons.
    public static let interactionNotAllowed = KeychainError(.interactionNotAllowed)
    /// An error with code ``Code/missingEntitlement``, for `catch` patterns and comparisons.
    public static let missingEntitlement = KeychainError(.missingEntitlement)
    /// An error with code ``Code/authFailed``, for `catch` patterns and comparisons.
    public static let authFailed = KeychainError(.authFailed)
    /// An error with code ``Code/decode``, for `catch` patterns and comparisons.
    public static let decode = KeychainError(.decode)
    /// An error with code ``Code/dataTooLarge``, for `catch` patterns and comparisons.
    public static let dataTooLarge = KeychainError(.dataTooLarge)
    /// An error with code ``Code/param``, for `catch` patterns and comparisons.
    public static let param = KeychainError(.param)
    /// An error with code ``Code/noSuchKeychain``, for `catch` patterns and comparisons.
    public static let noSuchKeychain = KeychainError(.noSuchKeychain)
    /// An error with code ``Code/duplicateKeychain``, for `catch` patterns and comparisons.
    public static let duplicateKeychain = KeychainError(.duplicateKeychain)
}

extension KeychainError.Code {
    // MARK: - Private

    /// The SecBase.h message the engine knows for `status`, or a generic text.
    fileprivate static func message(_ status: Int32) -> String { KeychainStatus(status).message }
}

extension KeychainError {
    // MARK: - Internal

    /// Translates an engine failure at the module boundary; the status passes through unchanged.
    init(_ failure: KeychainFailure, _ operation: Operation) {
        self.init(Code(rawValue: failure.status.rawValue), operation: operation, detail: failure.detail)
    }
}
