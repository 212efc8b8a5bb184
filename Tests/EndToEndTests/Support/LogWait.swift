/// Whether the proxy's output mentions `text`, polled for up to 5 seconds: a line logged as a
/// connection closes may reach the test's pipe a moment after the client sees the close.
func logMentions(_ larder: LarderProcess, _ text: String) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(5)
    while ContinuousClock.now < deadline {
        if larder.log.contains(text) {
            return true
        }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return larder.log.contains(text)
}
