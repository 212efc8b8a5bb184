import Foundation
import SwiftASN1
import Testing
import X509

@testable import LarderProxy

@Suite("Leaf certificates")
struct LeafCertificateTests {
    /// A host, the subject alternative name its leaf must carry, and how the verifier names the server.
    struct HostCase: Sendable, CustomTestStringConvertible {
        let host: String
        let alternativeName: GeneralName
        let serverHostname: String?
        let serverIP: String?
        let opensslCheck: [String]
        let opensslText: String

        var testDescription: String { self.host }
    }

    static let hosts: [HostCase] = [
        HostCase(
            host: "games.example",
            alternativeName: .dnsName("games.example"),
            serverHostname: "games.example",
            serverIP: nil,
            opensslCheck: ["-verify_hostname", "games.example"],
            opensslText: "DNS:games.example"
        ),
        HostCase(
            host: "192.0.2.7",
            alternativeName: .ipAddress(ASN1OctetString(contentBytes: [192, 0, 2, 7])),
            serverHostname: nil,
            serverIP: "192.0.2.7",
            opensslCheck: ["-verify_ip", "192.0.2.7"],
            opensslText: "IP Address:192.0.2.7"
        ),
        HostCase(
            host: "[2001:db8::1]",
            alternativeName: .ipAddress(
                ASN1OctetString(contentBytes: [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])
            ),
            serverHostname: nil,
            serverIP: "2001:db8::1",
            opensslCheck: ["-verify_ip", "2001:db8::1"],
            opensslText: "IP Address:2001:DB8:0:0:0:0:0:1"
        ),
    ]

    @Test(
        "a leaf has the right SAN, EKU serverAuth, critical digitalSignature, CA:FALSE, SKI, AKI and dates",
        arguments: Self.hosts
    )
    func extensions(_ hostCase: HostCase) throws {
        let directory = try TLSTestDirectory()
        let authority = try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date())
        let now = Date()
        let leaf = try authority.issueLeaf(for: hostCase.host, now: now)
        let certificate = leaf.certificate

