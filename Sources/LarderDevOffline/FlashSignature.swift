import Crypto
import LarderHTTP

/// Signs the flash messages /dev/offline's controls redirect with (``DevOfflineActions``), with a
/// key made once per process, so a page shows only a message Larder itself wrote: a link from
/// anywhere else (`/dev/offline?flash=Your+account+is+locked`) cannot put its text on Larder's
/// page.
enum FlashSignature {
    /// The query parameter the signature travels in, beside `flash`.
    static let parameter = "flash-signature"

    private static let key = SymmetricKey(size: .bits256)

    /// The signature of `text`: HMAC-SHA256 in lower-case hex.
    static func sign(_ text: String) -> String {
        LowercaseHex.string(Array(HMAC<SHA256>.authenticationCode(for: Array(text.utf8), using: Self.key)))
    }

    /// Whether `signature` is the signature of `text`, compared in constant time.
    static func isValid(_ signature: String?, for text: String) -> Bool {
        guard let signature else { return false }
        let expected = Array(Self.sign(text).utf8)
        let given = Array(signature.utf8)
        guard given.count == expected.count else { return false }
        return zip(given, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
