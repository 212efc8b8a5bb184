// Tests of the libcurl client, which exists only with the `Curl` trait (Package.swift).
#if Curl
    import Testing

    @testable import LarderCurl
    @testable import LarderUpstream

    @Suite("ResponseHeadParser")
    struct ResponseHeadParserTests {
        private func parse(_ lines: [String]) throws -> (ResponseHeadParser, [ResponseHeadParser.Progress]) {
            var parser = ResponseHeadParser()
            var progress: [ResponseHeadParser.Progress] = []
            for line in lines {
                progress.append(try parser.consume(Array(line.utf8)))
            }
            return (parser, progress)
        }

        @Test("an HTTP/1.1 head is complete at its blank line")
        func http11() throws {
            let (parser, progress) = try self.parse([
                "HTTP/1.1 404 Not Found\r\n", "Content-Type: text/html\r\n", "X-A:  spaced value \t\r\n", "\r\n",
            ])

            #expect(progress == [.needMore, .needMore, .needMore, .complete])
            let head = try #require(parser.head)
            #expect(head.status == 404)
            #expect(head.reason == "Not Found")
            #expect(head.httpVersion == "1.1")
            #expect(head.headers.map(\.name) == ["Content-Type", "X-A"])
            #expect(head.headers.map(\.value) == ["text/html", "spaced value"])
        }

        struct ControlByteCase: Sendable, CustomTestStringConvertible {
            var line: String
            var dropped: String
            var testDescription: String { self.line.debugDescription }
        }

        static let controlByteCases: [ControlByteCase] = [
            ControlByteCase(line: "Location: /a\rSet-Cookie: stolen=1\r\n", dropped: "Location"),
            ControlByteCase(line: "Set-Cookie: a=1\rX-Injected: yes\r\n", dropped: "Set-Cookie"),
            ControlByteCase(line: "X-Nul: a\u{0}b\r\n", dropped: "X-Nul"),
            ControlByteCase(line: "X-Bare-LF: a\nb\r\n", dropped: "X-Bare-LF"),
            ControlByteCase(line: "X-\rName: a\r\n", dropped: "X-"),
        ]

        @Test(
            "a field with a CR, LF or NUL inside its line is dropped, named for the log; the fields around it stay",
            arguments: controlByteCases
        )
        func controlBytesDropField(_ example: ControlByteCase) throws {
            let (parser, progress) = try self.parse([
                "HTTP/1.1 302 Found\r\n", "Content-Type: text/plain\r\n", example.line, "Cache-Control: no-store\r\n", "\r\n",
            ])
            #expect(progress.last == .complete)
            let head = try #require(parser.head)
            #expect(head.headers.map(\.name) == ["Content-Type", "Cache-Control"])
            #expect(parser.droppedFields == [example.dropped])
            #expect(!head.headers.contains { ($0.name + $0.value).utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 } })
        }

        @Test("a continuation line with a CR drops the field it continues; a reason phrase with one is left out")
        func controlBytesInFoldAndReason() throws {
            let (parser, _) = try self.parse([
                "HTTP/1.1 200 OK\rSet-Cookie: a=1\r\n", "X-A: one\r\n", " two\rX-B: 1\r\n", "X-C: three\r\n", "\r\n",
            ])
            let head = try #require(parser.head)
            #expect(head.status == 200)
            #expect(head.reason == "")
            #expect(head.headers.map(\.name) == ["X-C"])
            #expect(parser.droppedFields == ["X-A"])

            let (next, _) = try self.parse(["HTTP/1.1 200 OK\r\n", "X-A: a\rb\r\n", "\r\n", "HTTP/1.1 200 OK\r\n"])
            #expect(next.droppedFields.isEmpty, "each head names its own dropped fields")
        }

        @Test("HTTP/2 status lines have no reason")
        func http2() throws {
            let (parser, _) = try self.parse(["HTTP/2 200 \r\n", "date: today\r\n", "\r\n"])

            #expect(parser.head?.status == 200)
            #expect(parser.head?.reason == "")
            #expect(parser.head?.httpVersion == "2")
            #expect(parser.head?.headers.first(name: "Date") == "today")
        }

        @Test("interim 1xx heads are reported apart (100 Continue dropped), their fields never the final head's; 101 is final")
        func interimResponses() throws {
            let (parser, progress) = try self.parse([
                "HTTP/1.1 100 Continue\r\n", "\r\n",
                "HTTP/1.1 103 Early Hints\r\n", "Link: </a.css>; rel=preload\r\n", "\r\n",
                "HTTP/1.1 200 OK\r\n", "Content-Length: 3\r\n", "\r\n",
            ])

            #expect(progress == [.needMore, .needMore, .needMore, .needMore, .interim, .needMore, .needMore, .complete])
            #expect(parser.interim?.status == 103)
            #expect(parser.interim?.headers.map(\.name) == ["Link"])
            #expect(parser.head?.status == 200)
            #expect(parser.head?.headers.map(\.name) == ["Content-Length"])

            let (switching, switchingProgress) = try self.parse([
                "HTTP/1.1 101 Switching Protocols\r\n", "Upgrade: websocket\r\n", "\r\n",
            ])
            #expect(switchingProgress.last == .complete)
            #expect(switching.head?.status == 101)
        }

        @Test("folded header values are joined")
        func obsFold() throws {
            let (parser, _) = try self.parse(["HTTP/1.0 200 OK\r\n", "X-Long: one\r\n", "\t two\r\n", "\r\n"])

            #expect(parser.head?.httpVersion == "1.0")
            #expect(parser.head?.headers.first(name: "x-long") == "one two")
        }

        @Test(
            "malformed lines are rejected",
            arguments: [
                ["HTTP/1.1 2000 OK\r\n"],
                ["HTTP/1.1 OK\r\n"],
                ["Content-Type: text/html\r\n"],
                ["HTTP/1.1 200 OK\r\n", "no colon here\r\n"],
                ["HTTP/1.1 200 OK\r\n", "Bad Name: x\r\n"],
                ["HTTP/1.1 200 OK\r\n", ": no name\r\n"],
                ["HTTP/1.1 200 OK\r\n", " fold before any field\r\n"],
                ["\r\n"],
            ])
        func malformed(lines: [String]) {
            #expect(throws: ResponseHeadParser.MalformedLine.self) { _ = try self.parse(lines) }
        }

        @Test("repeated header fields keep their order")
        func repeatedFields() throws {
            let (parser, _) = try self.parse([
                "HTTP/1.1 200 OK\r\n", "Set-Cookie: a=1\r\n", "Vary: x\r\n", "set-cookie: b=2\r\n", "\r\n",
            ])

            #expect(parser.head?.headers["Set-Cookie"] == ["a=1", "b=2"])
        }

        @Test("lines may end in CRLF, LF or nothing; bytes that are not UTF-8 are kept as replacement characters")
        func lineEndsAndBytes() throws {
            var parser = ResponseHeadParser()
            _ = try parser.consume(Array("HTTP/1.1 200 OK\n".utf8))
            _ = try parser.consume(Array("X-Empty:\r\n".utf8))
            _ = try parser.consume(Array("X-Bare: bare".utf8))
            _ = try parser.consume(Array("X-Bytes: a".utf8) + [0xFF] + Array("b\r\n".utf8))
            // Not contiguous: read through a copy.
            _ = try parser.consume(Array("X-Lazy: lazy\r\n".utf8).lazy.map { $0 })
            #expect(try parser.consume(Array("\n".utf8)) == .complete)

            let head = try #require(parser.head)
            #expect(head.headers.map(\.name) == ["X-Empty", "X-Bare", "X-Bytes", "X-Lazy"])
            #expect(head.headers.map(\.value) == ["", "bare", "a\u{FFFD}b", "lazy"])
        }
    }
#endif
