import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A W3C WebDriver client for headless Chromium from Debian's packages (`chromium`,
// `chromium-driver`); nothing is downloaded. A test stops the driver with `defer`, so that a
// failing test leaves no process or folder behind (`stop()` ends the browsers under it too):
//
//     let driver = try await ChromeDriverProcess.start()
//     defer { driver.stop() }
//     let browser = try await Browser.open(driver: driver)
//     try await browser.navigate(to: "http://127.0.0.1:\(port)/")
//     ...
//     await browser.quit()   // optional: an orderly end of the session before stop()

/// An error WebDriver answered (its `error` code and `message`), or one of this client's.
struct WebDriverError: Error, CustomStringConvertible {
    let error: String
    let message: String
    var description: String { "WebDriver: \(error): \(message)" }
}

/// `chromedriver` running on a free loopback port, in its own process group.
struct ChromeDriverProcess: Sendable {
    static let installHint = "apt-get install chromium chromium-driver"
    let process: Process
    let port: Int
    /// A temporary folder of its own: `chromedriver.log` (its output and the browsers'
    /// stderr) and the browsers' profiles; `stop()` removes it.
    let folder: URL

    /// Starts `chromedriver` (`/usr/bin/chromedriver`, else the first one on PATH) and waits
    /// (20 s at most) until `GET /status` says it is ready.
    static func start() async throws -> ChromeDriverProcess {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let candidates = ["/usr/bin/chromedriver"] + path.split(separator: ":").map { "\($0)/chromedriver" }
        guard let executable = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw WebDriverError(error: "chromedriver not found", message: "install it with `\(installHint)`")
        }
        var said = ""
        for _ in 1...3 {  // another program may take the free port first: chromedriver then exits
            let port = try WebDriverHTTP.freePort()
            let folder = FileManager.default.temporaryDirectory.appending(path: "chromedriver-\(port)-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let log = folder.appending(path: "chromedriver.log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let output = try FileHandle(forWritingTo: log)
            defer { try? output.close() }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["--port=\(port)", "--allowed-ips=127.0.0.1"]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = output
            process.standardError = output
            try process.run()
            let driver = ChromeDriverProcess(process: process, port: port, folder: folder)
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline, process.isRunning {
                if let status = try? await driver.send("GET", "/status", timeout: 2), status["ready"]?.bool == true { return driver }
                try? await Task.sleep(for: .milliseconds(50))
            }
            said = "\(executable) --port=\(port): " + ((try? String(contentsOf: log, encoding: .utf8)) ?? "").suffix(2000)
            let exited = !process.isRunning
            driver.stop()
            if !exited { break }
        }
        throw WebDriverError(error: "chromedriver did not start", message: "not ready within 20 s: \(said)")
    }

    /// Kills chromedriver and every process under it (the browsers it started), waits for
    /// them (5 s at most) and removes `folder`. Synchronous, for `defer`; safe to call twice.
    /// SIGKILL, not SIGTERM: a child `Process` starts from a Swift concurrency thread inherits
    /// that thread's blocked signals (SIGTERM, SIGINT, SIGHUP among them) on Linux.
    func stop() {
        let pid = process.processIdentifier
        let family = Self.descendants(of: pid)
        kill(-pid, SIGKILL)
        for member in family { kill(member, SIGKILL) }
        let deadline = ContinuousClock.now + .seconds(5)
        while process.isRunning || family.contains(where: Self.isAlive), ContinuousClock.now < deadline { usleep(10_000) }
        if !process.isRunning { process.waitUntilExit() }
        try? FileManager.default.removeItem(at: folder)
    }

    /// Whether `pid` runs (a zombie does not).
    private static func isAlive(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let end = stat.lastIndex(of: ")") else {
            return kill(pid, 0) == 0
        }
        return !stat[stat.index(after: end)...].hasPrefix(" Z")
    }

