import LarderHTTP
import LarderStore

/// Why a ``Larder`` could not do what was asked; each names the input and the problem.
public enum LarderError: Error, CustomStringConvertible {
    /// ``Larder/start()`` was called while Larder runs (or is starting or stopping).
    case alreadyRunning(String)
    /// Status, precache and offline need a running Larder.
    case notRunning
    /// The configured host listens beyond this machine with no allowed networks.
    case openProxy(host: String)
    /// The cache directory could not be opened or created.
    case cacheDirectory(String, any Error)
    /// The upstream client could not be made (for libcurl: a CA file it cannot read).
    case upstream(any Error)
    /// The local CA for HTTPS interception could not be loaded or created.
    case certificateAuthority(any Error)
    /// Nothing could listen on the configured address (a port in use, an address not on this machine).
    case cannotListen(host: String, port: Int, any Error)
    /// A part of the running Larder failed, which stopped the rest.
    case failed(any Error)
    /// The precache lines name nothing to precache; `problems` say why, line by line.
    case nothingToPrecache(problems: [String])
    /// No precache job has this id (jobs are forgotten when Larder stops).
    case unknownPrecacheJob(String)

    /// One line naming what went wrong.
    public var description: String {
        switch self {
        case .alreadyRunning(let state):
            return "Larder is already \(state); stop it before starting it again"
        case .notRunning:
            return "Larder is not running; start it first"
        case .openProxy(let host):
            return "host \(host) listens beyond this machine; add allowed networks (proxy.allowList) for the clients that may use it"
        case .cacheDirectory(let directory, let error):
            // The store's own error already names the directory.
            if let error = error as? StoreError, case .cannotOpen = error {
                return "\(error)"
            }
            return "cannot open the cache directory \(directory): \(error)"
        case .upstream(let error):
            return "cannot set up the upstream client: \(error)"
        case .certificateAuthority(let error):
            return "\(error)"
        case .cannotListen(let host, let port, let error):
            return "cannot listen on \(HTTPURL.bracketed(host: host)):\(port): \(error)"
        case .failed(let error):
            return "\(error)"
        case .nothingToPrecache(let problems):
            return "nothing to precache" + (problems.isEmpty ? "" : ": " + problems.joined(separator: "; "))
        case .unknownPrecacheJob(let id):
            return "no precache job \(id)"
        }
    }
}
