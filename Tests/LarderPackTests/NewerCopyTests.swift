import Foundation
import LarderHTTP
import Testing

@testable import LarderPack

/// Which copy is newer when a pack meets a cache (`NewerCopy.swift`).
struct NewerCopyTests {
    private func stamp(date: TimeInterval?, lastModified: TimeInterval? = nil, arrived: TimeInterval) -> NewerCopy.Stamp {
        var headers: [HeaderField] = []
        if let date { headers.append(HeaderField(name: "Date", value: httpDate(date))) }
        if let lastModified { headers.append(HeaderField(name: "Last-Modified", value: httpDate(lastModified))) }
        return NewerCopy.Stamp(headers: headers, responseTime: Date(timeIntervalSince1970: arrived))
    }

    @Test
    func theOriginsDateDecidesWhateverTheDevicesClocksSay() {
        // The pack's device had its clock far ahead; the origin's Date says the cache's copy is newer.
        let pack = self.stamp(date: 1_000, arrived: 9_000_000)
        let cache = self.stamp(date: 2_000, arrived: 2_000)
        #expect(!NewerCopy.replaces(pack, over: cache))
        #expect(NewerCopy.replaces(cache, over: pack))
    }

    @Test
    func aLaterFetchOfAnOlderRepresentationIsNotNewer() {
        let pack = self.stamp(date: 5_000, lastModified: 100, arrived: 5_000)
        let cache = self.stamp(date: 2_000, lastModified: 200, arrived: 2_000)
        #expect(!NewerCopy.replaces(pack, over: cache))
        // The same representation fetched later brings fresher headers: it replaces.
        let refetched = self.stamp(date: 5_000, lastModified: 200, arrived: 5_000)
        #expect(NewerCopy.replaces(refetched, over: cache))
    }

    @Test
    func aTieIsNeverNewer() {
        let copy = self.stamp(date: 1_000, lastModified: 500, arrived: 1_001)
        #expect(!NewerCopy.replaces(copy, over: copy))
    }

    @Test
    func withoutBothDatesOrWithinOneSecondTheArrivalTimeDecides() {
        #expect(NewerCopy.replaces(self.stamp(date: 1_000, arrived: 1_000.7), over: self.stamp(date: 1_000, arrived: 1_000.2)))
        #expect(NewerCopy.replaces(self.stamp(date: nil, arrived: 3_000), over: self.stamp(date: 1_000, arrived: 2_000)))
        #expect(!NewerCopy.replaces(self.stamp(date: nil, arrived: 1_000), over: self.stamp(date: nil, arrived: 2_000)))
    }

    @Test
    func aCompleteGameVersionBeatsAnIncompleteOneElseTheLaterRun() {
        let complete = NewerCopy.GameStamp(isComplete: true, lastRun: Date(timeIntervalSince1970: 100))
        let partialLater = NewerCopy.GameStamp(isComplete: false, lastRun: Date(timeIntervalSince1970: 200))
        let completeLater = NewerCopy.GameStamp(isComplete: true, lastRun: Date(timeIntervalSince1970: 300))
        #expect(NewerCopy.replaces(complete, over: nil))
        #expect(NewerCopy.replaces(complete, over: partialLater))
        #expect(!NewerCopy.replaces(partialLater, over: complete))
        #expect(NewerCopy.replaces(completeLater, over: complete))
        #expect(!NewerCopy.replaces(complete, over: completeLater))
        #expect(!NewerCopy.replaces(complete, over: complete))
    }
}
