/// What a client gets when its write is queued (a queue route's `answer`).
public struct QueuedAnswer: Sendable, Hashable {
    /// The status, a 2xx.
    public var status: Int
    /// The body; nil for the default `{"queued": true, "id": "<id>"}`.
    public var body: String?
    /// The body's `Content-Type`.
    public var contentType: String

    /// The default answer: `202 Accepted` with `{"queued": true, "id": "<id>"}`.
    public static let accepted = QueuedAnswer(status: 202, body: nil, contentType: "application/json")

    /// An answer.
    public init(status: Int, body: String?, contentType: String) {
        self.status = status
        self.body = body
        self.contentType = contentType
    }

    /// Statuses whose answers have no body (RFC 9110 sections 15.3.5 and 15.3.6).
    public static let bodilessStatuses: Set<Int> = [204, 205]

    /// The body to send for the queued write `id` (none for 204 and 205).
    public func bodyBytes(id: Int64) -> [UInt8] {
        guard !Self.bodilessStatuses.contains(self.status) else { return [] }
        return Array((self.body ?? #"{"queued":true,"id":"\#(id)"}"#).utf8)
    }
}
