import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A raw TCP connection, for sending bytes no well-behaved client would (malformed requests,
/// pipelined requests in one write).
final class RawConnection: Sendable {
    private let descriptor: Int32

    /// Connects to `host:port` (IPv4 literal).
    init(host: String, port: Int) throws {
        self.descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard self.descriptor >= 0 else { throw E2EError("socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(self.descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(self.descriptor)
            throw E2EError("connect to \(host):\(port) failed: errno \(errno)")
        }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(self.descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(self.descriptor) }

    /// Sends all of `text`.
    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(self.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw E2EError("send failed: errno \(errno)") }
            offset += sent
        }
    }

    /// Reads until the peer closes (or the 20 s receive timeout), returning everything.
    func readToEnd() async -> String {
        await onThread { self.readToEndBlocking() }
    }

    private func readToEndBlocking() -> String {
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(self.descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            data += buffer[0..<count]
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Reads until what has arrived contains `marker`, the peer closes, or the 20 s receive
    /// timeout passes; returns what arrived.
    func read(until marker: String) async -> String {
        await onThread {
            var data = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while !String(decoding: data, as: UTF8.self).contains(marker) {
                let count = buffer.withUnsafeMutableBytes { recv(self.descriptor, $0.baseAddress, $0.count, 0) }
                if count <= 0 { break }
                data += buffer[0..<count]
            }
            return String(decoding: data, as: UTF8.self)
        }
    }

    /// The first non-loopback IPv4 address of this machine, if any.
    static func nonLoopbackIPv4() -> String? {
        var addresses: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&addresses) == 0, let first = addresses else { return nil }
        defer { freeifaddrs(addresses) }
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                var inAddress = pointer.pointee.sin_addr
                _ = inet_ntop(AF_INET, &inAddress, &text, socklen_t(INET_ADDRSTRLEN))
            }
            let string = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !string.hasPrefix("127.") { return string }
        }
        return nil
    }
}
