// The libcurl client exists only with the `Curl` trait (Package.swift).
#if Curl
    import LarderHTTP
    import LarderUpstream

    /// Turns the header lines curl's header callback delivers into a response head.
    ///
    /// curl hands over every line of every response head it reads, status line first, each ending in CRLF, and a
    /// blank line at the end of each head. Interim (1xx) heads other than `100 Continue` (which answers the
    /// request's sender, curl) are reported one by one, to be relayed (`102 Processing`, `103 Early Hints`); the
    /// first final head is the result.
    ///
    /// A field whose line holds a CR, LF or NUL byte (curl splits lines at LF only, so a bare CR
    /// stays inside one) is dropped, never relayed: written to a client as it is, it could end the
    /// field early and add fields or a body the origin's head did not have. Its name is kept in
    /// ``droppedFields`` for the log.
    struct ResponseHeadParser {
        /// What one line completed.
        enum Progress: Equatable {
            /// More lines are needed.
            case needMore
            /// An interim head to relay is complete: ``interim``; more lines follow.
            case interim
            /// A final response head is complete.
            case complete
        }

        /// Why a line could not be read.
        struct MalformedLine: Error {
            var reason: String
        }

        private var status: Int?
        private var reason = ""
        private var httpVersion = ""
        private var headers: [HeaderField] = []

        /// The final head, once ``consume(_:)`` has returned ``Progress/complete``.
        private(set) var head: UpstreamResponseHead?

        /// The interim head ``consume(_:)`` last returned ``Progress/interim`` for.
        private(set) var interim: UpstreamResponseHead?

        /// The names of the fields of the head read last (or being read) that were dropped for a
        /// CR, LF or NUL byte.
        private(set) var droppedFields: [String] = []

        /// Takes one header line, with or without its CRLF.
        mutating func consume(_ rawLine: some Collection<UInt8>) throws(MalformedLine) -> Progress {
            // Read as bytes: a String is made once per name and value, not per step of the parse.
            let read: Result<Progress, MalformedLine>? = rawLine.withContiguousStorageIfAvailable { bytes in
                Result { () throws(MalformedLine) -> Progress in try self.consume(bytes: bytes) }
            }
            if let read {
                return try read.get()
            }
            return try Array(rawLine).withUnsafeBufferPointer { bytes throws(MalformedLine) -> Progress in
                try self.consume(bytes: bytes)
            }
        }

        private mutating func consume(bytes: UnsafeBufferPointer<UInt8>) throws(MalformedLine) -> Progress {
            var end = bytes.count
            while end > 0, bytes[end - 1] == UInt8(ascii: "\r") || bytes[end - 1] == UInt8(ascii: "\n") {
                end -= 1
            }
            let line = UnsafeBufferPointer(rebasing: bytes[..<end])
            func text(_ part: Slice<UnsafeBufferPointer<UInt8>>) -> String {
                String(decoding: part, as: UTF8.self)
            }
            /// The line as an error quotes it.
            func quoted() -> String {
                text(line[...]).debugDescription
            }
            if line.isEmpty {
                return try self.endOfHead()
            }
            if line.starts(with: "HTTP/".utf8) {
                try self.startHead(statusLine: text(line[...]))
                return .needMore
            }
            guard self.status != nil else {
                throw MalformedLine(reason: "header line before a status line: \(quoted())")
            }
            let hasLineBreakOrNUL = line.contains(where: Self.isLineBreakOrNUL)
            if Self.isWhitespace(line[0]) {
                // obs-fold: a continuation of the previous field's value.
                guard let last = self.headers.indices.last else {
                    if hasLineBreakOrNUL { return .needMore }
                    throw MalformedLine(reason: "continuation line without a header field: \(quoted())")
                }
                if hasLineBreakOrNUL {
                    self.droppedFields.append(self.headers.removeLast().name)
                    return .needMore
                }
                self.headers[last].value += " " + text(Self.trimmingWhitespace(line[...]))
                return .needMore
            }
            if hasLineBreakOrNUL {
                let name = line[..<(line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex)]
                self.droppedFields.append(text(name.prefix { !Self.isLineBreakOrNUL($0) }))
                return .needMore
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                throw MalformedLine(reason: "header line without a colon: \(quoted())")
            }
            let name = line[..<colon]
            guard !name.isEmpty, !name.contains(where: Self.isWhitespace) else {
                throw MalformedLine(reason: "invalid header field name in \(quoted())")
            }
            self.headers.append(HeaderField(name: text(name), value: text(Self.trimmingWhitespace(line[(colon + 1)...]))))
            return .needMore
        }

        private static func isLineBreakOrNUL(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n") || byte == 0
        }

        private static func isWhitespace(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
        }

        /// `bytes` without surrounding spaces and tabs (HTTP's optional whitespace).
        private static func trimmingWhitespace(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
            var bytes = bytes
            while let first = bytes.first, Self.isWhitespace(first) { bytes = bytes.dropFirst() }
            while let last = bytes.last, Self.isWhitespace(last) { bytes = bytes.dropLast() }
            return bytes
        }

        private mutating func startHead(statusLine line: String) throws(MalformedLine) {
            // "HTTP/1.1 200 OK", "HTTP/1.1 200", "HTTP/2 200 " (curl writes HTTP/2 and HTTP/3 status lines itself).
            let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count >= 2,
                let status = Int(parts[1]), (100...999).contains(status), parts[1].count == 3
            else {
                throw MalformedLine(reason: "invalid status line \(line.debugDescription)")
            }
            self.httpVersion = String(parts[0].dropFirst("HTTP/".count))
            self.status = status
            let reason = parts.count > 2 ? parts[2].trimmingWhitespace() : ""
            // The reason phrase is relayed too: one with a line break or NUL is left out.
            self.reason = reason.utf8.contains(where: Self.isLineBreakOrNUL) ? "" : reason
            self.headers = []
            self.droppedFields = []
        }

        private mutating func endOfHead() throws(MalformedLine) -> Progress {
            guard let status = self.status else {
                throw MalformedLine(reason: "empty response head")
            }
            // 1xx heads are interim (100 Continue, 103 Early Hints), except 101, after which the protocol changes.
            if (100..<200).contains(status) && status != 101 {
                let interim = UpstreamResponseHead(
                    status: status, reason: self.reason, headers: self.headers, httpVersion: self.httpVersion)
                self.status = nil
                self.headers = []
                guard status != 100 else { return .needMore }
                self.interim = interim
                return .interim
            }
            self.head = UpstreamResponseHead(
                status: status,
                reason: self.reason,
                headers: self.headers,
                httpVersion: self.httpVersion
            )
            return .complete
        }
    }
#endif
