import LarderHTTP
import Testing

@Suite("ByteSize: sizes written like 512KB, 1MiB, 2GiB")
struct ByteSizeTests {
    @Test(
        "valid sizes",
        arguments: [
            ("4096", Int64(4096)),
            ("0", 0),
            ("100B", 100),
            ("512KB", 512_000),
            ("300kb", 300_000),
            ("1MB", 1_000_000),
            ("2GB", 2_000_000_000),
            ("1TB", 1_000_000_000_000),
            ("512KiB", 524_288),
            ("1MiB", 1_048_576),
            ("2GiB", 2_147_483_648),
            ("2gib", 2_147_483_648),
            ("1TiB", 1_099_511_627_776),
            ("64K", 65_536),
            ("1G", 1_073_741_824),
            ("1.5GB", 1_500_000_000),
            ("1.5MiB", 1_572_864),
            (" 300 KB ", 300_000),
            (".5KiB", 512),
        ]
    )
    func parses(text: String, bytes: Int64) throws {
        #expect(try ByteSize(parsing: text).bytes == bytes)
    }

    @Test(
        "invalid sizes name the text and the problem",
        arguments: ["", "KB", "12XB", "1..5GB", "1.2.3MB", "-5MB", "99999999999999999999", "9000000TiB", "2 GiB extra", "1.x MB", "."])
    func rejects(text: String) {
        let error = #expect(throws: ByteSize.ParseError.self) { try ByteSize(parsing: text) }
        #expect(error?.description.contains("'\(text)' is not a size") == true)
    }

    @Test("description in binary units")
    func description() {
        #expect(ByteSize(bytes: 512).description == "512 B")
        #expect(ByteSize(bytes: 2_147_483_648).description == "2.0 GiB")
        #expect(ByteSize(bytes: 1_572_864).description == "1.5 MiB")
    }
}
