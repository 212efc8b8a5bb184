/// Whether `condition` holds within `seconds`, polled every 50 ms: for what the proxy does just
/// after it has answered (an entry's commit, a background refresh, a replayed write), which a
/// slow disk or a busy machine can put off by more than a moment.
func eventually(within seconds: Int = 15, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return try await condition()
}
