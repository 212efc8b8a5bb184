import Foundation
import Testing

@testable import LarderProxy

/// Whether clients are busy, for precache jobs to yield to them: the rate of answers since the
/// previous look.
struct ClientActivityTests {
    private func answer(_ statistics: ProxyStatistics, times: Int) {
        for _ in 0..<times {
            statistics.record(
                ProxyStatistics.RecentRequest(
                    time: Date(), method: "GET", url: "http://site.example/a.js", status: 200, cacheStatus: "larder; hit",
                    outcome: .hit, milliseconds: 0.1))
        }
    }

    @Test("busy from 50 answers a second since the last look; a look within 100 ms gives the last answer")
    func busyByRate() {
        let statistics = ProxyStatistics(startedAt: Date())
        let start = ContinuousClock.now
        let activity = ClientActivity(statistics: statistics, now: start)
        #expect(!activity.isBusy(now: start + .milliseconds(150)))
        // An app polling now and then: 3 answers in 200 ms is 15 a second.
        self.answer(statistics, times: 3)
        #expect(!activity.isBusy(now: start + .milliseconds(350)))
        // A page loading its assets: 20 answers in 100 ms.
        self.answer(statistics, times: 20)
        #expect(activity.isBusy(now: start + .milliseconds(450)))
        // Too soon for another look: still busy, whatever came meanwhile.
        #expect(activity.isBusy(now: start + .milliseconds(500)))
        // A second with no answers.
        #expect(!activity.isBusy(now: start + .milliseconds(1_500)))
        #expect(statistics.answered == 23)
    }
}
