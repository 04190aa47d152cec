/// URL schemes and Apple's `kSecAttrProtocol` codes (SecItem.h, "Protocol Values"), both ways.
enum InternetProtocol {
    /// Scheme → four-character code. Only schemes with an Apple code are listed.
    static let codeForScheme: [String: String] = [
        "http": "http", "https": "htps", "ftp": "ftp ", "ftps": "ftps", "ssh": "ssh ", "sftp": "ssh ",
        "telnet": "teln", "telnets": "tels", "smtp": "smtp", "imap": "imap", "imaps": "imps", "pop": "pop3",
        "pop3": "pop3", "pops": "pops", "pop3s": "pops", "ldap": "ldap", "ldaps": "ldps", "smb": "smb ",
        "cifs": "cifs", "afp": "afp ", "irc": "irc ", "ircs": "ircs", "nntp": "nntp", "news": "nntp",
        "nntps": "ntps", "rtsp": "rtsp", "ipp": "ipp ", "daap": "daap", "eppc": "eppc", "socks": "sox ",
    ]

    /// Code → the scheme written on export (the first, canonical one for codes that several schemes share).
    static let schemeForCode: [String: String] = [
        "http": "http", "htps": "https", "ftp ": "ftp", "ftps": "ftps", "ssh ": "ssh", "teln": "telnet",
        "tels": "telnets", "smtp": "smtp", "imap": "imap", "imps": "imaps", "pop3": "pop3", "pops": "pop3s",
        "ldap": "ldap", "ldps": "ldaps", "smb ": "smb", "cifs": "cifs", "afp ": "afp", "irc ": "irc",
        "ircs": "ircs", "nntp": "nntp", "ntps": "nntps", "rtsp": "rtsp", "ipp ": "ipp", "daap": "daap",
        "eppc": "eppc", "sox ": "socks",
    ]
}
