import LarderHTTP

/// Why a coded body could not be decoded; the description names the coding.
public struct ContentDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Hashable {
        /// The bytes are not valid data of the coding (zlib's explanation, when it gave one).
        case corrupt(String)
        /// The body ended before the coded stream did.
        case truncated
        /// zlib could not allocate its state.
        case outOfMemory
    }

    /// The coding being decoded.
    public let coding: ContentCoding
    /// What went wrong.
    public let reason: Reason

    /// Names the coding and the reason.
    public init(coding: ContentCoding, reason: Reason) {
        self.coding = coding
        self.reason = reason
    }

    /// E.g. `gzip body is corrupt: invalid block type` or `deflate body is truncated`.
    public var description: String {
        switch self.reason {
        case .corrupt(let detail):
            return "\(self.coding.rawValue) body is corrupt: \(detail)"
        case .truncated:
            return "\(self.coding.rawValue) body is truncated"
        case .outOfMemory:
            return "\(self.coding.rawValue) decoder is out of memory"
        }
    }
}
