/// What identifies "the same thing" among queued writes (a queue route's `supersedeKey`): a newer
/// pending write with the same value replaces an older one (docs/SERVING.md, "Queued writes").
public enum SupersedeKey: Sendable, Hashable {
    /// A capture group of the route's regex, over the URL's cache key (1 is the first group).
    case capture(Int)
    /// A field of the JSON body, as a dotted path such as `variables.gameplayID`.
    case jsonField(String)
    /// A request header's first value (name compared ignoring case).
    case header(String)
}