        #expect(
            try certificate.extensions.subjectAlternativeNames == SubjectAlternativeNames([hostCase.alternativeName])
        )
        #expect(try certificate.extensions.extendedKeyUsage == ExtendedKeyUsage([.serverAuth]))
        #expect(try certificate.extensions.keyUsage == KeyUsage(digitalSignature: true))
        #expect(isCritical(certificate, .X509ExtensionID.keyUsage) == true)
        #expect(try certificate.extensions.basicConstraints == .notCertificateAuthority)
        #expect(try certificate.extensions.subjectKeyIdentifier == SubjectKeyIdentifier(hash: certificate.publicKey))
        let authorityKeyIdentifier = try #require(try certificate.extensions.authorityKeyIdentifier?.keyIdentifier)
        #expect(try authorityKeyIdentifier == authority.certificate.extensions.subjectKeyIdentifier?.keyIdentifier)

        #expect(certificate.issuer == authority.certificate.subject)
        #expect(commonName(of: certificate.subject) == leaf.host)
        #expect(certificate.notValidBefore <= now - 23 * 3600)
        #expect(certificate.notValidAfter.timeIntervalSince(certificate.notValidBefore) <= 397 * 86_400)
        #expect(certificate.notValidAfter > now + 390 * 86_400)
        #expect(certificate.serialNumber.bytes.count == 16)
        #expect(certificate.serialNumber.bytes.first.map { $0 < 0x80 } == true)
        #expect(authority.certificate.publicKey.isValidSignature(certificate.signature, for: certificate))
        #expect(certificate.publicKey == Certificate.PublicKey(leaf.privateKey.publicKey))
    }

    @Test(
        "the leaf verifies against the CA with swift-certificates' Verifier, for its host only",
        arguments: Self.hosts
    )
    func swiftCertificatesVerifier(_ hostCase: HostCase) async throws {
        let directory = try TLSTestDirectory()
        let authority = try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date())
        let leaf = try authority.issueLeaf(for: hostCase.host, now: Date())

        var verifier = Verifier(rootCertificates: CertificateStore([authority.certificate])) {
            RFC5280Policy()
            ServerIdentityPolicy(serverHostname: hostCase.serverHostname, serverIP: hostCase.serverIP)
        }
        let result = await verifier.validate(leaf: leaf.certificate, intermediates: CertificateStore())
        guard case .validCertificate(let chain) = result else {
            Issue.record("not valid: \(result)")
            return
        }
        #expect(Array(chain) == [leaf.certificate, authority.certificate])

        var wrongHost = Verifier(rootCertificates: CertificateStore([authority.certificate])) {
            RFC5280Policy()
            ServerIdentityPolicy(serverHostname: "other.example", serverIP: "192.0.2.99")
        }
        guard
            case .couldNotValidate = await wrongHost.validate(leaf: leaf.certificate, intermediates: CertificateStore())
        else {
            Issue.record("a leaf for \(hostCase.host) was accepted for other.example")
            return
        }
    }

    @Test(
        "openssl verifies the leaf against ca.pem for its host and purpose, and shows its extensions",
        arguments: Self.hosts
    )
    func opensslVerify(_ hostCase: HostCase) async throws {
        let directory = try TLSTestDirectory()
        let authority = try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date())
        let leafPath = try directory.write(try authority.issueLeaf(for: hostCase.host, now: Date()).certificatePEM(), to: "leaf.pem")

        let verify = try await runOpenSSL(
            ["verify", "-CAfile", authority.certificatePath, "-purpose", "sslserver", "-x509_strict"]
                + hostCase.opensslCheck + [leafPath]
        )
        #expect(verify.status == 0, "\(verify.output)")
        #expect(verify.output.contains("\(leafPath): OK"))

        let text = try await runOpenSSL(["x509", "-in", leafPath, "-noout", "-text"])
        #expect(text.status == 0)
        #expect(text.output.contains("TLS Web Server Authentication"))
        #expect(text.output.contains("CA:FALSE"))
        #expect(text.output.contains("Digital Signature"))
        #expect(text.output.contains("X509v3 Subject Key Identifier"))
        #expect(text.output.contains("X509v3 Authority Key Identifier"))
        #expect(text.output.contains(hostCase.opensslText), "\(text.output)")
    }

    @Test("openssl rejects the leaf against another CA and for another host")
    func opensslRejects() async throws {
        let directory = try TLSTestDirectory()
        let authority = try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date())
        let otherDirectory = try TLSTestDirectory()
        let otherAuthority = try CertificateAuthority.loadOrCreate(directory: otherDirectory.path, now: Date())
        let leafPath = try directory.write(
            try authority.issueLeaf(for: "games.example", now: Date()).certificatePEM(),
            to: "leaf.pem"
        )
        let otherCAPath = try directory.write(try otherAuthority.pem(), to: "other-ca.pem")

        let wrongCA = try await runOpenSSL(["verify", "-CAfile", otherCAPath, leafPath])
        #expect(wrongCA.status != 0)
        let wrongHost = try await runOpenSSL(
            ["verify", "-CAfile", authority.certificatePath, "-verify_hostname", "other.example", leafPath]
        )
        #expect(wrongHost.status != 0)
    }

    @Test("the chain PEM is the leaf then the CA")
    func chainPEM() throws {
        let directory = try TLSTestDirectory()
        let authority = try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date())
        let leaf = try authority.issueLeaf(for: "games.example", now: Date())

        let blocks = try leaf.chainPEM().components(separatedBy: "-----END CERTIFICATE-----")
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty }
            .map { try Certificate(pemEncoded: $0 + "\n-----END CERTIFICATE-----") }
        #expect(blocks == [leaf.certificate, authority.certificate])
    }

    @Test("a leaf never outlives its CA")
    func cappedByAuthority() throws {
        let directory = try TLSTestDirectory()
        let now = Date()
        // Created so that it expires in ten days.
        let authority = try CertificateAuthority.loadOrCreate(directory: directory.path, now: now - 3642 * 86_400)
        let leaf = try authority.issueLeaf(for: "games.example", now: now)
        #expect(leaf.certificate.notValidAfter == authority.certificate.notValidAfter)
        #expect(authority.certificate.notValidAfter < now + 11 * 86_400)
    }

    @Test("an expired CA issues nothing")
    func expiredAuthority() throws {
        let directory = try TLSTestDirectory()
        let now = Date()
        let authority = try CertificateAuthority.loadOrCreate(directory: directory.path, now: now - 3700 * 86_400)
        let error = #expect(throws: CertificateAuthorityError.self) {
            try authority.issueLeaf(for: "games.example", now: now)
        }
        #expect(error?.kind == .expired)
    }

    @Test("a long host keeps its full SAN and a 64-character common name")
    func longHost() throws {
        let directory = try TLSTestDirectory()
        let authority = try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date())
        let host = String(repeating: "a", count: 60) + "." + String(repeating: "b", count: 40) + ".example"
        let leaf = try authority.issueLeaf(for: host, now: Date())
        #expect(commonName(of: leaf.certificate.subject) == String(host.prefix(64)))
        #expect(try leaf.certificate.extensions.subjectAlternativeNames == SubjectAlternativeNames([.dnsName(host)]))
    }

    @Test("an invalid host is refused by issueLeaf")
    func invalidHost() throws {
        let directory = try TLSTestDirectory()
        let authority = try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date())
        let error = #expect(throws: CertificateAuthorityError.self) {
            try authority.issueLeaf(for: "not a host", now: Date())
        }
        #expect(error?.kind == .invalidHost)
        #expect(error?.subject == "not a host")
    }

    @Test("every leaf gets its own serial number; all share the CA's leaf key")
    func serialsAndSharedKey() throws {
        let directory = try TLSTestDirectory()
        let authority = try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date())
        let leaves = try (0..<20).map { try authority.issueLeaf(for: "host\($0).example", now: Date()) }
        #expect(Set(leaves.map(\.certificate.serialNumber)).count == 20)
        #expect(Set(leaves.map(\.certificate.publicKey)).count == 1)
    }
}
