// Apple's SecItem constants with their raw values (Apple open source, SecItemConstants.c).
// The values are what Apple's dictionaries hold, so queries built here and there are identical.

// MARK: - Item class key

/// The item class key of a query or attribute dictionary.
public let kSecClass: CFString = "class"

// MARK: - Item classes

/// Generic password items.
public let kSecClassGenericPassword: CFString = "genp"
/// Internet password items.
public let kSecClassInternetPassword: CFString = "inet"
/// Certificate items (not stored on Linux: `errSecUnimplemented`).
public let kSecClassCertificate: CFString = "cert"
/// Cryptographic key items (not stored on Linux: `errSecUnimplemented`).
public let kSecClassKey: CFString = "keys"
/// Identity items (not stored on Linux: `errSecUnimplemented`).
public let kSecClassIdentity: CFString = "idnt"

// MARK: - Attributes

/// When the item's data can be read: one of the `kSecAttrAccessible…` values; default `kSecAttrAccessibleWhenUnlocked`.
public let kSecAttrAccessible: CFString = "pdmn"
/// Access control object (not supported on Linux: `errSecUnimplemented`).
public let kSecAttrAccessControl: CFString = "accc"
/// The access group (String). Part of the primary key.
public let kSecAttrAccessGroup: CFString = "agrp"
/// Whether the item synchronizes (CFBoolean), or `kSecAttrSynchronizableAny` in queries. Part of the primary key.
public let kSecAttrSynchronizable: CFString = "sync"
/// Value of `kSecAttrSynchronizable` in a query that matches both synchronizable and non-synchronizable items.
public let kSecAttrSynchronizableAny: CFString = "syna"
/// Creation date (CFDate), set by the keychain.
public let kSecAttrCreationDate: CFString = "cdat"
/// Last modification date (CFDate), set by the keychain.
public let kSecAttrModificationDate: CFString = "mdat"
/// User-visible description (String).
public let kSecAttrDescription: CFString = "desc"
/// User-editable comment (String).
public let kSecAttrComment: CFString = "icmt"
/// Creator code (CFNumber, a four-character code).
public let kSecAttrCreator: CFString = "crtr"
/// Item type (CFNumber, a four-character code).
public let kSecAttrType: CFString = "type"
/// User-visible label (String).
public let kSecAttrLabel: CFString = "labl"
/// Whether the item is hidden from users (CFBoolean).
public let kSecAttrIsInvisible: CFString = "invi"
/// Whether the item is a placeholder without a valid password (CFBoolean).
public let kSecAttrIsNegative: CFString = "nega"
/// Account name (String or Data, kept as given). Part of the primary key.
public let kSecAttrAccount: CFString = "acct"
/// Service (String or Data). Part of a generic password's primary key.
public let kSecAttrService: CFString = "svce"
/// Application-defined data (Data).
public let kSecAttrGeneric: CFString = "gena"
/// Internet security domain (String). Part of an internet password's primary key.
public let kSecAttrSecurityDomain: CFString = "sdmn"
/// Server domain name or IP address (String). Part of an internet password's primary key.
public let kSecAttrServer: CFString = "srvr"
/// Protocol: one of the `kSecAttrProtocol…` values. Part of an internet password's primary key.
public let kSecAttrProtocol: CFString = "ptcl"
/// Authentication scheme: one of the `kSecAttrAuthenticationType…` values. Part of an internet password's primary key.
public let kSecAttrAuthenticationType: CFString = "atyp"
/// Port number (CFNumber). Part of an internet password's primary key.
public let kSecAttrPort: CFString = "port"
/// Path component of the URL (String). Part of an internet password's primary key.
public let kSecAttrPath: CFString = "path"

// MARK: - kSecAttrAccessible values

