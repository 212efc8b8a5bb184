import Foundation
import LarderHTTP
import LarderStore
import LarderUpstream
import Logging
import NIOCore

/// Runs a declared request once: makes it concrete (placeholders, body file), sends it, and
/// stores a complete 2xx answer under the request's key as a pinned entry, whatever its
/// `Cache-Control` (declaring it is the user asking for it to be kept). Every run is recorded
/// (``Store/saveDeclaredRequest(_:)``) for the scheduler, /dev/offline and `larder status`.
/// Used by the proxy's ``DeclaredRequestScheduler`` and by `larder precache` (its first tier).
public struct DeclaredRequestRunner: Sendable {
    /// How a run ended.
    public enum Outcome: Sendable, Equatable {
        /// The answer was stored: its status and body size.
        case stored(status: Int, bytes: Int64)
        /// Nothing was stored; `connectFailure`: the origin could not be reached at all.
        case failed(reason: String, connectFailure: Bool)
    }

    /// The store the answers are kept in (and the runs recorded in).
    public let store: Store
    let upstream: any Upstream
    let queryFilter: QueryParameterFilter
    let connectTimeout: Duration
    let idleTimeout: Duration
    /// The clock stored answers and recorded runs are dated by (the proxy's, in a proxy).
    let now: @Sendable () -> Date
    let logger: Logger

    /// A runner storing into `store` through `upstream`, dating what it stores by `now`.
    public init(
        store: Store,
        upstream: any Upstream,
        queryFilter: QueryParameterFilter = .default,
        connectTimeout: Duration = .seconds(10),
        idleTimeout: Duration = .seconds(30),
        now: @escaping @Sendable () -> Date = { Date() },
        logger: Logger
    ) {
        self.store = store
        self.upstream = upstream
        self.queryFilter = queryFilter
        self.connectTimeout = connectTimeout
        self.idleTimeout = idleTimeout
        self.now = now
        self.logger = logger
    }

