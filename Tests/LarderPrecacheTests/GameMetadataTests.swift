import LarderPrecache
import Testing

struct GameMetadataTests {
    @Test(
        arguments: [
            (#"{"displayName": "Flip Art", "name": "flipart", "title": "T"}"#, "Flip Art"),
            (#"{"name": "flipart", "title": "Flip Art!"}"#, "flipart"),
            (#"{"title": "Flip Art!"}"#, "Flip Art!"),
            (#"{"displayName": 3, "name": ["x"], "title": "  Spaced  "}"#, "Spaced"),
            (#"{"displayName": "   ", "name": "Fallback"}"#, "Fallback"),
            (#"{"slug": "flipart"}"#, nil),
            (#"["Flip Art"]"#, nil),
            (#"{"displayName": "broken"#, nil),
            ("", nil),
        ] as [(String, String?)]
    )
    func displayName(_ json: String, _ expected: String?) {
        #expect(GameMetadata.parse(body: Array(json.utf8)).displayName == expected)
    }

    @Test func oversizedBodiesGiveNoName() {
        let json =
            #"{"displayName": "Big", "pad": ""# + String(repeating: "x", count: GameMetadata.maximumBodySize) + "\"}"
        #expect(GameMetadata.parse(body: Array(json.utf8)).displayName == nil)
    }
}