    /// Every process below `root`, from /proc (Linux; none elsewhere).
    private static func descendants(of root: pid_t) -> [pid_t] {
        var children: [pid_t: [pid_t]] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let end = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            if fields.count > 1, let parent = pid_t(fields[1]) { children[parent, default: []].append(pid) }
        }
        var found: [pid_t] = [], queue = [root]
        while let next = queue.popLast() { let below = children[next] ?? []; found += below; queue += below }
        return found
    }

    /// One WebDriver command: its `value`, or a `WebDriverError` with WebDriver's error and message.
    @discardableResult
    func send(_ method: String, _ path: String, _ body: WebDriverJSON? = nil, timeout: Int = 60) async throws -> WebDriverJSON {
        let payload = try body.map { try JSONEncoder().encode($0) }
        let data = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { [port] in
                continuation.resume(with: Result { try WebDriverHTTP.exchange(port: port, method, path, payload, timeout: timeout) })
            }
        }
        guard let answer = try? JSONDecoder().decode(WebDriverJSON.self, from: data), let value = answer["value"] else {
            throw WebDriverError(error: "not a WebDriver answer", message: "\(method) \(path): \(String(decoding: data.prefix(500), as: UTF8.self))")
        }
        if let error = value["error"]?.string {
            throw WebDriverError(error: error, message: "\(method) \(path): \(value["message"]?.string ?? "")")
        }
        return value
    }
}

/// One headless Chromium window: a WebDriver session.
final class Browser: Sendable {
    let driver: ChromeDriverProcess
    let session: String
    /// The session's own `--user-data-dir`, removed by `quit()` or the driver's `stop()`.
    let profile: URL

    private init(driver: ChromeDriverProcess, session: String, profile: URL) {
        self.driver = driver
        self.session = session
        self.profile = profile
    }

