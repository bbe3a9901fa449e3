import ActiondDomain
import ActiondPostgres
import Foundation
import Hummingbird
import HummingbirdAuth
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL

/// `actiond console`: the Hummingbird application serving the pages over `store`.
///
/// Every request passes, in order: the security headers, the check that it was sent to one of
/// the console's names, the cross-site check (state-changing requests only), the session; then every page needs an operator (`ConsoleAccessMiddleware`),
/// and every action an operator (`OperatorOnlyMiddleware`). Nothing changes state on GET.
package enum ConsoleServer {
    package static func application(
        configuration: ConsoleConfiguration, users: ConsoleUsersFile?, store: ConsoleStore, reportViews: [ReportView], logger: Logger
    ) throws -> some ApplicationProtocol {
        let templates = try ConsoleTemplates()
        let sessions = MemoryPersistDriver()
        let names = ConsoleNames(configuration: configuration,
                                 certificateNames: try configuration.tlsCertificate.map(ConsoleNames.certificateNames) ?? [])
        let router = Router(context: ConsoleContext.self)
        router.add(middleware: SecurityHeadersMiddleware(tls: configuration.usesTLS))
        router.add(middleware: HostCheckMiddleware(names: names))
        router.add(middleware: ConsoleErrorMiddleware())
        router.add(middleware: CrossSiteMiddleware(names: names))
        router.add(middleware: SessionMiddleware(storage: sessions, configuration: SessionMiddlewareConfiguration(
            sessionCookieParameters: SessionCookieParameters(name: "actiond_console", path: "/", secure: configuration.usesTLS, sameSite: .strict),
            keyPrefix: "console.", defaultSessionExpiration: configuration.sessionLifetime)))
        router.get("/assets/:name") { _, context -> Response in
            guard let name = context.parameters.get("name"), let text = ConsoleTemplates.asset(name), !name.hasSuffix(".mustache") else {
                return ConsoleResponses.text(.notFound, "no such asset")
            }
            let type = name.hasSuffix(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8"
            return Response(status: .ok, headers: [.contentType: type, .cacheControl: "max-age=300"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
        if let users, !configuration.behindProxy {
            SignInPage(users: users, templates: templates, lifetime: configuration.sessionLifetime, throttle: SignInThrottle()).addRoutes(to: router)
        }
        let pages = router.group().add(middleware: ConsoleAccessMiddleware(users: users, configuration: configuration))
        let actions = pages.group().add(middleware: OperatorOnlyMiddleware())
        OverviewPage(store: store, templates: templates).addRoutes(to: pages)
        OutcomesPage(store: store, templates: templates).addRoutes(to: pages)
        DeadLettersPage(store: store, templates: templates).addRoutes(pages: pages, actions: actions)
        PersonPage(store: store, templates: templates, reportViews: reportViews).addRoutes(to: pages)
        CategoriesPage(store: store, templates: templates).addRoutes(to: pages)
        PausesPage(store: store, templates: templates).addRoutes(pages: pages, actions: actions)
        AuditPage(store: store, templates: templates).addRoutes(to: pages)

        let scheme = configuration.usesTLS ? "https" : "http"
        let server: HTTPServerBuilder
        if let certificate = configuration.tlsCertificate, let key = configuration.tlsKey {
            let chain = try NIOSSLCertificate.fromPEMFile(certificate).map { NIOSSLCertificateSource.certificate($0) }
            let tls = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
            server = try .tls(.http1(), tlsConfiguration: tls)
        } else {
            server = .http1()
        }
        let readOnly = users == nil
        return Application(
            responder: HeadAsGetResponder(SecurityHeadersResponder(router.buildResponder(), tls: configuration.usesTLS)),
            server: server,
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port), serverName: "actiond console"),
            services: [sessions],
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
                let note = readOnly ? " (read-only: no users file)" : ""
                logger.notice("console serving \(scheme)://\(host):\(port)/\(note)", metadata: [
                    "http_host": "\(configuration.host)", "http_port": "\(port)",
                ])
            },
            logger: logger)
    }
}
