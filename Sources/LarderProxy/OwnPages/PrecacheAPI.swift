import Foundation
import LarderHTTP
import LarderIntrospection
import LarderStore
import NIOCore
import NIOHTTP1

/// `POST /dev/offline/precache` and `GET /dev/offline/precache/ID`: a web app (or any local
/// client) asks the running proxy to precache URLs, as the Puzzmo service worker was sent
/// `CACHE_GAME_URLS`.
///
/// The body is JSON `{"urls": [...]}` or text lines, with the grammar of games.txt. A request
/// without `Origin` (curl, a native app) or from the proxy's own origin may list any URL, and its
/// job also precaches the user's extra URLs (a client on another machine with a loopback `Origin`
/// is not on the proxy's origin: ``SameOriginCheck``). A web page on another origin may only list
/// URLs of its own origin (so a page cannot make Larder fetch someone else's site), its job
/// fetches only the pages it listed (never the user's extra URLs, which its report would name),
/// keeps them as runtime entries (evictable, so within `--max-size`), its origin's jobs are held
/// to ``PagePrecacheLimit`` (`429` beyond: jobs at once, jobs and bytes per hour), and it gets
/// CORS headers for that origin.
public struct PrecacheAPI: Sendable {
    /// Where the API answers: `POST` queues a job, `GET path/ID` tells its state.
    public static let path = PrecacheAPIPath.path
    /// The largest request body accepted.
    static let maximumBodySize = 1 << 20

    let jobs: any PrecacheJobQueue
    /// Holds the extra URLs each job also precaches.
    let store: Store
    /// `http://127.0.0.1:PORT` and the other spellings of this proxy's own origin.
    let ownOrigins: Set<String>
    /// What clients on other machines may have a job fetch of the box's own addresses (config
    /// `lan.allowUpstream`; ``UpstreamReach``).
    let lanReach: UpstreamReach
    /// The jobs each page origin asked for, held to their limits.
    let pageJobs: PageJobLimit

    /// Answers `request`; `clientIsLoopback` says whether the connection comes from this machine.
    func respond(path: String, request: HTTPRequestHead, body: ByteBuffer, clientIsLoopback: Bool, writer: ResponseWriter) async throws
        -> Int
    {
        let origin = request.headers.first(name: "origin")
        let isOwnOrigin = origin.map { SameOriginCheck.isOwn($0, in: self.ownOrigins, clientIsLoopback: clientIsLoopback) } ?? false
        var cors = HTTPHeaders()
        if let origin, !isOwnOrigin {
            cors.add(name: "Access-Control-Allow-Origin", value: origin)
            cors.add(name: "Vary", value: "Origin")
        }
        switch (request.method, path) {
        case (.OPTIONS, _):
            var headers = cors
            headers.add(name: "Access-Control-Allow-Methods", value: "POST, GET")
            headers.add(name: "Access-Control-Allow-Headers", value: "Content-Type")
            headers.add(name: "Access-Control-Max-Age", value: "600")
            try await writer.complete(.noContent, headers: headers, body: "")
            return 204
        case (.POST, Self.path):
            return try await self.submit(
                request: request, body: body, origin: origin, isOwnOrigin: isOwnOrigin,
                reach: self.lanReach.forClient(onLoopback: clientIsLoopback),
                cors: cors, writer: writer)
        case (.GET, _) where path.hasPrefix(Self.path + "/"):
            let id = String(path.dropFirst(Self.path.count + 1))
            guard let status = self.jobs.status(id) else {
                try await self.json(["error": "no precache job \(id)"], status: .notFound, cors: cors, writer: writer)
                return 404
            }
            try await self.json(status, status: .ok, cors: cors, writer: writer)
            return 200
        default:
            try await self.json(
                ["error": "use POST \(Self.path) or GET \(Self.path)/ID"], status: .methodNotAllowed, cors: cors, writer: writer)
            return 405
        }
    }

