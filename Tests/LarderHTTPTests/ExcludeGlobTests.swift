import Testing

@testable import LarderHTTP

struct ExcludeGlobTests {
    @Test(arguments: [
        ("*.map", "https://cdn.example/games/flipart/assets/a.js.map", true),
        ("*.map", "https://cdn.example/a.map?v=1", true),
        ("*.map", "https://cdn.example/games/flipart/assets/a.js", false),
        ("*.map", "https://cdn.example/games/map/a.js", false),
        ("**/debug/**", "https://cdn.example/games/flipart/debug/log.js", true),
        ("**/debug/**", "https://cdn.example/debug/log.js", true),
        ("**/debug/**", "https://cdn.example/games/flipart/debugger/log.js", false),
        ("**/debug/**", "https://cdn.example/games/flipart/debug.js", false),
        ("/games/*/a.js", "https://cdn.example/games/flipart/a.js", true),
        ("/games/*/a.js", "https://cdn.example/games/flipart/x/a.js", false),
        ("/games/**/a.js", "https://cdn.example/games/flipart/x/a.js", true),
        ("https://cdn.example/games/*", "https://cdn.example/games/a.js", true),
        ("https://cdn.example/games/*", "https://cdn.example/games/flipart/a.js", false),
        ("https://cdn.example/**", "https://cdn.example/games/flipart/a.js", true),
        ("https://other.example/**", "https://cdn.example/games/flipart/a.js", false),
        ("*aiWorker*", "https://cdn.example/games/chess/assets/aiWorker-1b2c.js", true),
        ("**?debug=*", "https://cdn.example/games/a.js?debug=1", true),
        ("**?debug=*", "https://cdn.example/games/a.js?v=1", false),
        ("*.JS", "https://cdn.example/games/a.js", false),
        ("a.js", "https://cdn.example/games/a.js", true),
        ("a.js", "https://cdn.example/games/ba.js", false),
        ("**", "https://cdn.example/games/a.js", true),
        ("***.png", "https://cdn.example/games/x/y.png", true),
        ("", "https://cdn.example/games/a.js", false),
    ])
    func matching(_ pattern: String, _ url: String, _ expected: Bool) throws {
        let key = try CacheKey(url: url)
        #expect(ExcludeGlob(pattern).matches(key) == expected)
    }

    @Test func longSubjectsWithManyStarsStayFast() throws {
        let key = try CacheKey(url: "https://cdn.example/" + String(repeating: "a", count: 8000) + "b")
        let glob = ExcludeGlob(String(repeating: "*a", count: 50) + "c")
        let start = ContinuousClock.now
        #expect(!glob.matches(key))
        #expect(ContinuousClock.now - start < .seconds(5))
    }
}
