import Testing

@testable import LarderHTTP

@Suite("AcceptEncoding: which content codings a request accepts (RFC 9110 section 12.5.3)")
struct AcceptEncodingTests {
    @Test(
        "field lines, the codings they accept and those they refuse",
        arguments: [
            (["gzip, deflate, br"], accepted: ["gzip", "x-gzip", "deflate", "br", "identity"], refused: ["zstd", "compress"]),
            (["gzip;q=0"], accepted: ["identity"], refused: ["gzip", "x-gzip", "deflate"]),
            (["*;q=0, identity"], accepted: ["identity"], refused: ["gzip", "deflate", "br"]),
            (["*;q=0"], accepted: [], refused: ["identity", "gzip"]),
            (["*"], accepted: ["gzip", "br", "identity", "zstd"], refused: []),
            (["*;q=0, gzip"], accepted: ["gzip"], refused: ["identity", "br"]),
            (["deflate;q=0, *"], accepted: ["gzip", "identity"], refused: ["deflate"]),
            (["GZIP"], accepted: ["gzip", "GZip", "X-GZIP", "identity"], refused: ["deflate"]),
            (["x-gzip"], accepted: ["gzip", "x-gzip"], refused: ["deflate"]),
            (["identity;q=0"], accepted: [], refused: ["identity", "gzip"]),
            (["identity;q=0, *"], accepted: ["gzip", "deflate"], refused: ["identity"]),
            (["IDENTITY;Q=0, gzip"], accepted: ["gzip"], refused: ["identity"]),
            ([""], accepted: ["identity"], refused: ["gzip", "deflate"]),
            ([], accepted: ["identity"], refused: ["gzip", "deflate", "br"]),
            (["gzip;q=0.000"], accepted: ["identity"], refused: ["gzip"]),
            (["gzip;q=0.001"], accepted: ["gzip"], refused: []),
            (["gzip;q=1.001"], accepted: ["gzip"], refused: []),
            (["gzip;q=.5"], accepted: ["gzip"], refused: []),
            (["gzip;q=0."], accepted: [], refused: ["gzip"]),
            (["gzip;q=abc", "deflate;q=-1", "br;q=", "zstd;q=\"1\""], accepted: ["identity"], refused: ["gzip", "deflate", "br", "zstd"]),
            (["gzip;level=9;q=0.5", "deflate ; q = 0"], accepted: ["gzip"], refused: ["deflate"]),
            (["br", "gzip;q=0.8"], accepted: ["br", "gzip"], refused: ["deflate"]),
            (["gzip, gzip;q=0"], accepted: ["gzip"], refused: []),
            ([" , ,gzip ;q=0.8 , ;q=1, ;;, deflate"], accepted: ["gzip", "deflate", "identity"], refused: ["br"]),
        ] as [([String], accepted: [String], refused: [String])]
    )
    func accepts(fieldValues: [String], accepted: [String], refused: [String]) {
        let acceptEncoding = AcceptEncoding(fieldValues)
        for coding in accepted {
            #expect(acceptEncoding.accepts(coding), "\(fieldValues) accepts \(coding)")
        }
        for coding in refused {
            #expect(!acceptEncoding.accepts(coding), "\(fieldValues) refuses \(coding)")
        }
    }

    @Test("the codings Larder can decode for a client, identity included")
    func decodable() {
        #expect(AcceptEncoding.decodableCodings == ["gzip", "x-gzip", "deflate", "identity"])
    }
}