/// Readable only while the keychain is unlocked. Migrates in encrypted backups. The default.
public let kSecAttrAccessibleWhenUnlocked: CFString = "ak"
/// Readable after the first unlock until the session ends. Migrates in encrypted backups.
public let kSecAttrAccessibleAfterFirstUnlock: CFString = "ck"
/// Always readable. Migrates in encrypted backups. Deprecated by Apple.
public let kSecAttrAccessibleAlways: CFString = "dk"
/// As WhenUnlocked, bound to this installation's device key.
public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = "aku"
/// As AfterFirstUnlock, bound to this installation's device key.
public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
/// As Always, bound to this installation's device key. Deprecated by Apple.
public let kSecAttrAccessibleAlwaysThisDeviceOnly: CFString = "dku"
/// Readable while unlocked, only on a keychain with a password; destroyed when the password is removed.
public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = "akpu"

// MARK: - kSecAttrProtocol values

/// `ftp` (raw value `"ftp "`).
public let kSecAttrProtocolFTP: CFString = "ftp "
/// `ftpa` (raw value `"ftpa"`).
public let kSecAttrProtocolFTPAccount: CFString = "ftpa"
/// `http` (raw value `"http"`).
public let kSecAttrProtocolHTTP: CFString = "http"
/// `irc` (raw value `"irc "`).
public let kSecAttrProtocolIRC: CFString = "irc "
/// `nntp` (raw value `"nntp"`).
public let kSecAttrProtocolNNTP: CFString = "nntp"
/// `pop3` (raw value `"pop3"`).
public let kSecAttrProtocolPOP3: CFString = "pop3"
/// `smtp` (raw value `"smtp"`).
public let kSecAttrProtocolSMTP: CFString = "smtp"
/// `sox` (raw value `"sox "`).
public let kSecAttrProtocolSOCKS: CFString = "sox "
/// `imap` (raw value `"imap"`).
public let kSecAttrProtocolIMAP: CFString = "imap"
/// `ldap` (raw value `"ldap"`).
public let kSecAttrProtocolLDAP: CFString = "ldap"
/// `atlk` (raw value `"atlk"`).
public let kSecAttrProtocolAppleTalk: CFString = "atlk"
/// `afp` (raw value `"afp "`).
public let kSecAttrProtocolAFP: CFString = "afp "
/// `teln` (raw value `"teln"`).
public let kSecAttrProtocolTelnet: CFString = "teln"
/// `ssh` (raw value `"ssh "`).
public let kSecAttrProtocolSSH: CFString = "ssh "
/// `ftps` (raw value `"ftps"`).
public let kSecAttrProtocolFTPS: CFString = "ftps"
/// `htps` (raw value `"htps"`).
public let kSecAttrProtocolHTTPS: CFString = "htps"
/// `htpx` (raw value `"htpx"`).
public let kSecAttrProtocolHTTPProxy: CFString = "htpx"
/// `htsx` (raw value `"htsx"`).
public let kSecAttrProtocolHTTPSProxy: CFString = "htsx"
/// `ftpx` (raw value `"ftpx"`).
public let kSecAttrProtocolFTPProxy: CFString = "ftpx"
/// `smb` (raw value `"smb "`).
public let kSecAttrProtocolSMB: CFString = "smb "
/// `rtsp` (raw value `"rtsp"`).
public let kSecAttrProtocolRTSP: CFString = "rtsp"
/// `rtsx` (raw value `"rtsx"`).
public let kSecAttrProtocolRTSPProxy: CFString = "rtsx"
/// `daap` (raw value `"daap"`).
public let kSecAttrProtocolDAAP: CFString = "daap"
/// `eppc` (raw value `"eppc"`).
public let kSecAttrProtocolEPPC: CFString = "eppc"
/// `ipp` (raw value `"ipp "`).
public let kSecAttrProtocolIPP: CFString = "ipp "
/// `ntps` (raw value `"ntps"`).
public let kSecAttrProtocolNNTPS: CFString = "ntps"
/// `ldps` (raw value `"ldps"`).
public let kSecAttrProtocolLDAPS: CFString = "ldps"
/// `tels` (raw value `"tels"`).
public let kSecAttrProtocolTelnetS: CFString = "tels"
/// `imps` (raw value `"imps"`).
public let kSecAttrProtocolIMAPS: CFString = "imps"
/// `ircs` (raw value `"ircs"`).
public let kSecAttrProtocolIRCS: CFString = "ircs"
/// `pops` (raw value `"pops"`).
public let kSecAttrProtocolPOP3S: CFString = "pops"

