import LarderHTTP
import Testing

/// The credential rule of `larder queue export` (docs/SERVING.md, "What is private and where it is kept").
@Suite("Credential redaction")
struct CredentialRedactionTests {
    @Test(
        "credential header names",
        arguments: [
            ("Authorization", true), ("proxy-authorization", true), ("Cookie", true), ("Cookie2", true), ("Set-Cookie", true),
            ("X-Auth-Token", true), ("X-Password", true), ("X-Passwd", true), ("X-Access-Key", true), ("X_Access_Key", true),
            ("X-API-Key", true), ("ApiKey", true), ("X-Client-Secret", true), ("X-Session-Id", true), ("X-CSRF-Token", true),
            ("X-XSRF-TOKEN", true), ("X-Amz-Signature", true), ("Content-Type", false), ("Idempotency-Key", false), ("Accept", false),
            ("X-Request-Id", false), ("User-Agent", false),
        ])
    func headerNames(name: String, isCredential: Bool) {
        #expect(CredentialRedaction.isCredentialHeader(name) == isCredential)
    }

    @Test(
        "credential query parameter names",
        arguments: [
            ("access_token", true), ("Token", true), ("id_token", true), ("refresh_token", true), ("api_key", true), ("APIKEY", true),
            ("key", true), ("secret", true), ("client_secret", true), ("password", true), ("passwd", true), ("sig", true),
            ("Signature", true), ("X-Amz-Signature", true), ("X-Amz-Security-Token", true), ("X-Amz-Credential", true), ("auth", true),
            ("session", true), ("sessionid", true), ("code", true), ("access%5Ftoken", true), ("page", false), ("monkey", false),
            ("keyword", false), ("author", false), ("zipcode", false), ("design", false), ("q", false), ("utm_source", false),
        ])
    func queryNames(name: String, isCredential: Bool) {
        #expect(CredentialRedaction.isCredentialQueryParameter(name) == isCredential)
    }

    @Test(
        "a URL keeps everything but its credential values",
        arguments: [
            ("https://a.example/x?access_token=abc&page=2", "https://a.example/x?access_token=[redacted]&page=2"),
            ("https://a.example/x?page=2&KEY=abc#top", "https://a.example/x?page=2&KEY=[redacted]#top"),
            ("https://a.example/x?token=&flag&sig=a%3Db", "https://a.example/x?token=[redacted]&flag&sig=[redacted]"),
            ("https://a.example/x?page=2", "https://a.example/x?page=2"),
            ("https://a.example/key=abc", "https://a.example/key=abc"),
            ("https://a.example/x#key=abc", "https://a.example/x#key=abc"),
        ])
    func urls(url: String, redacted: String) {
        #expect(CredentialRedaction.redactingQuery(of: url) == redacted)
    }

    @Test("headers: credential values replaced, or the credentials removed; the others kept in order")
    func headers() {
        let headers = [
            HeaderField(name: "Content-Type", value: "application/json"), HeaderField(name: "Cookie", value: "sid=1"),
            HeaderField(name: "X-App", value: "2"), HeaderField(name: "Authorization", value: "Bearer 3"),
        ]
        #expect(
            CredentialRedaction.redacting(headers) == [
                HeaderField(name: "Content-Type", value: "application/json"), HeaderField(name: "Cookie", value: "[redacted]"),
                HeaderField(name: "X-App", value: "2"), HeaderField(name: "Authorization", value: "[redacted]"),
            ])
        #expect(
            CredentialRedaction.removingCredentials(from: headers) == [
                HeaderField(name: "Content-Type", value: "application/json"), HeaderField(name: "X-App", value: "2"),
            ])
    }
}
