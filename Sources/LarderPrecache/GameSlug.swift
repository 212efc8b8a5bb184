import LarderHTTP
import LarderStore

/// Short, file-name- and URL-safe names for games.
enum GameSlug {
    /// The root's last path segment, percent-decoded, lower-cased, with every run of characters
    /// outside `[a-z0-9]` turned into one `-` and `-` trimmed from the ends; the host when the
    /// root has no path, and `game` when nothing is left.
    static func make(root: HTTPURL) -> String {
        let segment = root.path.split(separator: "/").last.map(String.init) ?? ""
        let slug = Self.sanitised(Self.percentDecoded(segment))
        if !slug.isEmpty {
            return slug
        }
        let hostSlug = Self.sanitised(root.host)
        return hostSlug.isEmpty ? "game" : hostSlug
    }

    static func sanitised(_ text: String) -> String {
        var output = ""
        var pendingDash = false
        for scalar in text.lowercased().unicodeScalars {
            let isKept = ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
            if isKept {
                if pendingDash && !output.isEmpty {
                    output.append("-")
                }
                pendingDash = false
                output.unicodeScalars.append(scalar)
            } else {
                pendingDash = true
            }
        }
        return output
    }

    /// Decodes `%XX` escapes; invalid UTF-8 becomes U+FFFD (and then a `-`).
    static func percentDecoded(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = Self.hexValue(bytes[index + 1]), let low = Self.hexValue(bytes[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
