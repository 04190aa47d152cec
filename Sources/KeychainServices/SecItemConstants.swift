// Apple's SecItem constants with their raw values (Apple open source, SecItemConstants.c).
// The values are what Apple's dictionaries hold, so queries built here and there are identical.
// Each is a `CFString` (`NSString`), as on Apple platforms, so it works `as String` and as `AnyObject`.
// `nonisolated(unsafe)`: Foundation's `NSString` is not declared `Sendable`, but these constants are
// immutable `NSString`s that are never mutated, so sharing them across threads is safe.

// MARK: - Item class key

/// The item class key of a query or attribute dictionary.
nonisolated(unsafe) public let kSecClass: CFString = "class"

// MARK: - Item classes

/// Generic password items.
nonisolated(unsafe) public let kSecClassGenericPassword: CFString = "genp"
/// Internet password items.
nonisolated(unsafe) public let kSecClassInternetPassword: CFString = "inet"
/// Certificate items (not stored on Linux: `errSecUnimplemented`).
nonisolated(unsafe) public let kSecClassCertificate: CFString = "cert"
/// Cryptographic key items (not stored on Linux: `errSecUnimplemented`).
nonisolated(unsafe) public let kSecClassKey: CFString = "keys"
/// Identity items (not stored on Linux: `errSecUnimplemented`).
nonisolated(unsafe) public let kSecClassIdentity: CFString = "idnt"

// MARK: - Attributes

/// When the item's data can be read: one of the `kSecAttrAccessible…` values; default `kSecAttrAccessibleWhenUnlocked`.
nonisolated(unsafe) public let kSecAttrAccessible: CFString = "pdmn"
/// A `SecAccessControl`: the item's protection class and constraints (see `SecAccessControlCreateWithFlags`).
/// Returned in every item's attributes. A value of another type is `errSecParam`.
nonisolated(unsafe) public let kSecAttrAccessControl: CFString = "accc"
/// The access group (String). Part of the primary key.
nonisolated(unsafe) public let kSecAttrAccessGroup: CFString = "agrp"
/// Whether the item synchronizes (CFBoolean), or `kSecAttrSynchronizableAny` in queries. Part of the primary key.
nonisolated(unsafe) public let kSecAttrSynchronizable: CFString = "sync"
/// Value of `kSecAttrSynchronizable` in a query that matches both synchronizable and non-synchronizable items.
nonisolated(unsafe) public let kSecAttrSynchronizableAny: CFString = "syna"
/// Creation date (CFDate), set by the keychain.
nonisolated(unsafe) public let kSecAttrCreationDate: CFString = "cdat"
/// Last modification date (CFDate), set by the keychain.
nonisolated(unsafe) public let kSecAttrModificationDate: CFString = "mdat"
/// User-visible description (String).
nonisolated(unsafe) public let kSecAttrDescription: CFString = "desc"
/// User-editable comment (String).
nonisolated(unsafe) public let kSecAttrComment: CFString = "icmt"
/// Creator code (CFNumber, a four-character code). A numeric string is stored as its number, any other string as given.
nonisolated(unsafe) public let kSecAttrCreator: CFString = "crtr"
/// Item type (CFNumber, a four-character code). Strings as for `kSecAttrCreator`.
nonisolated(unsafe) public let kSecAttrType: CFString = "type"
/// User-visible label (String).
nonisolated(unsafe) public let kSecAttrLabel: CFString = "labl"
/// Whether the item is hidden from users (CFBoolean).
nonisolated(unsafe) public let kSecAttrIsInvisible: CFString = "invi"
/// Whether the item is a placeholder without a valid password (CFBoolean).
nonisolated(unsafe) public let kSecAttrIsNegative: CFString = "nega"
/// Account name (String or Data, kept as given). Part of the primary key.
nonisolated(unsafe) public let kSecAttrAccount: CFString = "acct"
/// Service (String or Data). Part of a generic password's primary key.
nonisolated(unsafe) public let kSecAttrService: CFString = "svce"
/// Application-defined data (Data).
nonisolated(unsafe) public let kSecAttrGeneric: CFString = "gena"
/// Internet security domain (String). Part of an internet password's primary key.
nonisolated(unsafe) public let kSecAttrSecurityDomain: CFString = "sdmn"
/// Server domain name or IP address (String). Part of an internet password's primary key.
nonisolated(unsafe) public let kSecAttrServer: CFString = "srvr"
/// Protocol: one of the `kSecAttrProtocol…` values. Part of an internet password's primary key.
nonisolated(unsafe) public let kSecAttrProtocol: CFString = "ptcl"
/// Authentication scheme: one of the `kSecAttrAuthenticationType…` values. Part of an internet password's primary key.
nonisolated(unsafe) public let kSecAttrAuthenticationType: CFString = "atyp"
/// Port number (CFNumber). Part of an internet password's primary key.
nonisolated(unsafe) public let kSecAttrPort: CFString = "port"
/// Path component of the URL (String). Part of an internet password's primary key.
nonisolated(unsafe) public let kSecAttrPath: CFString = "path"

