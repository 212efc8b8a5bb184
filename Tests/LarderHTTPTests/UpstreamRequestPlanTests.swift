import LarderHTTP
import Testing

/// The fields of the requests Larder sends upstream (`UpstreamRequestPlan`).
struct UpstreamRequestPlanTests {
    static func fields(_ pairs: [(String, String)]) -> [HeaderField] {
        pairs.map { HeaderField(name: $0.0, value: $0.1) }
    }

    static func pairs(_ fields: [HeaderField]) -> [String] {
        fields.map { "\($0.name): \($0.value)" }
    }

    @Test
    func forwardedFieldsDropHopByHopAndFramingAndAddVia() {
        let client = Self.fields([
            ("Host", "a.example"), ("Connection", "keep-alive, X-Hop"), ("X-Hop", "1"), ("Keep-Alive", "timeout=5"),
            ("Content-Length", "0"), ("Expect", "100-continue"), ("Accept", "*/*"), ("Via", "1.1 browser"), ("Cookie", "a=1"),
            ("Via", "1.0 other"),
        ])
        #expect(
            Self.pairs(UpstreamRequestPlan.forwardedFields(client)) == [
                "Accept: */*", "Cookie: a=1", "Via: 1.1 browser, 1.0 other, 1.1 larder",
            ])
    }

    @Test(arguments: [
        // The whole body: the client's range, If-Range and coding go; Larder's coding comes.
        (
            UpstreamRequestPlan.Range.none,
            ["Accept: */*", "Via: 1.1 larder", "Accept-Encoding: \(EncodingNegotiation.upstreamAcceptEncoding)"]
        ),
        // The client's range: as it asked, coding included.
        (
            .client,
            ["Accept: */*", "Range: bytes=0-9", "If-Range: \"x\"", "Accept-Encoding: br", "Via: 1.1 larder"]
        ),
        // Completing a stored part: its range, the part's tag, no coding.
        (
            .completing(value: "bytes=10-", ifRange: "\"v1\""),
            ["Accept: */*", "Via: 1.1 larder", "Accept-Encoding: identity", "Range: bytes=10-", "If-Range: \"v1\""]
        ),
    ])
    func rangeAndCoding(range: UpstreamRequestPlan.Range, expected: [String]) {
        let client = Self.fields([("Accept", "*/*"), ("Range", "bytes=0-9"), ("If-Range", "\"x\""), ("Accept-Encoding", "br")])
        #expect(Self.pairs(UpstreamRequestPlan.fields(client: client, range: range, validators: nil)) == expected)
    }

    @Test
    func revalidationSendsOnlyTheStoredCopysValidators() {
        let client = Self.fields([("If-None-Match", "\"client\""), ("If-Modified-Since", "Mon, 01 Jan 2024 00:00:00 GMT")])
        let both = UpstreamRequestPlan.fields(
            client: client, range: .none, validators: (etag: "\"stored\"", lastModified: "Tue, 02 Jan 2024 00:00:00 GMT"))
        #expect(
            Self.pairs(both).filter { $0.hasPrefix("If-") } == [
                "If-None-Match: \"stored\"", "If-Modified-Since: Tue, 02 Jan 2024 00:00:00 GMT",
            ])
        let none = UpstreamRequestPlan.fields(client: client, range: .none, validators: (etag: nil, lastModified: nil))
        #expect(Self.pairs(none).filter { $0.hasPrefix("If-") }.isEmpty, "no stored validator: the client's are not sent either")
        let clientOnly = UpstreamRequestPlan.fields(client: client, range: .none, validators: nil)
        #expect(Self.pairs(clientOnly).filter { $0.hasPrefix("If-") }.count == 2, "not revalidating: the client's own conditionals go")
    }
}
