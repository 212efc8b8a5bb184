import Foundation
import LarderStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif canImport(Darwin)
    import Darwin
#endif

/// The local CA's files, `<cacheDir>/ca/ca.pem` and `<cacheDir>/ca/ca-key.pem`, and the POSIX work of reading them
/// safely and creating them without ever replacing a CA that is already there.
struct CertificateAuthorityDirectory: Sendable {
    /// The cache directory the `ca` directory lives in.
    let cacheDirectory: String

    /// `<cacheDir>/ca`, mode 0700.
    var path: String { self.cacheDirectory + "/ca" }
    /// `<cacheDir>/ca/ca.pem`, the CA certificate, mode 0644: it is public (clients install it to
    /// trust Larder), and the `ca` folder around it is private anyway.
    var certificatePath: String { self.path + "/" + Self.certificateFileName }
    /// `<cacheDir>/ca/ca-key.pem`, the CA private key, mode 0600.
    var privateKeyPath: String { self.path + "/" + Self.privateKeyFileName }

    static let certificateFileName = "ca.pem"
    static let privateKeyFileName = "ca-key.pem"

    /// Whether the certificate and the key file exist (following symbolic links).
    func existingFiles() -> (certificate: Bool, privateKey: Bool) {
        (Self.exists(self.certificatePath), Self.exists(self.privateKeyPath))
    }

    /// Reads the CA certificate file.
    func readCertificate() throws(CertificateAuthorityError) -> [UInt8] {
        let descriptor = try Self.openForReading(self.certificatePath)
        defer { close(descriptor) }
        return try Self.readAll(descriptor, path: self.certificatePath)
    }

    /// Reads the CA private key file, refusing it when group or others may read or write it.
    ///
    /// The mode is checked on the open descriptor, so the file checked is the file read.
    func readPrivateKey() throws(CertificateAuthorityError) -> [UInt8] {
        let path = self.privateKeyPath
        let descriptor = try Self.openForReading(path)
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw Self.systemError("Cannot inspect", path, errno)
        }
        let permissions = info.st_mode & 0o777
        guard permissions & 0o077 == 0 else {
            throw CertificateAuthorityError(
                .insecureKeyPermissions,
                subject: path,
                "The CA private key \(path) is readable or writable by group or others (mode \(String(permissions, radix: 8))). "
                    + "Anyone who can read it can impersonate every HTTPS site to this machine. "
                    + "Fix it with `chmod 600 \(path)` and start Larder again."
            )
        }
        return try Self.readAll(descriptor, path: path)
    }

    /// Creates the `ca` directory holding both files, unless a `ca` directory with contents is already there.
    ///
    /// Both files are written and synced in a private temporary directory next to `ca`, which is then renamed to
    /// `ca`. A rename onto a directory that is not empty fails, so a CA made meanwhile by another process is never
    /// replaced; and no process ever sees one file without the other.
    ///
    /// - Returns: `true` when these files were installed, `false` when a `ca` directory with contents was already
    ///   there (another process won the race, or a CA existed), in which case nothing was changed.
    func install(certificatePEM: String, privateKeyPEM: String) throws(CertificateAuthorityError) -> Bool {
        do {
            try PrivateDirectory.create(self.cacheDirectory)
        } catch {
            throw CertificateAuthorityError(
                .fileSystem,
                subject: self.cacheDirectory,
                "Cannot create the cache directory \(self.cacheDirectory): \(error)."
            )
        }
        let temporaryPath = self.cacheDirectory + "/.ca-new-\(getpid())-\(UInt32.random(in: .min ... .max))"
        guard mkdir(temporaryPath, 0o700) == 0 else {
            throw Self.systemError("Cannot create the directory", temporaryPath, errno)
        }
        var installed = false
        defer {
            if !installed {
                unlink(temporaryPath + "/" + Self.privateKeyFileName)
                unlink(temporaryPath + "/" + Self.certificateFileName)
                rmdir(temporaryPath)
            }
        }
        // mkdir's mode is filtered by the umask; the directory must be exactly 0700.
        guard chmod(temporaryPath, 0o700) == 0 else {
            throw Self.systemError("Cannot set the mode of", temporaryPath, errno)
        }
        try Self.writeNewFile(temporaryPath + "/" + Self.privateKeyFileName, Array(privateKeyPEM.utf8), mode: 0o600)
        try Self.writeNewFile(temporaryPath + "/" + Self.certificateFileName, Array(certificatePEM.utf8), mode: 0o644)
        try Self.syncDirectory(temporaryPath)
        guard rename(temporaryPath, self.path) == 0 else {
            let error = errno
            if error == ENOTEMPTY || error == EEXIST {
                return false
            }
            throw Self.systemError("Cannot move the new CA into place at", self.path, error)
        }
        installed = true
        try Self.syncDirectory(self.cacheDirectory)
        return true
    }

    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    private static func openForReading(_ path: String) throws(CertificateAuthorityError) -> Int32 {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw Self.systemError("Cannot open", path, errno)
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let error = errno
            close(descriptor)
            throw Self.systemError("Cannot inspect", path, error)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw CertificateAuthorityError(.fileSystem, subject: path, "\(path) is not a regular file.")
        }
        return descriptor
    }

    private static func readAll(_ descriptor: Int32, path: String) throws(CertificateAuthorityError) -> [UInt8] {
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR {
                    continue
                }
                throw Self.systemError("Cannot read", path, errno)
            }
            if count == 0 {
                return contents
            }
            contents.append(contentsOf: chunk[..<count])
        }
    }

    private static func writeNewFile(_ path: String, _ bytes: [UInt8], mode: mode_t) throws(CertificateAuthorityError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            throw Self.systemError("Cannot create", path, errno)
        }
        defer { close(descriptor) }
        // open's mode is filtered by the umask; the files must have exactly their documented modes.
        guard fchmod(descriptor, mode) == 0 else {
            throw Self.systemError("Cannot set the mode of", path, errno)
        }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR {
                    continue
                }
                throw Self.systemError("Cannot write", path, errno)
            }
            offset += written
        }
        guard fsync(descriptor) == 0 else {
            throw Self.systemError("Cannot sync", path, errno)
        }
    }

    private static func syncDirectory(_ path: String) throws(CertificateAuthorityError) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw Self.systemError("Cannot open the directory", path, errno)
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw Self.systemError("Cannot sync the directory", path, errno)
        }
    }

    private static func systemError(_ action: String, _ path: String, _ error: Int32) -> CertificateAuthorityError {
        CertificateAuthorityError(.fileSystem, subject: path, "\(action) \(path): \(String(cString: strerror(error))).")
    }
}
