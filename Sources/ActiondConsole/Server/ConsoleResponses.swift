import Foundation
import Hummingbird
import HummingbirdAuth
import Logging
import NIOCore

/// The console's plain answers: an HTML page, a short text, a redirect.
package enum ConsoleResponses {
    static func html(_ body: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "text/html; charset=utf-8"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    static func text(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text + "\n")))
    }

    /// 303 See Other: after a POST, the browser GETs the page (so a reload repeats nothing).
    static func redirect(to location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location])
    }
}
