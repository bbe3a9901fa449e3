import NIOHTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// Closes the connection after the response to a request that did not ask to keep it open
/// (HTTP/1.0 without `Connection: keep-alive`), as HTTP/1.0 clients expect: a health check
/// run with such a client (busybox `wget`, a script's raw socket) otherwise waited on an open
/// connection. Hummingbird decides from the request's `Connection` header alone and its
/// request type carries no version, so this adds `Connection: close` to such a request's
/// head while it is still NIO's (which knows the version), just before Hummingbird's codec.
///
/// Added through `HTTP1Channel.Configuration.additionalChannelHandlers`, which puts handlers
/// after that codec: on joining the pipeline it places its `VersionHandler` before the codec.
/// Written here because neither Hummingbird nor NIO's HTTP/1 pipeline closes such connections.
final class HTTP10ConnectionClose: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    func handlerAdded(context: ChannelHandlerContext) {
        let pipeline = context.pipeline.syncOperations
        if let codec = try? pipeline.handler(type: HTTP1ToHTTPServerCodec.self) {
            try? pipeline.addHandler(VersionHandler(), position: .before(codec))
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    /// Before the codec: a request head that does not keep the connection alive says so.
    final class VersionHandler: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias InboundOut = HTTPServerRequestPart

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .head(var head) = unwrapInboundIn(data), !head.isKeepAlive else {
                context.fireChannelRead(data)
                return
            }
            head.headers.replaceOrAdd(name: "connection", value: "close")
            context.fireChannelRead(wrapInboundOut(.head(head)))
        }
    }
}
