import LarderHTTP
import Testing

@testable import LarderConfig

@Suite("Config file: lan.allowUpstream")
struct LANConfigTests {
    @Test("the box's own addresses clients on other machines may still reach, with a port or not")
    func read() throws {
        let file = try LarderConfigFile(
            parsing: Array(#"{"lan": {"allowUpstream": ["127.0.0.1:8000", "169.254.0.0/16", "[::1]:8000", "localhost:9000"]}}"#.utf8),
            file: "larder.json")
        let reach = file.lanReach
        #expect(reach.mayConnect(to: [127, 0, 0, 1], port: 8000))
        #expect(!reach.mayConnect(to: [127, 0, 0, 1], port: 8001))
        #expect(reach.mayConnect(to: [169, 254, 169, 254], port: 80))
        #expect(reach.mayConnect(to: IPNetwork.bytes(ofAddress: "::1")!, port: 8000))
        #expect(reach.mayName(host: "localhost", port: 9000))
        #expect(!reach.mayName(host: "localhost", port: 22))
        #expect(LarderConfigFile().lanReach.allowed.isEmpty)
    }

    @Test(
        "anything else is refused with file, line and key",
        arguments: [
            (
                #"{"lan": {"allowUpstream": "127.0.0.1"}}"#,
                #"larder.json:1: lan.allowUpstream: expected an array of addresses but found "127.0.0.1""#
            ),
            (
                "{\"lan\": {\n \"allowUpstream\": [\"127.0.0.1:99999\"]}}",
                #"larder.json:2: lan.allowUpstream[0]: expected an address, network or address with a port, such as "127.0.0.1:8000", "169.254.0.0/16" or "[::1]:8000" but found "127.0.0.1:99999""#
            ),
            (
                #"{"lan": {"allowUpstream": ["box.example"]}}"#,
                #"larder.json:1: lan.allowUpstream[0]: expected an address, network or address with a port, such as "127.0.0.1:8000", "169.254.0.0/16" or "[::1]:8000" but found "box.example""#
            ),
            (#"{"lan": {"allow": []}}"#, ""),
        ]
    )
    func refused(json: String, message: String) {
        do {
            _ = try LarderConfigFile(parsing: Array(json.utf8), file: "larder.json")
            Issue.record("\(json) was accepted")
        } catch {
            if !message.isEmpty {
                #expect("\(error)" == message)
            }
            #expect("\(error)".contains("lan"))
        }
    }
}