// MARK: - kSecAttrAccessible values

/// Readable only while the keychain is unlocked. Migrates in encrypted backups. The default.
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlocked: CFString = "ak"
/// Readable after the first unlock until the session ends. Migrates in encrypted backups.
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlock: CFString = "ck"
/// Always readable. Migrates in encrypted backups. Deprecated by Apple.
nonisolated(unsafe) public let kSecAttrAccessibleAlways: CFString = "dk"
/// As WhenUnlocked, bound to this installation's device key.
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = "aku"
/// As AfterFirstUnlock, bound to this installation's device key.
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
/// As Always, bound to this installation's device key. Deprecated by Apple.
nonisolated(unsafe) public let kSecAttrAccessibleAlwaysThisDeviceOnly: CFString = "dku"
/// Readable while unlocked, only on a keychain with a password; destroyed when the password is removed.
nonisolated(unsafe) public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = "akpu"

// MARK: - kSecAttrProtocol values

/// `ftp` (raw value `"ftp "`).
nonisolated(unsafe) public let kSecAttrProtocolFTP: CFString = "ftp "
/// `ftpa` (raw value `"ftpa"`).
nonisolated(unsafe) public let kSecAttrProtocolFTPAccount: CFString = "ftpa"
/// `http` (raw value `"http"`).
nonisolated(unsafe) public let kSecAttrProtocolHTTP: CFString = "http"
/// `irc` (raw value `"irc "`).
nonisolated(unsafe) public let kSecAttrProtocolIRC: CFString = "irc "
/// `nntp` (raw value `"nntp"`).
nonisolated(unsafe) public let kSecAttrProtocolNNTP: CFString = "nntp"
/// `pop3` (raw value `"pop3"`).
nonisolated(unsafe) public let kSecAttrProtocolPOP3: CFString = "pop3"
/// `smtp` (raw value `"smtp"`).
nonisolated(unsafe) public let kSecAttrProtocolSMTP: CFString = "smtp"
/// `sox` (raw value `"sox "`).
nonisolated(unsafe) public let kSecAttrProtocolSOCKS: CFString = "sox "
/// `imap` (raw value `"imap"`).
nonisolated(unsafe) public let kSecAttrProtocolIMAP: CFString = "imap"
/// `ldap` (raw value `"ldap"`).
nonisolated(unsafe) public let kSecAttrProtocolLDAP: CFString = "ldap"
/// `atlk` (raw value `"atlk"`).
nonisolated(unsafe) public let kSecAttrProtocolAppleTalk: CFString = "atlk"
/// `afp` (raw value `"afp "`).
nonisolated(unsafe) public let kSecAttrProtocolAFP: CFString = "afp "
/// `teln` (raw value `"teln"`).
nonisolated(unsafe) public let kSecAttrProtocolTelnet: CFString = "teln"
/// `ssh` (raw value `"ssh "`).
nonisolated(unsafe) public let kSecAttrProtocolSSH: CFString = "ssh "
/// `ftps` (raw value `"ftps"`).
nonisolated(unsafe) public let kSecAttrProtocolFTPS: CFString = "ftps"
/// `htps` (raw value `"htps"`).
nonisolated(unsafe) public let kSecAttrProtocolHTTPS: CFString = "htps"
/// `htpx` (raw value `"htpx"`).
nonisolated(unsafe) public let kSecAttrProtocolHTTPProxy: CFString = "htpx"
/// `htsx` (raw value `"htsx"`).
nonisolated(unsafe) public let kSecAttrProtocolHTTPSProxy: CFString = "htsx"
/// `ftpx` (raw value `"ftpx"`).
nonisolated(unsafe) public let kSecAttrProtocolFTPProxy: CFString = "ftpx"
/// `smb` (raw value `"smb "`).
nonisolated(unsafe) public let kSecAttrProtocolSMB: CFString = "smb "
/// `rtsp` (raw value `"rtsp"`).
nonisolated(unsafe) public let kSecAttrProtocolRTSP: CFString = "rtsp"
/// `rtsx` (raw value `"rtsx"`).
nonisolated(unsafe) public let kSecAttrProtocolRTSPProxy: CFString = "rtsx"
/// `daap` (raw value `"daap"`).
nonisolated(unsafe) public let kSecAttrProtocolDAAP: CFString = "daap"
/// `eppc` (raw value `"eppc"`).
nonisolated(unsafe) public let kSecAttrProtocolEPPC: CFString = "eppc"
/// `ipp` (raw value `"ipp "`).
nonisolated(unsafe) public let kSecAttrProtocolIPP: CFString = "ipp "
/// `ntps` (raw value `"ntps"`).
nonisolated(unsafe) public let kSecAttrProtocolNNTPS: CFString = "ntps"
/// `ldps` (raw value `"ldps"`).
nonisolated(unsafe) public let kSecAttrProtocolLDAPS: CFString = "ldps"
/// `tels` (raw value `"tels"`).
nonisolated(unsafe) public let kSecAttrProtocolTelnetS: CFString = "tels"
/// `imps` (raw value `"imps"`).
nonisolated(unsafe) public let kSecAttrProtocolIMAPS: CFString = "imps"
/// `ircs` (raw value `"ircs"`).
nonisolated(unsafe) public let kSecAttrProtocolIRCS: CFString = "ircs"
/// `pops` (raw value `"pops"`).
nonisolated(unsafe) public let kSecAttrProtocolPOP3S: CFString = "pops"

