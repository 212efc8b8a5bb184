import LarderHTTP
import Testing

@Suite("CacheStatus: the field Larder writes")
struct CacheStatusTests {
    @Test("a detail is a token when it is one, else a quoted string")
    func detailItem() {
        #expect(
            CacheStatus.hit(detail: "upstream-unreachable+stand-in-body").description
                == "larder; hit; detail=upstream-unreachable+stand-in-body")
        #expect(
            CacheStatus.hit(detail: "offline+stand-in-body (differs in a.b, \"c\")").description
                == #"larder; hit; detail="offline+stand-in-body (differs in a.b, \"c\")""#)
        #expect(CacheStatus.hit(detail: "día").description == #"larder; hit; detail="d?a""#)
        #expect(CacheStatus.hit(detail: "4xx").description == #"larder; hit; detail="4xx""#)
    }
}
