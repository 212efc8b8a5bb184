import LarderProxy
import Testing

@Suite("ServingEventLoops")
struct ServingEventLoopsTests {
    @Test(
        "half the cores answer clients, at least one",
        arguments: [(1, 1), (2, 1), (3, 1), (4, 2), (8, 4), (64, 32)]
    )
    func defaultCount(cores: Int, expected: Int) {
        #expect(ServingEventLoops.defaultCount(cores: cores) == expected)
    }
}