// MARK: - kSecAttrAuthenticationType values

/// `ntlm` (raw value `"ntlm"`).
nonisolated(unsafe) public let kSecAttrAuthenticationTypeNTLM: CFString = "ntlm"
/// `msna` (raw value `"msna"`).
nonisolated(unsafe) public let kSecAttrAuthenticationTypeMSN: CFString = "msna"
/// `dpaa` (raw value `"dpaa"`).
nonisolated(unsafe) public let kSecAttrAuthenticationTypeDPA: CFString = "dpaa"
/// `rpaa` (raw value `"rpaa"`).
nonisolated(unsafe) public let kSecAttrAuthenticationTypeRPA: CFString = "rpaa"
/// `http` (raw value `"http"`).
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTTPBasic: CFString = "http"
/// `httd` (raw value `"httd"`).
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTTPDigest: CFString = "httd"
/// `form` (raw value `"form"`).
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTMLForm: CFString = "form"
/// `dflt` (raw value `"dflt"`).
nonisolated(unsafe) public let kSecAttrAuthenticationTypeDefault: CFString = "dflt"

// MARK: - Search keys

/// How many results `SecItemCopyMatching` returns: `kSecMatchLimitOne` (the default), `kSecMatchLimitAll`, or a CFNumber. Rejected by update and delete (`errSecParam`).
nonisolated(unsafe) public let kSecMatchLimit: CFString = "m_Limit"
/// An array of references (`SecKey`, `SecCertificate`, `SecIdentity`) or persistent references:
/// `SecItemCopyMatching` returns only those items. Rejected by update and delete (`errSecParam`).
nonisolated(unsafe) public let kSecMatchItemList: CFString = "m_ItemList"
/// One result, returned bare (not in an array).
nonisolated(unsafe) public let kSecMatchLimitOne: CFString = "m_LimitOne"
/// All results, returned in an array.
nonisolated(unsafe) public let kSecMatchLimitAll: CFString = "m_LimitAll"
/// Accepted and ignored: matching is byte-exact, as in Apple's data-protection keychain.
nonisolated(unsafe) public let kSecMatchCaseInsensitive: CFString = "m_CaseInsensitive"

