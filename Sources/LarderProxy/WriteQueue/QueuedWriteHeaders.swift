import Foundation
import LarderHTTP
import NIOHTTP1

/// The headers a queueable write is sent with, on its first attempt and on every replay: the
/// client's end-to-end headers (as ``UpstreamRequestPlan/forwardedFields(_:)`` gives them) without any
/// `Proxy-*` field, since proxy credentials are for Larder and must not rest on disk, plus an
/// `Idempotency-Key` when the client sent none, so that an origin which saw an attempt can tell
/// a replay of it (docs/SERVING.md, "Queued writes").
struct QueuedWriteHeaders: Sendable, Hashable {
    /// The fields, in the order they are sent.
    var fields: [HeaderField]

    /// The headers for a request with `headers`; `newKey` makes the key when one is needed.
    init(_ headers: HTTPHeaders, newKey: () -> String = { UUID().uuidString.lowercased() }) {
        var fields = UpstreamRequestPlan.forwardedFields(headers.fields)
            .filter { !$0.name.lowercased().hasPrefix("proxy-") }
        if !fields.contains(where: { $0.hasName("idempotency-key") }) {
            fields.append(HeaderField(name: "Idempotency-Key", value: newKey()))
        }
        self.fields = fields
    }
}
