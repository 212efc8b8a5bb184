import Crypto
import Foundation
import SwiftASN1
import Synchronization
import Testing
import X509

@testable import LarderProxy

@Suite("CertificateAuthority")
struct CertificateAuthorityTests {
    @Test("first use creates ca/ca.pem (0644) and ca/ca-key.pem (0600) in a 0700 directory")
    func createsFilesWithModes() throws {
        let directory = try TLSTestDirectory()
        let authority = try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date())

        #expect(authority.certificatePath == directory.certificatePath)
        #expect(authority.privateKeyPath == directory.privateKeyPath)
        #expect(try permissions(of: directory.caDirectory) == 0o700)
        #expect(try permissions(of: directory.certificatePath) == 0o644)
        #expect(try permissions(of: directory.privateKeyPath) == 0o600)
        // Only the CA directory: no temporary directory left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["ca"])
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.caDirectory).sorted() == [
                "ca-key.pem", "ca.pem",
            ]
        )

        let onDisk = try Certificate(pemEncoded: String(contentsOfFile: directory.certificatePath, encoding: .utf8))
        #expect(onDisk == authority.certificate)
        let key = try P256.Signing.PrivateKey(
            pemRepresentation: String(contentsOfFile: directory.privateKeyPath, encoding: .utf8)
        )
        #expect(Certificate.PublicKey(key.publicKey) == authority.certificate.publicKey)
    }

    @Test("a missing cache directory is created with its parents")
    func createsCacheDirectory() throws {
        let directory = try TLSTestDirectory()
        let cache = directory.path + "/nested/cache"
        let authority = try CertificateAuthority.loadOrCreate(directory: cache, now: Date())
        #expect(FileManager.default.fileExists(atPath: authority.certificatePath))
        #expect(try permissions(of: cache + "/ca") == 0o700)
    }

    @Test("the CA certificate: unique subject, ten years, critical CA:TRUE and keyCertSign+cRLSign, SKI, self-signed")
    func authorityCertificateContents() throws {
        let directory = try TLSTestDirectory()
        let now = Date()
        let certificate = try CertificateAuthority.loadOrCreate(directory: directory.path, now: now).certificate

        let name = try #require(commonName(of: certificate.subject))
        #expect(name.hasPrefix("Larder Local CA ("))
        let dayFormatter = ISO8601DateFormatter()
        dayFormatter.formatOptions = [.withFullDate]
        #expect(name.hasSuffix(", \(dayFormatter.string(from: now)))"))
        #expect(name.count <= 64)
        #expect(certificate.issuer == certificate.subject)
        let secondDirectory = try TLSTestDirectory()
        let secondCertificate = try CertificateAuthority.loadOrCreate(directory: secondDirectory.path, now: now)
            .certificate
        #expect(secondCertificate.subject != certificate.subject)

        #expect(certificate.notValidBefore <= now - 23 * 3600)
        #expect(certificate.notValidAfter >= now + 3650 * 86_400)
        #expect(certificate.notValidAfter <= now + 3653 * 86_400)
        #expect(certificate.serialNumber.bytes.count == 16)
        #expect(certificate.serialNumber.bytes.first.map { $0 < 0x80 } == true)

        #expect(try certificate.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 0))
        #expect(isCritical(certificate, .X509ExtensionID.basicConstraints) == true)
        #expect(try certificate.extensions.keyUsage == KeyUsage(keyCertSign: true, cRLSign: true))
        #expect(isCritical(certificate, .X509ExtensionID.keyUsage) == true)
        #expect(try certificate.extensions.subjectKeyIdentifier == SubjectKeyIdentifier(hash: certificate.publicKey))
        #expect(certificate.publicKey.isValidSignature(certificate.signature, for: certificate))
    }

    @Test("openssl reads the CA as a self-signed CA with the expected extensions")
    func opensslAcceptsAuthority() async throws {
        let directory = try TLSTestDirectory()
        let authority = try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date())

        let verify = try await runOpenSSL(["verify", "-CAfile", authority.certificatePath, authority.certificatePath])
        #expect(verify.status == 0, "\(verify.output)")
        let text = try await runOpenSSL(["x509", "-in", authority.certificatePath, "-noout", "-text"])
        #expect(text.status == 0)
        #expect(text.output.contains("CA:TRUE"))
        #expect(text.output.contains("Certificate Sign, CRL Sign"))
        #expect(text.output.contains("X509v3 Subject Key Identifier"))
        #expect(text.output.contains("ASN1 OID: prime256v1"))
    }

    @Test("a second call loads the same CA and leaves the files untouched")
    func reloadsIdentical() throws {
        let directory = try TLSTestDirectory()
        let first = try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date())
        let keyBefore = try Data(contentsOf: URL(fileURLWithPath: directory.privateKeyPath))
        let certificateBefore = try Data(contentsOf: URL(fileURLWithPath: directory.certificatePath))

        let second = try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date())

        #expect(second.certificate == first.certificate)
        #expect(try second.pem() == first.pem())
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.privateKeyPath)) == keyBefore)
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.certificatePath)) == certificateBefore)
        // The reloaded key signs leaves the original certificate verifies.
        let leaf = try second.issueLeaf(for: "games.example", now: Date()).certificate
        #expect(first.certificate.publicKey.isValidSignature(leaf.signature, for: leaf))
    }

    @Test("PEM export equals ca.pem and DER export decodes to the same certificate")
    func exports() throws {
        let directory = try TLSTestDirectory()
        let authority = try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date())

        #expect(try authority.pem() == String(contentsOfFile: directory.certificatePath, encoding: .utf8))
        let der = try authority.der()
        #expect(der.first == 0x30)
        #expect(try Certificate(derEncoded: der) == authority.certificate)
        #expect(try PEMDocument(pemString: authority.pem()).derBytes == der)
    }

    @Test(
        "a key file readable by group or others is refused with its path and `chmod 600`",
        arguments: [0o640, 0o604, 0o620, 0o644]
    )
    func refusesOpenKeyPermissions(mode: Int) throws {
        let directory = try TLSTestDirectory()
        _ = try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date())
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: directory.privateKeyPath)

        let error = #expect(throws: CertificateAuthorityError.self) {
            try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date())
        }
        #expect(error?.kind == .insecureKeyPermissions)
        #expect(error?.subject == directory.privateKeyPath)
        #expect(error?.description.contains("chmod 600 \(directory.privateKeyPath)") == true)
        // Refusing is all it does: the mode is the user's to fix.
        #expect(try permissions(of: directory.privateKeyPath) == mode)
    }

    @Test("a corrupt certificate is refused clearly and not overwritten")
    func refusesCorruptCertificate() throws {
        let directory = try TLSTestDirectory()
        _ = try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date())
        let garbage = "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n"
        try garbage.write(toFile: directory.certificatePath, atomically: false, encoding: .utf8)

        let error = #expect(throws: CertificateAuthorityError.self) {
            try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date())
        }
        #expect(error?.kind == .malformedCertificate)
        #expect(error?.description.contains(directory.certificatePath) == true)
        #expect(error?.description.contains("not a certificate in PEM") == true)
        #expect(try String(contentsOfFile: directory.certificatePath, encoding: .utf8) == garbage)
    }

    @Test("a corrupt private key is refused clearly and not overwritten")
    func refusesCorruptKey() throws {
        let directory = try TLSTestDirectory()
        _ = try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date())
        try "not a key\n".write(toFile: directory.privateKeyPath, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: directory.privateKeyPath)

        let error = #expect(throws: CertificateAuthorityError.self) {
            try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date())
        }
        #expect(error?.kind == .malformedPrivateKey)
        #expect(error?.description.contains(directory.privateKeyPath) == true)
        #expect(try String(contentsOfFile: directory.privateKeyPath, encoding: .utf8) == "not a key\n")
    }

    @Test("a key that does not belong to the certificate is refused")
    func refusesMismatchedKey() throws {
        let directory = try TLSTestDirectory()
        let other = try TLSTestDirectory()
        _ = try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date())
        _ = try CertificateAuthority.loadOrCreate(directory: other.path, now: Date())
        let otherKey = try String(contentsOfFile: other.privateKeyPath, encoding: .utf8)
        try otherKey.write(toFile: directory.privateKeyPath, atomically: false, encoding: .utf8)

        let error = #expect(throws: CertificateAuthorityError.self) {
            try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date())
        }
        #expect(error?.kind == .keyDoesNotMatchCertificate)
        #expect(error?.description.contains(directory.privateKeyPath) == true)
        #expect(error?.description.contains(directory.certificatePath) == true)
    }

    @Test("an expired CA is refused with its expiry date, and a not yet valid one names the clock")
    func refusesOutsideValidity() throws {
        let directory = try TLSTestDirectory()
        let created = Date() - 3700 * 86_400
        let authority = try CertificateAuthority.loadOrCreate(directory: directory.path, now: created)

        let expired = #expect(throws: CertificateAuthorityError.self) {
            try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date())
        }
        #expect(expired?.kind == .expired)
        #expect(expired?.description.contains(directory.certificatePath) == true)
        #expect(expired?.description.contains("expired on \(authority.certificate.notValidAfter)") == true)

        let early = #expect(throws: CertificateAuthorityError.self) {
            try CertificateAuthority.loadOrCreate(directory: directory.path, now: created - 3 * 86_400)
        }
        #expect(early?.kind == .notYetValid)
        #expect(early?.description.contains("clock") == true)
        #expect(
            try CertificateAuthority.loadOrCreate(directory: directory.path, now: created).certificate
                == authority.certificate
        )
    }

    @Test("a certificate that is not a CA is refused")
    func refusesNonAuthority() throws {
        let source = try TLSTestDirectory()
        let leaf = try CertificateAuthority.loadOrCreate(directory: source.path, now: Date()).issueLeaf(for: "games.example", now: Date())
        let directory = try TLSTestDirectory()
        try FileManager.default.createDirectory(
            atPath: directory.caDirectory,
            withIntermediateDirectories: false,
            attributes: [.posixPermissions: 0o700]
        )
        try leaf.certificatePEM().write(toFile: directory.certificatePath, atomically: false, encoding: .utf8)
        try leaf.privateKeyPEM.write(toFile: directory.privateKeyPath, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: directory.privateKeyPath)

        let error = #expect(throws: CertificateAuthorityError.self) {
            try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date())
        }
        #expect(error?.kind == .notACertificateAuthority)
        #expect(error?.description.contains(directory.certificatePath) == true)
    }

    @Test("one CA file without the other is refused, naming the missing file, and nothing is created")
    func refusesIncomplete() throws {
        let directory = try TLSTestDirectory()
        _ = try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date())
        try FileManager.default.removeItem(atPath: directory.privateKeyPath)

        let error = #expect(throws: CertificateAuthorityError.self) {
            try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date())
        }
        #expect(error?.kind == .incompleteAuthority)
        #expect(error?.subject == directory.privateKeyPath)
        #expect(error?.description.contains(directory.certificatePath) == true)
        #expect(!FileManager.default.fileExists(atPath: directory.privateKeyPath))
    }

    @Test("an empty ca directory is filled; one holding other files is left alone")
    func existingCADirectory() throws {
        let empty = try TLSTestDirectory()
        try FileManager.default.createDirectory(atPath: empty.caDirectory, withIntermediateDirectories: false)
        let authority = try CertificateAuthority.loadOrCreate(directory: empty.path, now: Date())
        #expect(FileManager.default.fileExists(atPath: authority.certificatePath))
        #expect(try permissions(of: empty.caDirectory) == 0o700)

        let occupied = try TLSTestDirectory()
        try FileManager.default.createDirectory(atPath: occupied.caDirectory, withIntermediateDirectories: false)
        _ = try occupied.write("mine", to: "ca/notes.txt")
        let error = #expect(throws: CertificateAuthorityError.self) {
            try CertificateAuthority.loadOrCreate(directory: occupied.path, now: Date())
        }
        #expect(error?.kind == .incompleteAuthority)
        #expect(try FileManager.default.contentsOfDirectory(atPath: occupied.caDirectory) == ["notes.txt"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: occupied.path) == ["ca"])
    }

    @Test("installing over an existing CA reports the lost race and changes nothing")
    func installNeverReplaces() throws {
        let directory = try TLSTestDirectory()
        let authority = try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date())
        let files = CertificateAuthorityDirectory(cacheDirectory: directory.path)

        let installed = try files.install(certificatePEM: "other certificate", privateKeyPEM: "other key")

        #expect(!installed)
        #expect(try String(contentsOfFile: directory.certificatePath, encoding: .utf8) == authority.pem())
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["ca"])
    }

    @Test("CAs created concurrently on one directory all end up as the same CA")
    func concurrentCreation() throws {
        let directory = try TLSTestDirectory()
        let results = Mutex<[Result<Certificate, any Error>]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let result = Result { try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date()).certificate }
            results.withLock { $0.append(result) }
        }

        let certificates = try results.withLock { try $0.map { try $0.get() } }
        #expect(certificates.count == 8)
        #expect(Set(certificates.map(\.serialNumber)).count == 1)
        let onDisk = try Certificate(pemEncoded: String(contentsOfFile: directory.certificatePath, encoding: .utf8))
        #expect(certificates.first == onDisk)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["ca"])
    }
}