    /// A new session of `/usr/bin/chromium`, headless, with a fresh profile. `windowSize` is the
    /// window's: headless (new) keeps room for a toolbar, so the viewport of 1280×900 is 1280×757.
    /// `--no-sandbox` because Chromium refuses to start as root without it.
    static func open(driver: ChromeDriverProcess, windowSize: (width: Int, height: Int) = (1280, 900),
                     acceptInsecureCerts: Bool = false, arguments: [String] = []) async throws -> Browser {
        let binary = "/usr/bin/chromium"
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw WebDriverError(error: "chromium not found", message: "\(binary) is missing: install it with `\(ChromeDriverProcess.installHint)`")
        }
        let profile = driver.folder.appending(path: "profile-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        let args: [WebDriverJSON] = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                                 "--no-default-browser-check", .string("--user-data-dir=\(profile.path)"),
                                 .string("--window-size=\(windowSize.width),\(windowSize.height)")] + arguments.map { .string($0) }
        let capabilities: WebDriverJSON = ["capabilities": ["alwaysMatch": [
            "browserName": "chrome",
            "acceptInsecureCerts": .bool(acceptInsecureCerts),
            "goog:chromeOptions": ["binary": .string(binary), "args": .array(args)],
        ]]]
        do {
            let value = try await driver.send("POST", "/session", capabilities, timeout: 60)
            guard let session = value["sessionId"]?.string else {
                throw WebDriverError(error: "no session", message: "POST /session answered \(value)")
            }
            return Browser(driver: driver, session: session, profile: profile)
        } catch {
            try? FileManager.default.removeItem(at: profile)
            throw error
        }
    }

    @discardableResult
    func command(_ method: String, _ path: String, _ body: WebDriverJSON? = nil) async throws -> WebDriverJSON {
        try await driver.send(method, "/session/\(session)" + path, body)
    }

    func navigate(to url: String) async throws { try await command("POST", "/url", ["url": .string(url)]) }
    func currentURL() async throws -> String { try await command("GET", "/url").string ?? "" }
    func title() async throws -> String { try await command("GET", "/title").string ?? "" }
    func pageSource() async throws -> String { try await command("GET", "/source").string ?? "" }

    /// Every element matching `css`, in document order (none is not an error).
    func findElements(css: String) async throws -> [Element] {
        let found = try await command("POST", "/elements", ["using": "css selector", "value": .string(css)])
        return (found.array ?? []).compactMap { Element(browser: self, reference: $0) }
    }

    /// The first element matching `css`; an error naming the selector and page when none does.
    /// The first element matching `css`, waiting up to `seconds` for it to appear: after a
    /// click that submits a form, WebDriver may answer before the next page has loaded.
    func waitForElement(css: String, seconds: Double = 10) async throws -> Element {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let element = try await findElements(css: css).first { return element }
            try await Task.sleep(for: .milliseconds(100))
        }
        return try await findElement(css: css)
    }

    func findElement(css: String) async throws -> Element {
        do {
            let found = try await command("POST", "/element", ["using": "css selector", "value": .string(css)])
            if let element = Element(browser: self, reference: found) { return element }
            throw WebDriverError(error: "no such element", message: "no element reference in \(found)")
        } catch let error as WebDriverError where error.error == "no such element" {
            let url = (try? await currentURL()) ?? "?"
            throw WebDriverError(error: "no such element", message: "nothing matches the CSS selector `\(css)` on \(url)")
        }
    }

    /// Runs `script` as a function body in the page (`return …` for a value; a returned
    /// promise is awaited). `arguments` are its `arguments[0…]` (an `Element`'s `.reference` passes an element).
    @discardableResult
    func executeScript(_ script: String, arguments: [WebDriverJSON] = []) async throws -> WebDriverJSON {
        try await command("POST", "/execute/sync", ["script": .string(script), "args": .array(arguments)])
    }

    /// A PNG of the viewport.
    func screenshot() async throws -> Data {
        guard let text = try await command("GET", "/screenshot").string, let png = Data(base64Encoded: text) else {
            throw WebDriverError(error: "no screenshot", message: "GET /screenshot did not answer base64")
        }
        return png
    }

    /// Writes `screenshot()` to `file`, creating its folder.
    func saveScreenshot(to file: URL) async throws {
        let png = try await screenshot()
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try png.write(to: file)
    }

    struct Cookie: Sendable, Equatable {
        let name: String
        let value: String
        let httpOnly: Bool
        let sameSite: String?
        let secure: Bool
    }

    /// The cookies the current page's address sees.
    func cookies() async throws -> [Cookie] {
        try await command("GET", "/cookie").array?.map {
            Cookie(name: $0["name"]?.string ?? "", value: $0["value"]?.string ?? "", httpOnly: $0["httpOnly"]?.bool ?? false,
                   sameSite: $0["sameSite"]?.string, secure: $0["secure"]?.bool ?? false)
        } ?? []
    }

    /// A cookie for the current page's domain (navigate there first).
    func addCookie(name: String, value: String, path: String = "/", httpOnly: Bool = false, secure: Bool = false) async throws {
        try await command("POST", "/cookie", ["cookie": ["name": .string(name), "value": .string(value), "path": .string(path),
                                                         "httpOnly": .bool(httpOnly), "secure": .bool(secure)]])
    }

    func deleteAllCookies() async throws { try await command("DELETE", "/cookie") }

    /// The absolute `href` of every `a[href]` on the page, in document order (for a crawler).
    func links() async throws -> [String] {
        try await executeScript("return Array.from(document.querySelectorAll('a[href]'), a => a.href)").array?.compactMap(\.string) ?? []
    }

    /// Ends the session (the browser exits) and removes its profile. Errors are ignored: this
    /// is cleanup, and `ChromeDriverProcess.stop()` ends a browser that did not exit.
    func quit() async {
        _ = try? await driver.send("DELETE", "/session/\(session)", timeout: 10)
        try? FileManager.default.removeItem(at: profile)
    }
}

/// An element of the page, as WebDriver references it.
struct Element: Sendable {
    static let key = "element-6066-11e4-a52e-4f735466cecf"
    let browser: Browser
    let id: String

    init?(browser: Browser, reference: WebDriverJSON) {
        guard let id = reference[Self.key]?.string else { return nil }
        self.browser = browser
        self.id = id
    }

    /// This element as a script argument.
    var reference: WebDriverJSON { [Self.key: .string(id)] }

    @discardableResult
    private func command(_ method: String, _ path: String, _ body: WebDriverJSON? = nil) async throws -> WebDriverJSON {
        try await browser.command(method, "/element/\(id)" + path, body)
    }

    /// Its rendered text (what a person sees).
    func text() async throws -> String { try await command("GET", "/text").string ?? "" }
    /// The attribute's value, nil when it has none.
    func attribute(_ name: String) async throws -> String? {
        try await command("GET", "/attribute/\(name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name)").string
    }
    func click() async throws { try await command("POST", "/click", [:]) }
    func clear() async throws { try await command("POST", "/clear", [:]) }
    /// Types `text` into it, as keystrokes.
    func sendKeys(_ text: String) async throws { try await command("POST", "/value", ["text": .string(text)]) }
}
