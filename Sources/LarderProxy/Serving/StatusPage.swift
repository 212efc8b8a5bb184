import Foundation
import LarderHTTP
import NIOHTTP1

/// The small self-contained HTML pages Larder answers with itself: offline misses,
/// upstream errors, refusals. Every dynamic value is escaped. A client that prefers JSON gets the
/// same as a JSON object (``json(cacheStatus:)``).
struct StatusPage: Sendable {
    /// The HTTP status.
    var status: HTTPResponseStatus
    /// The page heading.
    var title: String
    /// Paragraphs of explanation (plain text).
    var paragraphs: [String]
    /// The URL the request asked for, shown in full when present.
    var url: String?

    /// The page as HTML.
    var html: String {
        var body = "<h1>\(self.title.htmlEscaped)</h1>\n"
        if let url = self.url {
            body += "<p class=\"url\"><code>\(url.htmlEscaped)</code></p>\n"
        }
        for paragraph in self.paragraphs {
            body += "<p>\(paragraph.htmlEscaped)</p>\n"
        }
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(self.status.code) \(self.title.htmlEscaped) · Larder</title>
            <style>
            body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#222}
            h1{font-size:1.4rem}.url code{word-break:break-all;background:#f4f4f4;padding:.2rem .4rem;border-radius:4px}
            footer{margin-top:2rem;color:#777;font-size:.85rem}
            </style></head><body>
            \(body)<footer>\(self.status.code) \(self.status.reasonPhrase.htmlEscaped) · answered by Larder, your local caching proxy</footer>
            </body></html>

            """
    }

    /// The page as a JSON object: `status`, `title`, `url` (or null), `reason` (the paragraphs as
    /// one text) and `cacheStatus` (the `Cache-Status` sent, or null).
    func json(cacheStatus: CacheStatus?) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let object = JSONPage(
            status: Int(self.status.code), title: self.title, url: self.url, reason: self.paragraphs.joined(separator: " "),
            cacheStatus: cacheStatus?.description)
        // Encoding strings and numbers cannot fail.
        return (try? encoder.encode(object)).map { String(decoding: $0, as: UTF8.self) + "\n" } ?? "{}\n"
    }

    private struct JSONPage: Encodable {
        var status: Int
        var title: String
        var url: String?
        var reason: String
        var cacheStatus: String?

        private enum CodingKeys: String, CodingKey {
            case status, title, url, reason, cacheStatus
        }

        /// Every key, `null` for what is missing, so clients can rely on the shape.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(self.status, forKey: .status)
            try container.encode(self.title, forKey: .title)
            try container.encode(self.url, forKey: .url)
            try container.encode(self.reason, forKey: .reason)
            try container.encode(self.cacheStatus, forKey: .cacheStatus)
        }
    }

    /// A miss while offline.
    static func offlineMiss(url: String) -> StatusPage {
        StatusPage(
            status: .gatewayTimeout,
            title: "Not available offline",
            paragraphs: [
                "Larder is in offline mode and has no cached copy of this URL.",
                "Visit it once while online, or precache it with larder precache, to have it offline.",
            ],
            url: url
        )
    }

    /// Upstream could not be reached and nothing usable is cached.
    static func upstreamFailure(url: String, status: HTTPResponseStatus, reason: String, cachedButUnusable: String?) -> StatusPage {
        var paragraphs = ["Larder could not get this URL from the network: \(reason)"]
        if let cachedButUnusable {
            paragraphs.append(cachedButUnusable)
        } else {
            paragraphs.append("There is no cached copy of it.")
        }
        return StatusPage(status: status, title: "Upstream unreachable", paragraphs: paragraphs, url: url)
    }

    /// A refused or malformed request.
    static func refusal(_ status: HTTPResponseStatus, reason: String) -> StatusPage {
        StatusPage(status: status, title: status.reasonPhrase, paragraphs: [reason], url: nil)
    }
}
