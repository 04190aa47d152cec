import Foundation
import Testing

@testable import KeychainCore
@testable import SecretService

/// The access question names the application as the user knows it, from its desktop entry (tracker
/// issue 24: "Seahorse wants to use…", not "exe:/usr/bin/seahorse wants to use…"), keeps the identity on
/// a second line, and reaches "Always Allow" with a pinentry that shows only two buttons (GNOME's).
@Suite("Access question wording and two-button pinentries")
struct AccessQuestionWordingTests {
    /// A temporary `XDG_DATA_HOME` and `XDG_DATA_DIRS` (two folders), removed with the value.
    struct DataFolders {
        let home: KeychainHome
        var dataHome: String { home.root + "/data-home" }
        var first: String { home.root + "/share-1" }
        var second: String { home.root + "/share-2" }

        init() throws {
            home = try KeychainHome()
            for folder in [dataHome, first, second] {
                try FileManager.default.createDirectory(
                    atPath: folder + "/applications", withIntermediateDirectories: true)
            }
        }

        func write(_ text: String, _ id: String, in folder: String) throws {
            let path = folder + "/applications/" + id
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        }

        func names(lang: String? = nil) -> ApplicationName {
            var environment = [
                "XDG_DATA_HOME": dataHome, "XDG_DATA_DIRS": first + ":" + second, "HOME": home.root,
                "PATH": "/usr/bin:/bin",
            ]
            if let lang { environment["LANG"] = lang }
            return ApplicationName(environment: environment)
        }
    }

    static var python: String { URL(fileURLWithPath: "/usr/bin/python3").resolvingSymlinksInPath().path }

    static func executable(_ path: String) -> CallerIdentity {
        CallerIdentity(kind: .executable(path: path, sha256: nil))
    }

    @Test("An executable is named by the desktop entry whose Exec= names it, in LANG's language, else Name=")
    func namedByExec() throws {
        let folders = try DataFolders()
        // `python3` on PATH resolves to the interpreter's real file (`/usr/bin/python3.11`).
        try folders.write(
            "[Desktop Entry]\nType=Application\nName=Snake Shell\nName[de]=Schlangen-Shell\n"
                + "Name[pt_BR]=Concha\nExec=python3 %U\n", "org.example.Snake.desktop", in: folders.second)
        let identity = Self.executable(Self.python)
        #expect(folders.names().name(of: identity) == "Snake Shell")
        #expect(folders.names(lang: "de_DE.UTF-8").name(of: identity) == "Schlangen-Shell")
        #expect(folders.names(lang: "pt_BR.UTF-8").name(of: identity) == "Concha")
        #expect(folders.names(lang: "fr_FR.UTF-8").name(of: identity) == "Snake Shell")
        #expect(folders.names(lang: "C").name(of: identity) == "Snake Shell")
    }

    @Test("TryExec= names the program too; XDG_DATA_HOME comes first, and a Hidden=true copy hides an entry")
    func searchOrder() throws {
        let folders = try DataFolders()
        try folders.write(
            "[Desktop Entry]\nName=True Program\nTryExec=/usr/bin/true\nExec=sh -c true\n", "truth.desktop",
            in: folders.second)
        let truth = Self.executable(URL(fileURLWithPath: "/usr/bin/true").resolvingSymlinksInPath().path)
        #expect(folders.names().name(of: truth) == "True Program")
        try folders.write("[Desktop Entry]\nName=Mine\nExec=/usr/bin/true\n", "kde/truth.desktop", in: folders.dataHome)
        #expect(folders.names().name(of: truth) == "Mine")
        // Hiding the second folder's desktop id in the first (and removing the user's own) leaves the file name.
        try FileManager.default.removeItem(atPath: folders.dataHome + "/applications/kde")
        try folders.write("[Desktop Entry]\nName=Gone\nHidden=true\n", "truth.desktop", in: folders.first)
        #expect(folders.names().name(of: truth) == "true")
    }