    /// Queues a job for the URLs `body` lists. A client on another machine (`reach` set) may not
    /// list an address of the box's own it may not reach (docs/SERVING.md, "A shared box").
    private func submit(
        request: HTTPRequestHead, body: ByteBuffer, origin: String?, isOwnOrigin: Bool, reach: UpstreamReach?, cors: HTTPHeaders,
        writer: ResponseWriter
    ) async throws
        -> Int
    {
        let lines: [String]
        do {
            lines = try Self.urlLines(body: body, contentType: request.headers.first(name: "content-type"))
        } catch {
            try await self.json(["error": "\(error)"], status: .badRequest, cors: cors, writer: writer)
            return 400
        }
        let id: String
        let problems: [String]
        let submission: PrecacheSubmission
        if let origin, !isOwnOrigin {
            // A page's own job: only its pages, kept evictable, within its origin's limits; from
            // another machine, never a page of the box's own loopback.
            if let url = try? HTTPURL(parsing: origin + "/"), !Self.reaches(url, reach) {
                try await self.json(
                    ["error": "\(origin) names " + UpstreamReach.refusal(host: url.host, port: url.effectivePort)],
                    status: .forbidden, cors: cors, writer: writer)
                return 403
            }
            let limited = self.pageJobs.submit(from: origin) { allowance in
                self.jobs.submitPageJob(lines: lines, origin: origin, reach: reach, allowance: allowance)
            }
            switch limited {
            case .failure(let refusal):
                try await self.json(["error": refusal.message(origin: origin)], status: .tooManyRequests, cors: cors, writer: writer)
                return 429
            case .success(let queued):
                submission = queued
            }
        } else {
            submission = try await self.jobs.submit(
                lines: lines, source: "request", requestedBy: origin, store: self.store, reach: reach,
                allowed: { Self.reaches($0, reach) })
        }
        switch submission {
        case .nothingToPrecache(let problems):
            try await self.json(
                ["error": "no URL to precache" + (problems.isEmpty ? "" : ": " + problems.joined(separator: "; "))], status: .badRequest,
                cors: cors, writer: writer)
            return 400
        case .refused(let url):
            if let parsed = try? HTTPURL(parsing: url), !Self.reaches(parsed, reach) {
                try await self.json(
                    ["error": "\(url) names " + UpstreamReach.refusal(host: parsed.host, port: parsed.effectivePort)],
                    status: .forbidden, cors: cors, writer: writer)
                return 403
            }
            try await self.json(
                ["error": "a page on \(origin ?? "") may only precache its own origin's URLs; \(url) is not"],
                status: .forbidden,
                cors: cors,
                writer: writer
            )
            return 403
        case .queued(let queued, let left):
            id = queued
            problems = left
        }
        var headers = cors
        headers.add(name: "Location", value: "\(Self.path)/\(id)")
        let answer = Accepted(id: id, status: "\(Self.path)/\(id)", problems: problems)
        try await self.json(answer, status: .accepted, cors: headers, writer: writer)
        return 202
    }

    /// Whether a job for a client with `reach` may fetch `url`, by its host name.
    private static func reaches(_ url: HTTPURL, _ reach: UpstreamReach?) -> Bool {
        reach?.mayName(host: url.host, port: url.effectivePort) ?? true
    }

    private struct Accepted: Encodable {
        var id: String
        var status: String
        var problems: [String]
    }

    private struct URLList: Decodable {
        var urls: [String]
    }

    /// The URL lines of a request body: JSON `{"urls": [...]}` or text lines.
    static func urlLines(body: ByteBuffer, contentType: String?) throws -> [String] {
        let bytes = Data(body.readableBytesView)
        let isJSON = contentType?.lowercased().contains("json") ?? (bytes.first == UInt8(ascii: "{"))
        if isJSON {
            do {
                return try JSONDecoder().decode(URLList.self, from: bytes).urls
            } catch {
                throw PrecacheRequestError(description: "the body must be JSON like {\"urls\": [\"https://...\"]}")
            }
        }
        guard let text = String(data: bytes, encoding: .utf8) else {
            throw PrecacheRequestError(description: "the body is not UTF-8 text")
        }
        return text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
    }

    private func json<Value: Encodable>(_ value: Value, status: HTTPResponseStatus, cors: HTTPHeaders, writer: ResponseWriter) async throws
    {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(value)
        var headers = cors
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Cache-Control", value: "no-store")
        try await writer.complete(status, headers: headers, body: String(decoding: data, as: UTF8.self))
    }
}

/// A precache request body that cannot be read.
struct PrecacheRequestError: Error, CustomStringConvertible {
    var description: String
}