    /// Reads a declared request's body file whole (`DeclaredRequest.Body.file`).
    public static func readBodyFile(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DeclaredRequest.Problem("no readable file there")
        }
        return [UInt8](data)
    }

    /// Runs `request` at `now` (by default the runner's clock) and records the outcome over its previous record, with the time
    /// `nextRun` gives for the outcome as its next run (nil: the recorded one stays, as when
    /// `larder precache` runs it beside a proxy that schedules it).
    @discardableResult
    public func run(_ request: DeclaredRequest, now: Date? = nil, nextRun: (Outcome) -> Date? = { _ in nil }) async -> Outcome {
        let now = now ?? self.now()
        var record = DeclaredRequestRecord(name: request.name, method: request.method, url: "")
        do {
            record = try await self.store.declaredRequests().first { $0.name == request.name } ?? record
        } catch {
            self.logger.error("cannot read declared request records", metadata: ["error": "\(error)"])
        }
        // The app's own version of its body, when it sent one (docs/SERVING.md, "Following the app's query").
        var learnedBody: JSONValue?
        if request.operationName != nil {
            do {
                learnedBody = try await self.store.learnedBodies()[request.name].flatMap { try? JSONParser.parse(Array($0.body.utf8)) }
            } catch {
                self.logger.error("cannot read learned queries", metadata: ["error": "\(error)"])
            }
        }
        let environment = ProcessInfo.processInfo.environment
        // What is recorded, stored as the entry's URL, logged and returned never carries a token.
        let secrets = SubstitutedSecrets([request], environment: environment)
        record.method = request.method
        record.lastAttempt = now
        let outcome: Outcome
        do {
            let resolved = try request.resolve(
                TextTemplate.Context(now: now, timeZone: request.timeZone, environment: environment), queryFilter: self.queryFilter,
                learnedBody: learnedBody, readFile: Self.readBodyFile)
            record.url = secrets.redacting(resolved.url.absoluteString)
            let sent = await self.send(resolved, method: request.method, shownURL: record.url)
            outcome = sent.outcome.redacted(by: secrets)
            record.lastStatus = sent.status ?? record.lastStatus
            if case .stored(_, let bytes) = outcome {
                let previousKey = record.key.map(CacheKey.init(storedRawValue:))
                record.key = resolved.key.rawValue
                record.lastSuccess = self.now()
                record.lastError = nil
                record.consecutiveFailures = 0
                record.bodySize = bytes
                if let previousKey, previousKey != resolved.key {
                    // Yesterday's answer to a request naming the day answers nothing the app asks today.
                    await self.remove(previousKey, of: request.name)
                }
            }
        } catch {
            outcome = .failed(reason: secrets.redacting(error.description), connectFailure: false)
        }
        if case .failed(let reason, _) = outcome {
            record.lastError = reason
            record.consecutiveFailures += 1
            self.logger.notice("declared request failed", metadata: ["name": "\(request.name)", "reason": "\(record.lastError ?? "")"])
        }
        record.nextRun = nextRun(outcome) ?? record.nextRun
        do {
            try await self.store.saveDeclaredRequest(record)
        } catch {
            self.logger.error("cannot record a declared request's run", metadata: ["name": "\(request.name)", "error": "\(error)"])
        }
        return outcome
    }

    private func remove(_ key: CacheKey, of name: String) async {
        do {
            try await self.store.removeEntry(for: key)
        } catch {
            // Named, not keyed: the key may hold a token.
            self.logger.warning("cannot remove a declared request's previous answer", metadata: ["name": "\(name)", "error": "\(error)"])
        }
    }

    /// Sends the request and stores a 2xx answer, as the URL `shownURL` (its tokens redacted: the
    /// entry list shows and searches it); the status is the answer's, if one came.
    private func send(_ resolved: DeclaredRequest.Resolved, method: String, shownURL: String) async -> (outcome: Outcome, status: Int?) {
        var headers = resolved.headers
        if !headers.contains(name: "accept-encoding") {
            // Stored coded; the proxy decodes for a client that cannot take it (EncodingNegotiation).
            headers.add(name: "Accept-Encoding", value: EncodingNegotiation.upstreamAcceptEncoding)
        }
        headers.append(ViaField.field())
        var request = UpstreamRequest(
            method: method, url: resolved.url.absoluteString, headers: headers, body: resolved.body.map { .bytes(ByteBuffer(bytes: $0)) })
        request.connectTimeout = self.connectTimeout
        request.idleTimeout = self.idleTimeout
        let requestTime = self.now()
        let response: UpstreamResponse
        do {
            response = try await self.upstream.execute(request)
        } catch let error as UpstreamError {
            return (.failed(reason: error.description, connectFailure: error.isConnectFailure), nil)
        } catch {
            return (.failed(reason: "\(error)", connectFailure: false), nil)
        }
        let status = response.head.status
        let responseTime = self.now()
        guard (200..<300).contains(response.head.status) else {
            // Read and dropped: an error answer never replaces a good one.
            do { for try await _ in response.body {} } catch {}
            return (.failed(reason: "answered HTTP \(status)", connectFailure: false), status)
        }
        do {
            let writer = try self.store.makeBodyWriter()
            do {
                for try await chunk in response.body {
                    try chunk.withUnsafeReadableBytes { try writer.write($0) }
                }
            } catch {
                writer.discard()
                throw error
            }
            let head = StoredResponseHead(
                url: shownURL,
                status: response.head.status,
                headers: HopByHopHeaders.removing(from: response.head.headers),
                requestTime: requestTime,
                responseTime: responseTime
            )
            let entry = try await writer.commit(
                key: resolved.key, head: head, kind: .precached, expectedLength: response.head.headers.contentLength)
            return (.stored(status: status, bytes: entry.bodySize), status)
        } catch let error as UpstreamError {
            return (.failed(reason: error.description, connectFailure: false), status)
        } catch {
            return (.failed(reason: "cannot store the answer: \(error)", connectFailure: false), status)
        }
    }
}

extension DeclaredRequestRunner.Outcome {
    /// The outcome with the values of `secrets` in its reason shown as their placeholders.
    func redacted(by secrets: SubstitutedSecrets) -> Self {
        guard case .failed(let reason, let connectFailure) = self else { return self }
        return .failed(reason: secrets.redacting(reason), connectFailure: connectFailure)
    }
}
