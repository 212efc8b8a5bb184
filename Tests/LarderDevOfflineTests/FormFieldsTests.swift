import Testing

@testable import LarderDevOffline

@Suite("/dev/offline: form fields")
struct FormFieldsTests {
    @Test("decodes + as space and %XX as UTF-8; keeps a stray %; first value of a repeated name wins")
    func decode() {
        let fields = FormFields("q=a+b%2Bc&name=%E2%9C%93&odd=100%&odd=2&empty=&flag")
        #expect(fields["q"] == "a b+c")
        #expect(fields["name"] == "✓")
        #expect(fields["odd"] == "100%")
        #expect(fields["empty"] == "")
        #expect(fields["flag"] == "")
        #expect(fields["missing"] == nil)
        #expect(FormFields(nil).pairs.isEmpty)
    }

    @Test("encoding round-trips any text, including markup and separators")
    func roundTrip() {
        let hostile = "<script>alert(1)</script> & x=y?z#w ✓ +%"
        let encoded = FormFields.encode([("q", hostile), ("page", "2")])
        #expect(!encoded.contains("<"))
        #expect(!encoded.contains(" "))
        #expect(FormFields(encoded)["q"] == hostile)
        #expect(FormFields(encoded)["page"] == "2")
    }
}
