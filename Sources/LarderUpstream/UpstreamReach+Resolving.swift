import LarderHTTP
import NIOPosix

#if canImport(Glibc)
    import Glibc
#elseif canImport(Android)
    import Android
#elseif canImport(Darwin)
    import Darwin
#endif

extension UpstreamReach {
    /// Whether `host` at `port` resolves to an address of the box's own this reach does not allow
    /// (``mayConnect(to:port:)``), looked up now on NIO's thread pool (a lookup blocks). For what a
    /// client on another machine asks Larder to keep fetching later (an extra URL), where no
    /// connection is made now to judge; a name that does not resolve is not refused here.
    public func resolvesToForbiddenAddress(host: String, port: Int) async -> Bool {
        guard self.mayName(host: host, port: port) else { return true }
        let addresses: [[UInt8]] = (try? await NIOThreadPool.singleton.runIfActive { Self.lookUp(host) }) ?? []
        return addresses.contains { !self.mayConnect(to: $0, port: port) }
    }

    /// The IPv4 and IPv6 addresses `host` resolves to, as bytes; none when it does not resolve.
    private static func lookUp(_ host: String) -> [[UInt8]] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [[UInt8]] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let address = current.pointee.ai_addr {
                switch Int32(address.pointee.sa_family) {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                        addresses.append(withUnsafeBytes(of: inet.pointee.sin_addr) { Array($0) })
                    }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { inet6 in
                        addresses.append(withUnsafeBytes(of: inet6.pointee.sin6_addr) { Array($0) })
                    }
                default:
                    break
                }
            }
            entry = current.pointee.ai_next
        }
        return addresses
    }
}
