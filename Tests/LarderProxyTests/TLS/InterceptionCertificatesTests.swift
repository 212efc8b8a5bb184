import Foundation
import NIOSSL
import Synchronization
import Testing
import X509

@testable import LarderProxy

@Suite("InterceptionCertificates cache")
struct InterceptionCertificatesTests {
    /// Certificates from a new CA; its directory goes when this returns, as the cache never reads the disk.
    private func makeCertificates(
        capacity: Int = 1000,
        clock: TestClock = TestClock()
    ) throws -> InterceptionCertificates {
        let directory = try TLSTestDirectory()
        let authority = try CertificateAuthority.loadOrCreate(directory: directory.path, now: clock.now)
        return InterceptionCertificates(authority: authority, capacity: capacity, now: { clock.now })
    }

    @Test("one host gets one leaf and one context, whatever its spelling")
    func sameHostSameLeaf() throws {
        let certificates = try self.makeCertificates()
        let first = try certificates.leaf(for: "games.example")
        let again = try certificates.leaf(for: "GAMES.example.")
        #expect(again.certificate == first.certificate)
        #expect(
            try certificates.serverContext(for: "games.example") === certificates.serverContext(for: "Games.Example")
        )

        let ipv6 = try certificates.leaf(for: "[2001:db8::1]")
        #expect(try certificates.leaf(for: "2001:DB8:0::1").certificate == ipv6.certificate)
        #expect(certificates.cachedHostCount == 2)
    }

    @Test("different hosts get different leaves")
    func differentHosts() throws {
        let certificates = try self.makeCertificates()
        let games = try certificates.leaf(for: "games.example")
        let other = try certificates.leaf(for: "other.example")
        #expect(games.certificate.serialNumber != other.certificate.serialNumber)
        #expect(
            try other.certificate.extensions.subjectAlternativeNames
                == SubjectAlternativeNames([.dnsName("other.example")])
        )
    }

    @Test("beyond capacity the least recently used host is evicted and reissued on its next use")
    func capacityEvictsLeastRecentlyUsed() throws {
        let certificates = try self.makeCertificates(capacity: 3)
        let a = try certificates.leaf(for: "a.example")
        let b = try certificates.leaf(for: "b.example")
        let c = try certificates.leaf(for: "c.example")
        // Using a makes b the least recently used.
        _ = try certificates.leaf(for: "a.example")
        _ = try certificates.leaf(for: "d.example")

        #expect(certificates.cachedHostCount == 3)
        #expect(try certificates.leaf(for: "a.example").certificate == a.certificate)
        #expect(try certificates.leaf(for: "c.example").certificate == c.certificate)
        // b was evicted (and now evicts d, the least recently used).
        #expect(try certificates.leaf(for: "b.example").certificate != b.certificate)
        #expect(certificates.cachedHostCount == 3)
    }

    @Test("a cached leaf about to expire is replaced")
    func renewsNearExpiry() throws {
        let clock = TestClock()
        let certificates = try self.makeCertificates(clock: clock)
        let first = try certificates.leaf(for: "games.example")
        clock.advance(by: 300 * 86_400)
        #expect(try certificates.leaf(for: "games.example").certificate == first.certificate)
        clock.advance(by: 96 * 86_400)
        let renewed = try certificates.leaf(for: "games.example")
        #expect(renewed.certificate != first.certificate)
        #expect(renewed.certificate.notValidAfter > clock.now + 390 * 86_400)
    }

    @Test("invalid hosts are refused by every entry point")
    func invalidHosts() throws {
        let certificates = try self.makeCertificates()
        #expect(throws: CertificateAuthorityError.self) { try certificates.leaf(for: "") }
        #expect(throws: CertificateAuthorityError.self) { try certificates.serverContext(for: "a b") }
        #expect(throws: CertificateAuthorityError.self) { try certificates.makeServerHandler(connectHost: "x/y") }
        #expect(certificates.cachedHostCount == 0)
    }

    @Test("many threads asking for one host all get the same leaf")
    func concurrentRequests() throws {
        let certificates = try self.makeCertificates()
        let serials = Mutex<[Certificate.SerialNumber]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            if let leaf = try? certificates.leaf(for: "games.example") {
                serials.withLock { $0.append(leaf.certificate.serialNumber) }
            }
        }
        let collected = serials.withLock { $0 }
        #expect(collected.count == 16)
        #expect(Set(collected).count == 1)
    }
}
