import Testing

@testable import LarderProxy

@Suite("TunnelTraffic: what a CONNECT tunnel carries, from its first bytes")
struct TunnelTrafficTests {
    /// A TLS 1.2/1.3 ClientHello's record header as browsers send it, then the handshake type.
    static let clientHello: [UInt8] = [0x16, 0x03, 0x01, 0x02, 0x00, 0x01]

    @Test(
        "each prefix is told, or waits for more",
        arguments: [
            // Nothing yet.
            ([], nil),
            // TLS: a handshake record of version 3.x.
            (Array(clientHello), .tls),
            ([0x16, 0x03, 0x03], .tls),
            ([0x16, 0x03, 0x00], .tls),
            ([0x16], nil),
            ([0x16, 0x03], nil),
            ([0x16, 0x02, 0x01], .other),
            ([0x16, 0x03, 0x10], .other),
            ([0x17, 0x03, 0x03], .other),
            // HTTP: a method the decoder knows, then a space.
            (Array("GET / HTTP/1.1\r\n".utf8), .http),
            (Array("GET ".utf8), .http),
            (Array("OPTIONS * HTTP/1.1\r\n".utf8), .http),
            (Array("UNSUBSCRIBE /x HTTP/1.1".utf8), .http),
            (Array("POST".utf8), nil),
            (Array("G".utf8), nil),
            (Array("UNSUBSCRIBE".utf8), nil),
            // Not HTTP: unknown or lower-case methods, no space in time, other bytes.
            (Array("get / HTTP/1.1".utf8), .other),
            (Array("SET key value\r\n".utf8), .other),
            (Array("PRI * HTTP/2.0\r\n".utf8), .other),
            (Array("PING\r\n".utf8), .other),
            (Array("SSH-2.0-OpenSSH_9.6\r\n".utf8), .other),
            (Array("UNSUBSCRIBES".utf8), .other),
            (Array(" GET /".utf8), .other),
            ([0x00], .other),
            ([0x05, 0x01, 0x00], .other),
        ] as [([UInt8], TunnelTraffic?)]
    )
    func classify(bytes: [UInt8], expected: TunnelTraffic?) {
        #expect(TunnelTraffic.classify(bytes) == expected)
    }

    @Test(
        "a verdict never changes as more bytes arrive", arguments: [Array(clientHello), Array("GET /x HTTP/1.1\r\n".utf8), [0x00, 0x01]])
    func stable(bytes: [UInt8]) {
        let verdicts = (1...bytes.count).compactMap { TunnelTraffic.classify(bytes.prefix($0)) }
        #expect(Set(verdicts).count == 1)
        #expect(verdicts.last == TunnelTraffic.classify(bytes))
    }
}
