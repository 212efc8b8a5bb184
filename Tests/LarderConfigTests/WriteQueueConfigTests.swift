import LarderHTTP
import Testing

@testable import LarderConfig

/// The config file's `queue`: what is read, and the errors for what is wrong.
@Suite("Config write queue")
struct WriteQueueConfigTests {
    private func configuration(_ json: String) throws -> LarderConfigFile {
        try LarderConfigFile(parsing: Array(json.utf8), file: "larder.json")
    }

    private func problem(_ json: String) -> String {
        LarderConfigFile.problem(parsing: json)
    }

    @Test("no queue: nothing queued, a 7-day retention and the seed's back-off")
    func defaults() throws {
        let queue = try self.configuration("{}").writeQueue
        #expect(queue.rules.isEmpty)
        #expect(queue.retention == .seconds(7 * 86_400))
        #expect(queue.backoff == ReplayBackoff.standard)
    }

    @Test("the seed's routes: a glob by capture-free path, GraphQL updates and completions by a JSON field in one group")
    func seedRoutes() throws {
        let queue = try self.configuration(
            #"""
            {
              "queue": {
                "routes": [
                  { "regex": "^https://api\\.example/gameplay/([^/]+)/update$", "methods": ["patch"], "supersedeKey": {"capture": 1} },
                  { "regex": "^https://api\\.example/graphql$", "when": {"field": "operationName", "equals": "updateGameplay"},
                    "supersedeKey": {"json": "variables.gameplayID"}, "group": "gameplay" },
                  { "regex": "^https://api\\.example/graphql$", "when": {"field": "operationName", "equals": "completeGameplay"},
                    "supersedeKey": {"json": "variables.gameplayID"}, "group": "gameplay", "terminal": true, "queueOn5xx": true,
                    "answer": {"status": 200, "body": {"data": {"completeGameState": null}}} },
                  { "match": "https://api.example/scores/*", "supersedeKey": {"header": "X-Game"},
                    "answer": {"status": 202, "body": "queued", "contentType": "text/plain"} },
                  { "match": "https://api.example/log", "answer": {"status": 204} }
                ],
                "retention": "30s",
                "retry": { "base": "0.5s", "step": 2, "max": "1m" }
              }
            }
            """#
        ).writeQueue
        #expect(queue.rules.count == 5)
        let patch = queue.rules[0]
        #expect(patch.methods == ["PATCH"])
        #expect(patch.supersedeKey == .capture(1))
        #expect(patch.answer == .accepted)
        #expect(!patch.terminal && !patch.queueOn5xx)

        let update = queue.rules[1]
        #expect(update.methods == WriteQueueRule.defaultMethods)
        #expect(update.when == BodyCondition(field: "operationName", equals: "updateGameplay"))
        #expect(update.supersedeKey == .jsonField("variables.gameplayID"))
        #expect(update.group == "gameplay")

        let complete = queue.rules[2]
        #expect(complete.terminal && complete.queueOn5xx)
        #expect(
            complete.answer == QueuedAnswer(status: 200, body: #"{"data":{"completeGameState":null}}"#, contentType: "application/json"))

        #expect(queue.rules[3].supersedeKey == .header("X-Game"))
        #expect(queue.rules[3].answer == QueuedAnswer(status: 202, body: "queued", contentType: "text/plain"))
        #expect(queue.rules[4].answer.status == 204)

        #expect(queue.retention == .seconds(30))
        #expect(queue.backoff == ReplayBackoff(base: .milliseconds(500), step: .seconds(2), maximum: .seconds(60)))

        // The rules as read apply to requests: the completion of game 42 is terminal, keyed in the group.
        let body = Array(#"{"operationName":"completeGameplay","variables":{"gameplayID":42}}"#.utf8)
        let rule = try #require(queue.rule(method: "POST", key: try CacheKey(url: "https://api.example/graphql"), body: body))
        #expect(rule.terminal)
        let json = [HeaderField(name: "Content-Type", value: "application/json")]
        #expect(
            rule.supersedeValue(url: try HTTPURL(parsing: "https://api.example/graphql"), headers: json, body: body) == "gameplay\u{0}42")
    }

    @Test(
        "mistakes are refused with the line, the key path and the problem",
        arguments: [
            (#"{"queue": []}"#, "larder.json:1: queue: expected an object of queue settings"),
            (#"{"queue": {"routes": [{}]}}"#, "queue.routes[0]: needs match (a URL glob) or regex"),
            (#"{"queue": {"routes": [{"match": "https://a/*", "retries": 3}]}}"#, "queue.routes[0].retries: not a queue route setting"),
            (#"{"queue": {"routes": [{"match": "https://a/*", "methods": []}]}}"#, "queue.routes[0].methods: expected a non-empty array"),
            (#"{"queue": {"routes": [{"match": "https://a/*", "methods": ["GET"]}]}}"#, "queue.routes[0].methods[0]: GET reads"),
            (#"{"queue": {"routes": [{"match": "https://a/*", "methods": ["PO ST"]}]}}"#, "queue.routes[0].methods[0]: expected a method"),
            (#"{"queue": {"routes": [{"match": "https://a/*", "when": {"field": "op"}}]}}"#, "queue.routes[0].when: needs field"),
            (
                #"{"queue": {"routes": [{"match": "https://a/*", "when": {"field": "a..b", "equals": "x"}}]}}"#,
                "queue.routes[0].when.field: expected a dotted path"
            ),
            (
                #"{"queue": {"routes": [{"match": "https://a/*", "when": {"field": "a", "equals": {}}}]}}"#,
                "queue.routes[0].when.equals: expected a string, number or boolean"
            ),
            (
                #"{"queue": {"routes": [{"match": "https://a/*", "supersedeKey": {"capture": 1}}]}}"#,
                "queue.routes[0].supersedeKey.capture: capture takes a group of the route's regex"
            ),
            (
                #"{"queue": {"routes": [{"regex": "^https://a/([^/]+)$", "supersedeKey": {"capture": 2}}]}}"#,
                "queue.routes[0].supersedeKey.capture: expected a capture group number (from 1 to 1"
            ),
            (#"{"queue": {"routes": [{"regex": "^https://a/$", "supersedeKey": {"capture": 1}}]}}"#, "(the regex has no capture group)"),
            (
                #"{"queue": {"routes": [{"match": "https://a/*", "supersedeKey": {"json": "id", "header": "X"}}]}}"#,
                "queue.routes[0].supersedeKey: give exactly one"
            ),
            (
                #"{"queue": {"routes": [{"match": "https://a/*", "supersedeKey": {"header": "X Game"}}]}}"#,
                "queue.routes[0].supersedeKey.header: expected a header name"
            ),
            (
                #"{"queue": {"routes": [{"match": "https://a/*", "terminal": true}]}}"#,
                "queue.routes[0].terminal: a terminal write supersedes"
            ),
            (#"{"queue": {"routes": [{"match": "https://a/*", "group": ""}]}}"#, "queue.routes[0].group: expected a group name"),
            (
                #"{"queue": {"routes": [{"match": "https://a/*", "answer": {"status": 404}}]}}"#,
                "queue.routes[0].answer.status: expected a 2xx status"
            ),
            (
                #"{"queue": {"routes": [{"match": "https://a/*", "answer": {"status": 204, "body": "x"}}]}}"#,
                "queue.routes[0].answer.body: a 204 answer has no body"
            ),
            (
                #"{"queue": {"retention": "0s"}}"#,
                "queue.retention: expected a duration such as \"15m\", \"6h\" or \"1d\" (or seconds), from 1 s to 365 days"
            ),
            (#"{"queue": {"retention": "7 days"}}"#, "queue.retention: expected a duration"),
            (#"{"queue": {"retry": {"base": "10s", "max": "5s"}}}"#, "queue.retry: max (5 s) is shorter than base (10 s)"),
            (
                #"{"queue": {"retry": {"base": "0.01s"}}}"#,
                "queue.retry.base: expected a duration such as \"15m\", \"6h\" or \"1d\" (or seconds), from 0.1 s to 1 day"
            ),
            (#"{"queue": {"retry": {"every": "1s"}}}"#, "queue.retry.every: not a retry setting"),
            (
                #"{"queue": {"routes": [{"match": "https://a/*", "pageOrigins": "https://www.a"}]}}"#,
                "larder.json:1: queue.routes[0].pageOrigins: expected an array of origins"
            ),
            (
                #"{"queue": {"routes": [{"match": "https://a/*", "pageOrigins": ["https://www.a/play"]}]}}"#,
                "queue.routes[0].pageOrigins[0]: expected an origin such as \"https://app.example\" (scheme, host and port only) but found \"https://www.a/play\""
            ),
            (
                #"{"queue": {"routes": [{"match": "https://a/*", "pageOrigins": ["null"]}]}}"#,
                "queue.routes[0].pageOrigins[0]: expected an origin"
            ),
            (
                #"{"queue": {"routes": [{"match": "https://a/*", "supersedeAnyContentType": "yes"}]}}"#,
                "queue.routes[0].supersedeAnyContentType: expected true or false"
            ),
            (#"{"queue": {"maxWrites": 0}}"#, "queue.maxWrites: expected a whole number of writes, at least 1, such as 1000 but found 0"),
            (#"{"queue": {"maxWrites": 2.5}}"#, "queue.maxWrites: expected a whole number of writes"),
            (#"{"queue": {"maxWrites": "1000"}}"#, "queue.maxWrites: expected a whole number of writes"),
            (#"{"queue": {"maxBytes": "64 parsecs"}}"#, "queue.maxBytes: '64 parsecs' is not a size"),
            (#"{"queue": {"maxBytes": 0}}"#, "queue.maxBytes: the queue must keep at least one byte"),
            (#"{"queue": {"maxBytes": true}}"#, "queue.maxBytes: expected a size such as"),
        ])
    func errors(json: String, message: String) {
        #expect(self.problem(json).contains(message), "\(self.problem(json))")
    }

    @Test("pageOrigins (normalised), supersedeAnyContentType, and the queue's limits (1,000 writes and 64 MiB unless set)")
    func pageOriginsAndLimits() throws {
        let defaults = try self.configuration(#"{"queue": {"routes": [{"match": "https://a/*"}]}}"#).writeQueue
        #expect(defaults.limits == WriteQueueLimits(maxWrites: 1000, maxBytes: 64 << 20))
        #expect(defaults.rules[0].pageOrigins.isEmpty)
        #expect(!defaults.rules[0].supersedeAnyContentType)

        let queue = try self.configuration(
            #"""
            {"queue": {
              "routes": [{"match": "https://api.puzzmo.com/*", "pageOrigins": ["https://WWW.puzzmo.com:443", "http://localhost:3000"],
                          "supersedeAnyContentType": true}],
              "maxWrites": 20, "maxBytes": "1MiB"
            }}
            """#
        ).writeQueue
        #expect(queue.rules[0].pageOrigins == ["https://www.puzzmo.com", "http://localhost:3000"])
        #expect(queue.rules[0].supersedeAnyContentType)
        #expect(queue.limits == WriteQueueLimits(maxWrites: 20, maxBytes: 1 << 20))
        #expect(try self.configuration(#"{"queue": {"maxBytes": 4096}}"#).writeQueue.limits.maxBytes == 4096)
    }

    @Test("durations: fractions, units, plain seconds")
    func durations() throws {
        #expect(try self.configuration(#"{"queue": {"retention": "1.5h"}}"#).writeQueue.retention == .seconds(5400))
        #expect(try self.configuration(#"{"queue": {"retention": 90}}"#).writeQueue.retention == .seconds(90))
        #expect(try self.configuration(#"{"queue": {"retention": "7d"}}"#).writeQueue.retention == .seconds(7 * 86_400))
        #expect(try self.configuration(#"{"queue": {"retry": {"step": "0s"}}}"#).writeQueue.backoff.step == .zero)
    }
}
