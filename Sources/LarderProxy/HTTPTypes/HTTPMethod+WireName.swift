import NIOHTTP1

extension HTTPMethod {
    /// The method's token as HTTP spells it. NIO's `rawValue` (and its encoder) write `M-SEARCH`
    /// without its dash, which an origin rejects as an unknown method; every other case is its
    /// `rawValue`.
    var wireName: String {
        self == .MSEARCH ? "M-SEARCH" : self.rawValue
    }
}
