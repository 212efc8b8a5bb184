import LarderHTTP
import Testing

/// Which requests carry a precondition of their own (RFC 9110 section 13.1): such a request may
/// follow a fetch in flight but never leads one (docs/SERVING.md, "Coalescing").
struct ClientConditionalsTests {
    @Test(
        "a request has a precondition when it names one of the four fields, in any case",
        arguments: [
            ([], false),
            ([("Cache-Control", "no-cache"), ("If-Range", #""v1""#), ("Range", "bytes=0-1")], false),
            ([("If-None-Match", #""v1""#)], true),
            ([("if-modified-since", "Tue, 01 Jan 2030 00:00:00 GMT")], true),
            ([("IF-MATCH", "*")], true),
            ([("If-Unmodified-Since", "Tue, 01 Jan 2030 00:00:00 GMT")], true),
        ] as [([(String, String)], Bool)])
    func hasPrecondition(fields: [(String, String)], expected: Bool) {
        let request = fields.map { HeaderField(name: $0.0, value: $0.1) }
        #expect(ClientConditionals.hasPrecondition(request) == expected)
    }
}