// MARK: - kSecAttrAuthenticationType values

/// `ntlm` (raw value `"ntlm"`).
public let kSecAttrAuthenticationTypeNTLM: CFString = "ntlm"
/// `msna` (raw value `"msna"`).
public let kSecAttrAuthenticationTypeMSN: CFString = "msna"
/// `dpaa` (raw value `"dpaa"`).
public let kSecAttrAuthenticationTypeDPA: CFString = "dpaa"
/// `rpaa` (raw value `"rpaa"`).
public let kSecAttrAuthenticationTypeRPA: CFString = "rpaa"
/// `http` (raw value `"http"`).
public let kSecAttrAuthenticationTypeHTTPBasic: CFString = "http"
/// `httd` (raw value `"httd"`).
public let kSecAttrAuthenticationTypeHTTPDigest: CFString = "httd"
/// `form` (raw value `"form"`).
public let kSecAttrAuthenticationTypeHTMLForm: CFString = "form"
/// `dflt` (raw value `"dflt"`).
public let kSecAttrAuthenticationTypeDefault: CFString = "dflt"

// MARK: - Search keys

/// How many results `SecItemCopyMatching` returns: `kSecMatchLimitOne` (the default), `kSecMatchLimitAll`, or a CFNumber. Rejected by update and delete (`errSecParam`).
public let kSecMatchLimit: CFString = "m_Limit"
/// One result, returned bare (not in an array).
public let kSecMatchLimitOne: CFString = "m_LimitOne"
/// All results, returned in an array.
public let kSecMatchLimitAll: CFString = "m_LimitAll"
/// Accepted and ignored: matching is byte-exact, as in Apple's data-protection keychain.
public let kSecMatchCaseInsensitive: CFString = "m_CaseInsensitive"

// MARK: - Return keys

/// Return the item's data (CFBoolean).
public let kSecReturnData: CFString = "r_Data"
/// Return the item's attributes as a dictionary (CFBoolean).
public let kSecReturnAttributes: CFString = "r_Attributes"
/// Return a reference (only meaningful for keys and certificates; `errSecParam` for passwords).
public let kSecReturnRef: CFString = "r_Ref"
/// Return an opaque persistent reference, stable across processes (CFBoolean).
public let kSecReturnPersistentRef: CFString = "r_PersistentRef"

// MARK: - Value keys

/// The item's secret (Data).
public let kSecValueData: CFString = "v_Data"
/// An item reference (not supported for passwords: `errSecParam`).
public let kSecValueRef: CFString = "v_Ref"
/// A persistent reference: selects exactly that item; combine with no attribute.
public let kSecValuePersistentRef: CFString = "v_PersistentRef"

// MARK: - Other keys

/// Whether authentication UI may be shown. Accepted; Linux never prompts from SecItem calls.
public let kSecUseAuthenticationUI: CFString = "u_AuthUI"
/// `u_AuthUIA` (raw value `"u_AuthUIA"`).
public let kSecUseAuthenticationUIAllow: CFString = "u_AuthUIA"
/// `u_AuthUIF` (raw value `"u_AuthUIF"`).
public let kSecUseAuthenticationUIFail: CFString = "u_AuthUIF"
/// `u_AuthUIS` (raw value `"u_AuthUIS"`).
public let kSecUseAuthenticationUISkip: CFString = "u_AuthUIS"
/// Accepted and ignored.
public let kSecUseAuthenticationContext: CFString = "u_AuthCtx"
/// Accepted and ignored.
public let kSecUseOperationPrompt: CFString = "u_OpPrompt"
/// Accepted and ignored (deprecated by Apple).
public let kSecUseNoAuthenticationUI: CFString = "u_NoAuthUI"
/// Accepted: this keychain is always the data-protection keychain.
public let kSecUseDataProtectionKeychain: CFString = "nleg"