    @Test("A Flatpak app is named by <app id>.desktop, else by its app id; an unknown program by its file name")
    func flatpakAndFallbacks() throws {
        let folders = try DataFolders()
        try folders.write(
            "# exported\n[Desktop Action new]\nName=New window\n[Desktop Entry]\nName=Example\\sMail\n",
            "org.example.Mail.desktop", in: folders.first)
        #expect(folders.names().name(of: CallerIdentity(kind: .flatpak(appID: "org.example.Mail"))) == "Example Mail")
        #expect(
            folders.names().name(of: CallerIdentity(kind: .flatpak(appID: "org.example.Other"))) == "org.example.Other")
        #expect(folders.names().name(of: Self.executable("/opt/tools/bin/mailer")) == "mailer")
        #expect(folders.names().name(of: CallerIdentity(kind: .snap(name: "mailer"))) == "mailer")
    }

    @Test("A script is named by the entry that runs it, never by an entry that runs only its interpreter")
    func scripts() throws {
        let folders = try DataFolders()
        try folders.write("[Desktop Entry]\nName=Any Python\nExec=python3\n", "python.desktop", in: folders.first)
        let script = CallerIdentity(kind: .executable(path: Self.python, sha256: nil), script: "/opt/mail/mail.py")
        #expect(folders.names().name(of: script) == "mail.py")
        try folders.write(
            "[Desktop Entry]\nName=Mail Tool\nExec=python3 \"/opt/mail/mail.py\" %U\n", "mail.desktop",
            in: folders.first)
        #expect(folders.names().name(of: script) == "Mail Tool")
    }

    @Test("A name with control characters or over 80 characters is cleaned; the text keeps the identity on line two")
    func textAndCleaning() throws {
        let folders = try DataFolders()
        try folders.write(
            "[Desktop Entry]\nName=Evil\\nwants nothing\nExec=/usr/bin/true\n", "evil.desktop", in: folders.first)
        let truth = Self.executable(URL(fileURLWithPath: "/usr/bin/true").resolvingSymlinksInPath().path)
        #expect(folders.names().name(of: truth) == "Evil wants nothing")
        try folders.write(
            "[Desktop Entry]\nName=\(String(repeating: "x", count: 100))\nExec=/usr/bin/true\n", "evil.desktop",
            in: folders.first)
        #expect(folders.names().name(of: truth) == String(repeating: "x", count: 79) + "…")

        let question = AccessConfirmation(
            application: "exe:/usr/bin/seahorse", itemLabel: "Mail", applicationName: "Seahorse")
        #expect(
            question.text
                == "Seahorse wants to use your confidential information stored in \"Mail\" in your keychain.\n"
                + "Program: exe:/usr/bin/seahorse")
        #expect(question.alwaysText == "Always allow Seahorse to use this item?\nProgram: exe:/usr/bin/seahorse")
        // Without a name of its own, the identity is the name and is not repeated.
        #expect(
            AccessConfirmation(application: "exe:/usr/bin/x", itemLabel: "Mail").text
                == "exe:/usr/bin/x wants to use your confidential information stored in \"Mail\" in your keychain.")
    }

    // MARK: - Two-button pinentries

    /// A pinentry answering `GETINFO flavor` with `flavor` and each CONFIRM with the next of `answers`
    /// (`ok`: OK; `always`: GPG_ERR_NOT_CONFIRMED; `cancel`: GPG_ERR_CANCELED). Like pinentry-gnome3, it
    /// accepts SETNOTOK but never answers "not confirmed" unless told. It logs SETDESC, SETOK, SETNOTOK,
    /// SETCANCEL and CONFIRM lines.
    static func pinentry(_ home: KeychainHome, flavor: String, answers: [String]) throws -> (String, String) {
        let list = home.root + "/answers-\(UUID().uuidString)"
        let log = home.root + "/log-\(UUID().uuidString)"
        try (answers.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let path = home.root + "/pinentry-\(UUID().uuidString).sh"
        try KeychainHome.installScript(
            """
            #!/bin/sh
            echo 'OK Pleased to meet you'
            while read -r line; do
              case "$line" in
                "GETINFO flavor") echo 'D \(flavor)'; echo OK ;;
                SETDESC*|SETOK*|SETNOTOK*|SETCANCEL*) echo "$line" >> '\(log)'; echo OK ;;
                CONFIRM*) echo CONFIRM >> '\(log)'
                  answer=$(head -n 1 '\(list)'); sed -i 1d '\(list)'
                  case "$answer" in
                    ok) echo OK ;;
                    always) echo 'ERR 83886194 Not confirmed' ;;
                    *) echo 'ERR 83886179 Operation cancelled' ;;
                  esac ;;
                BYE*) echo OK; exit 0 ;;
                *) echo OK ;;
              esac
            done

            """, at: path)
        return (path, log)
    }

    static let question = AccessConfirmation(
        application: "exe:/usr/bin/seahorse", itemLabel: "Mail", applicationName: "Seahorse")

    static func lines(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    @Test("GNOME's flavour gets no SETNOTOK; after Allow a second question offers Always / Not now")
    func twoButtonFollowUp() throws {
        let home = try KeychainHome()
        let (program, log) = try Self.pinentry(home, flavor: "gnome3", answers: ["ok", "ok"])
        #expect(try Pinentry(program: program).confirm(Self.question) == .alwaysAllow)
        let description = "SETDESC " + AssuanConnection.percentEncode(Self.question.text)
        let followUp = "SETDESC " + AssuanConnection.percentEncode(Self.question.alwaysText)
        #expect(
            Self.lines(log) == [
                description, "SETOK Allow", "SETCANCEL Deny", "CONFIRM", followUp, "SETOK Always",
                "SETCANCEL Not now", "CONFIRM",
            ])
        #expect(followUp == "SETDESC Always allow Seahorse to use this item?%0AProgram: exe:/usr/bin/seahorse")

        let (notNow, notNowLog) = try Self.pinentry(home, flavor: "gnome3", answers: ["ok", "cancel"])
        #expect(try Pinentry(program: notNow).confirm(Self.question) == .allowOnce)
        #expect(Self.lines(notNowLog).filter { $0 == "CONFIRM" }.count == 2)

        let (deny, denyLog) = try Self.pinentry(home, flavor: "gnome3", answers: ["cancel"])
        #expect(try Pinentry(program: deny).confirm(Self.question) == .deny)
        #expect(Self.lines(denyLog).filter { $0 == "CONFIRM" }.count == 1)
    }

    @Test("A three-button flavour (curses, also pinentry-gnome3 fallen back to it) asks once with Always Allow")
    func threeButtonFlavours() throws {
        let home = try KeychainHome()
        for flavor in ["gnome3:curses", "curses", "tty", "qt"] {
            let (program, log) = try Self.pinentry(home, flavor: flavor, answers: ["always"])
            #expect(try Pinentry(program: program).confirm(Self.question) == .alwaysAllow, "\(flavor)")
            #expect(Self.lines(log).contains("SETNOTOK Always Allow"), "\(flavor)")
            #expect(Self.lines(log).filter { $0 == "CONFIRM" }.count == 1, "\(flavor)")
            let (once, onceLog) = try Self.pinentry(home, flavor: flavor, answers: ["ok"])
            #expect(try Pinentry(program: once).confirm(Self.question) == .allowOnce, "\(flavor)")
            #expect(Self.lines(onceLog).filter { $0 == "CONFIRM" }.count == 1, "\(flavor)")
        }
    }

    @Test("Without a GETINFO flavor answer, the program's name decides")
    func flavourFromProgramName() {
        #expect(!Pinentry.showsThirdButton(flavor: nil, program: "/nonexistent/pinentry-gnome3"))
        #expect(Pinentry.showsThirdButton(flavor: nil, program: "/nonexistent/pinentry-curses"))
        #expect(Pinentry.showsThirdButton(flavor: nil, program: "/nonexistent/pinentry-gnome3-wrapper.sh"))
        #expect(!Pinentry.showsThirdButton(flavor: "gnome3", program: "/usr/bin/pinentry"))
        #expect(Pinentry.showsThirdButton(flavor: "gnome3:curses", program: "/usr/bin/pinentry-gnome3"))
    }

    @Test(
        "Through the provider: the question names the client by its desktop entry in LANG's language, and a two-button pinentry's follow-up stores Always Allow"
    )
    func throughTheProvider() throws {
        try KeychainProviderTests.with { bus, home in
            let (pinentry, log) = try Self.pinentry(home, flavor: "gnome3", answers: ["ok", "ok"])
            // XDG_DATA_HOME is the home's `data` folder (KeychainHome.environment).
            try FileManager.default.createDirectory(
                atPath: home.root + "/data/applications", withIntermediateDirectories: true)
            try "[Desktop Entry]\nName=Mail Reader\nName[de]=Postleser\nExec=/usr/bin/python3 \(home.root)/client.py\n"
                .write(toFile: home.root + "/data/applications/reader.desktop", atomically: true, encoding: .utf8)
            try bus.startProvider(
                keychainHome: home.root, extraEnvironment: ["KEYCHAIN_PINENTRY": pinentry, "LANG": "de_DE.UTF-8"])
            let session = try bus.openPlainSession()
            let item = try bus.createItem(
                AccessListTests.login, label: "Mail password", attributes: ["service": "mail"], secret: "hunter2",
                session: session)
            #expect(try AccessListTests.runClient(bus, home, ["get", item]) == ["OK hunter2"])
            let identity = try AccessListTests.pythonIdentity(bus, home)
            let descriptions = Self.lines(log).filter { $0.hasPrefix("SETDESC ") }
            #expect(
                descriptions == [
                    "SETDESC Postleser wants to use your confidential information stored in \"Mail password\" in your "
                        + "keychain.%0AProgram: \(identity)",
                    "SETDESC Always allow Postleser to use this item?%0AProgram: \(identity)",
                ])
            #expect(!Self.lines(log).contains { $0.hasPrefix("SETNOTOK") })
            // Always Allow was stored: the next read asks nothing.
            #expect(try AccessListTests.runClient(bus, home, ["get", item]) == ["OK hunter2"])
            #expect(Self.lines(log).filter { $0 == "CONFIRM" }.count == 2)
        }
    }
}
