import Foundation
import Testing

/// A git remote over http or https for one test: `git http-backend` behind a small CGI server (python3's
/// http.server, which scripts/setup brings with python3-gi) on a loopback port, asking for HTTP Basic
/// credentials, so `security sync` reaches it only through the user's credential helper. Over https the server
/// presents a self-signed certificate for 127.0.0.1 made with openssl in `root` (``certificate``; git trusts it
/// through `GIT_SSL_CAINFO`). Stopped (and waited for) by ``stop()`` or when the value goes away.
final class GitHTTPServer {
    /// The URL schemes the server speaks.
    enum Scheme: String, CaseIterable, CustomTestStringConvertible {
        case http, https
        var testDescription: String { rawValue }
    }

    /// `http(s)://127.0.0.1:<port>` ; repositories are under it by their folder names in `root`.
    let base: String
    /// One line per request: `<status> <method> <path>`.
    let log: String
    /// Over https, the path of the server's self-signed certificate (PEM), for `GIT_SSL_CAINFO`; nil over http.
    let certificate: String?
    private let process: Process

    static let script = """
        import base64, http.server, os, ssl, subprocess, sys
        root, user, password, log = sys.argv[1:5]
        expected = "Basic " + base64.b64encode((user + ":" + password).encode()).decode()
        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass
            def do_GET(self):
                self.serve()
            def do_POST(self):
                self.serve()
            def record(self, status, path):
                with open(log, "a") as f:
                    f.write("%d %s %s\\n" % (status, self.command, path))
            def serve(self):
                path, _, query = self.path.partition("?")
                if self.headers.get("Authorization") != expected:
                    self.record(401, path)
                    self.send_response(401)
                    self.send_header("WWW-Authenticate", 'Basic realm="sync"')
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                env = dict(os.environ, GIT_PROJECT_ROOT=root, GIT_HTTP_EXPORT_ALL="1", PATH_INFO=path,
                    QUERY_STRING=query, REQUEST_METHOD=self.command, CONTENT_LENGTH=str(length),
                    CONTENT_TYPE=self.headers.get("Content-Type", ""), REMOTE_USER=user, REMOTE_ADDR="127.0.0.1",
                    HTTP_CONTENT_ENCODING=self.headers.get("Content-Encoding", ""),
                    GIT_PROTOCOL=self.headers.get("Git-Protocol", ""))
                out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True).stdout
                separator = b"\\r\\n\\r\\n" if b"\\r\\n\\r\\n" in out else b"\\n\\n"
                head, _, rest = out.partition(separator)
                status, headers = 200, []
                for line in head.decode().splitlines():
                    name, _, value = line.partition(":")
                    if name.lower() == "status":
                        status = int(value.split()[0])
                    elif name:
                        headers.append((name, value.strip()))
                self.record(status, path)
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(rest)))
                self.end_headers()
                self.wfile.write(rest)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if len(sys.argv) > 6:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(sys.argv[5], sys.argv[6])
            server.socket = context.wrap_socket(server.socket, server_side=True)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """

    /// Serves the repositories in `root` over `scheme`, accepting only `user` with `password`.
    init(root: String, user: String, password: String, scheme: Scheme = .http) throws {
        let scriptPath = root + "/git-http-server.py"
        try Self.script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        log = root + "/http.log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        var tls: [String] = []
        if scheme == .https {
            let certificate = root + "/tls-certificate.pem"
            let key = root + "/tls-key.pem"
            try Self.makeCertificate(certificate, key: key)
            self.certificate = certificate
            tls = [certificate, key]
        } else {
            certificate = nil
        }
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [scriptPath, root, user, password, log] + tls
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        base = "\(scheme.rawValue)://127.0.0.1:\(port ?? 0)"
        if port == nil { stop() }
        try #require(port != nil, "the git http server did not start")
    }

    deinit { stop() }

    /// A self-signed P-256 certificate for 127.0.0.1, valid one day, and its key, made by openssl.
    private static func makeCertificate(_ certificate: String, key: String) throws {
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1", "-days", "1", "-keyout", key, "-out", certificate,
        ]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        try #require(openssl.terminationStatus == 0, "openssl could not make the test certificate")
    }

    /// Stops the server (SIGKILL: the test runner's blocked-signal mask leaves SIGTERM pending in children).
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// The log's lines.
    var requests: [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }
}