// MARK: - Return keys

/// Return the item's data (CFBoolean).
nonisolated(unsafe) public let kSecReturnData: CFString = "r_Data"
/// Return the item's attributes as a dictionary (CFBoolean).
nonisolated(unsafe) public let kSecReturnAttributes: CFString = "r_Attributes"
/// Return a reference (only meaningful for keys and certificates). Alone on a password: `errSecParam`;
/// beside other return keys it adds nothing (a password has no reference).
nonisolated(unsafe) public let kSecReturnRef: CFString = "r_Ref"
/// Return an opaque persistent reference, stable across processes (CFBoolean).
nonisolated(unsafe) public let kSecReturnPersistentRef: CFString = "r_PersistentRef"

// MARK: - Value keys

/// The item's secret (Data).
nonisolated(unsafe) public let kSecValueData: CFString = "v_Data"
/// An item reference: a `SecKey`, `SecCertificate` or `SecIdentity` to add, or whose item to find,
/// update or delete (not supported for passwords: `errSecParam`). In results, `kSecReturnRef`'s value.
nonisolated(unsafe) public let kSecValueRef: CFString = "v_Ref"
/// A persistent reference: selects exactly that item; combine with no attribute.
nonisolated(unsafe) public let kSecValuePersistentRef: CFString = "v_PersistentRef"

// MARK: - Other keys

/// Whether the user may be asked to authenticate for an access-controlled item: `kSecUseAuthenticationUIAllow`
/// (the default; asks through pinentry), `…Fail` (`errSecInteractionNotAllowed`) or `…Skip` (leaves such
/// items out of the results). Another value is `errSecParam`.
nonisolated(unsafe) public let kSecUseAuthenticationUI: CFString = "u_AuthUI"
/// Ask when an item needs authentication (raw value `"u_AuthUIA"`).
nonisolated(unsafe) public let kSecUseAuthenticationUIAllow: CFString = "u_AuthUIA"
/// Fail with `errSecInteractionNotAllowed` instead of asking (raw value `"u_AuthUIF"`).
nonisolated(unsafe) public let kSecUseAuthenticationUIFail: CFString = "u_AuthUIF"
/// Leave items that need authentication out of the results (raw value `"u_AuthUIS"`).
nonisolated(unsafe) public let kSecUseAuthenticationUISkip: CFString = "u_AuthUIS"
/// An `LAContext` whose authentication (or application password) the call uses; another value is `errSecParam`.
nonisolated(unsafe) public let kSecUseAuthenticationContext: CFString = "u_AuthCtx"
/// The text the password prompt shows (String).
nonisolated(unsafe) public let kSecUseOperationPrompt: CFString = "u_OpPrompt"
/// `true` is `kSecUseAuthenticationUIFail` (deprecated by Apple).
nonisolated(unsafe) public let kSecUseNoAuthenticationUI: CFString = "u_NoAuthUI"
/// Accepted: this keychain is always the data-protection keychain.
nonisolated(unsafe) public let kSecUseDataProtectionKeychain: CFString = "nleg"
