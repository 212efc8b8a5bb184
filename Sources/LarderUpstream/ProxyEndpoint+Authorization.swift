import Foundation
import LarderHTTP

extension ProxyEndpoint {
    /// The `Proxy-Authorization` value for the parent's credentials (`Basic`, RFC 7617), nil
    /// without a user name: for a `CONNECT` (``ProxyConnectHandler``) and a forwarded request
    /// (``NIOUpstream``) alike.
    package var proxyAuthorization: String? {
        guard let username = self.username else { return nil }
        return "Basic " + Data("\(username):\(self.password ?? "")".utf8).base64EncodedString()
    }
}
