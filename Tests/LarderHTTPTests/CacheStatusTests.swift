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
        #expect(CacheStatus.hit(detail: "*a1:b/c_d~").description == "larder; hit; detail=*a1:b/c_d~")
        #expect(CacheStatus.hit(detail: "").description == #"larder; hit; detail="""#)
        #expect(CacheStatus.hit(detail: "a=b").description == #"larder; hit; detail="a=b""#)
        #expect(CacheStatus.hit(detail: "back\\slash").description == #"larder; hit; detail="back\\slash""#)
    }

    @Test("every parameter in RFC 9211's order")
    func parameters() {
        #expect(CacheStatus.hit(ttl: -3, detail: "precached").description == "larder; hit; ttl=-3; detail=precached")
        #expect(
            CacheStatus.forward(.uriMiss, status: 200, stored: true).description == "larder; fwd=uri-miss; fwd-status=200; stored")
        #expect(CacheStatus.forward(.bypass).description == "larder; fwd=bypass")
    }
}
