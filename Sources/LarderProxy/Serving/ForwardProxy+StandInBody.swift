import Foundation
import LarderDeclaredRequests
import LarderHTTP
import LarderStore
import NIOHTTP1

extension ForwardProxy {
    /// Whether a keyed read may have a stand-in body (``StandInBody``; docs/SERVING.md, "Reads
    /// whose bodies change every time"): one a route keys (**Answer offline**, `cacheMethods`)
    /// or a GraphQL query on defaults, sent with a body small enough to compare. A declared
    /// request asks one fixed thing, and a preflight is no read.
    static func mayStandIn(_ keyed: KeyedServing) -> Bool {
        guard let body = keyed.body, body.readableBytes <= StandInBody.maximumBodySize else { return false }
        return keyed.request.reason == .route || keyed.request.reason == .graphQLQuery
    }

    /// Keeps the body `keyed`'s answer (just stored) was asked with, for later reads to be
    /// compared with. A failure costs only that comparison.
    func keepRequestBody(of keyed: KeyedServing, request: HTTPRequestHead) async {
        guard let body = keyed.body else { return }
        do {
            try await self.store.keepRequestBody(
                Array(body.readableBytesView), contentType: request.headers.first(name: "content-type"), for: keyed.key,
                within: keyed.request.urlKey.keyedRange(method: request.method.wireName, bodyKey: keyed.request.bodyKey),
                at: self.configuration.now())
        } catch {
            self.logger.error("request body not kept for stand-ins", metadata: ["key": "\(keyed.key)", "error": "\(error)"])
        }
    }

    /// The stored answer to the same method and URL whose request body is nearest to `keyed`'s
    /// (``StandInBody/compare(_:stored:)``) and that `owner` may have; `noneNear` when answers
    /// were asked with other bodies but none is near. The newest
    /// ``Store/maximumRequestBodiesPerRead`` bodies of the read are compared: the same cost for
    /// any cache size.
    func standInBody(
        for keyed: KeyedServing, request: HTTPRequestHead, owner: AnswerOwner
    ) async -> (standIn: CacheTransaction.StandIn?, noneNear: Bool) {
        guard let body = keyed.body else { return (nil, false) }
        let method = request.method.wireName
        let kept: [KeptRequestBody]
        do {
            kept = try await self.store.requestBodies(
                within: keyed.request.urlKey.keyedRange(method: method, bodyKey: keyed.request.bodyKey))
        } catch {
            self.logger.error("stand-in lookup failed", metadata: ["key": "\(keyed.key)", "error": "\(error)"])
            return (nil, false)
        }
        let requested = StandInBody.Body(Array(body.readableBytesView), contentType: request.headers.first(name: "content-type"))
        let declared = self.declaredKeys(method: method)
        let near =
            kept
            .filter { $0.key != keyed.key && !declared.contains($0.key) }
            .compactMap { candidate -> (nearness: StandInBody.Nearness, key: CacheKey)? in
                guard
                    case .near(let nearness) = StandInBody.compare(
                        requested, stored: StandInBody.Body(candidate.body, contentType: candidate.contentType))
                else { return nil }
                return (nearness, candidate.key)
            }
            .sorted { $0.nearness < $1.nearness }
        for (nearness, key) in near {
            if let candidate = await self.lookup(key, request: request, owner: owner).candidate {
                return (CacheTransaction.StandIn(candidate: candidate, reason: Self.standInReason(nearness)), false)
            }
        }
        return (nil, !kept.isEmpty)
    }

    /// `stand-in-body`, and where the bodies differ (at most five places named).
    static func standInReason(_ nearness: StandInBody.Nearness) -> String {
        guard !nearness.differing.isEmpty else { return "stand-in-body" }
        var places = nearness.differing.prefix(5).joined(separator: ", ")
        if nearness.differing.count > 5 { places += " and \(nearness.differing.count - 5) more" }
        return "stand-in-body (differs in \(places))"
    }

    /// The keys declared requests of `method` ask now: their answers are the user's, never a
    /// stand-in for another read (docs/SERVING.md, "Declared answers are the user's").
    private func declaredKeys(method: String) -> Set<CacheKey> {
        let now = self.configuration.now()
        return Set(
            self.configuration.declaredRequests.filter { $0.method == method }.compactMap { declared in
                try? declared.resolve(
                    TextTemplate.Context(now: now, timeZone: declared.timeZone), queryFilter: self.configuration.queryFilter,
                    readFile: DeclaredRequestRunner.readBodyFile
                ).key
            })
    }
}
