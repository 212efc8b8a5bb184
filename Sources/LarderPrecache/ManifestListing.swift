import LarderHTTP
import LarderStore

/// What a manifest document lists, as written, and the base its entries resolve against.
struct ManifestListing {
    /// One listed path or URL, and its Workbox revision if any.
    struct Entry {
        var reference: String
        var revision: String?
    }

    /// Why a document's structure is not a manifest: the message for ``ManifestError/problem``.
    struct StructureError: Error {
        var message: String
    }

    var format: ManifestFormat
    var entries: [Entry]
    var skip: Bool
    var base: HTTPURL

    /// Detects the format and collects the entries, checking every type the format fixes.
    init(document: JSONValue, manifestURL: HTTPURL, root: HTTPURL) throws(StructureError) {
        self.skip = false
        switch document.kind {
        case .array(let elements):
            self.format = .workbox
            self.base = manifestURL
            self.base.fragment = nil
            self.entries = try Self.workboxEntries(elements)
        case .object(let members):
            if let files = document[member: "files"] {
                self.format = .offlineMeta
                self.base = Self.parentFolder(ofRoot: root)
                self.entries = try Self.offlineMetaEntries(files)
                switch document[member: "skip"]?.kind {
                case nil, .null?:
                    break
                case .bool(let skip)?:
                    self.skip = skip
                case let other?:
                    throw StructureError(message: "skip is \(other.typeDescription), not a boolean")
                }
            } else if Self.looksLikeVite(members) {
                self.format = .vite
                self.base = Self.viteBase(manifestURL: manifestURL)
                self.entries = try Self.viteEntries(members)
            } else {
                throw StructureError(
                    message: "no files array: expected {\"files\": [...]} (offline.meta.json), "
                        + "a Workbox precache array or a Vite manifest"
                )
            }
        default:
            throw StructureError(message: "the document is \(document.typeDescription), not a JSON object or array")
        }
    }

    private static func offlineMetaEntries(_ files: JSONValue) throws(StructureError) -> [Entry] {
        guard case .array(let elements) = files.kind else {
            throw StructureError(message: "files is \(files.typeDescription), not an array")
        }
        try Self.checkCount(elements.count)
        var entries: [Entry] = []
        entries.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard case .string(let path) = element.kind else {
                throw StructureError(message: "files[\(index)] is \(element.typeDescription), not a string")
            }
            entries.append(Entry(reference: path, revision: nil))
        }
        return entries
    }

    private static func workboxEntries(_ elements: [JSONValue]) throws(StructureError) -> [Entry] {
        try Self.checkCount(elements.count)
        var entries: [Entry] = []
        entries.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            switch element.kind {
            case .string(let url):
                entries.append(Entry(reference: url, revision: nil))
            case .object:
                guard let url = element[member: "url"] else {
                    throw StructureError(message: "[\(index)] has no url")
                }
                guard case .string(let reference) = url.kind else {
                    throw StructureError(message: "[\(index)].url is \(url.typeDescription), not a string")
                }
                let revision: String?
                switch element[member: "revision"]?.kind {
                case nil, .null?:
                    revision = nil
                case .string(let value)?:
                    revision = value
                case let other?:
                    throw StructureError(
                        message: "[\(index)].revision is \(other.typeDescription), not a string or null"
                    )
                }
                entries.append(Entry(reference: reference, revision: revision))
            default:
                throw StructureError(
                    message: "[\(index)] is \(element.typeDescription), not a string or an object with a url"
                )
            }
        }
        return entries
    }

    /// An object of objects, at least one of which has a `file` member, and no `files` member.
    private static func looksLikeVite(_ members: [JSONMember]) -> Bool {
        var sawFile = false
        for member in members {
            guard case .object = member.value.kind else {
                return false
            }
            if member.value[member: "file"] != nil {
                sawFile = true
            }
        }
        return sawFile
    }

    /// Every chunk's `file`, then its `css` and `assets`, chunk by chunk in document order.
    private static func viteEntries(_ chunks: [JSONMember]) throws(StructureError) -> [Entry] {
        var entries: [Entry] = []
        func add(_ path: String) throws(StructureError) {
            entries.append(Entry(reference: path, revision: nil))
            try Self.checkCount(entries.count)
        }
        for chunk in chunks {
            let name = chunk.name.debugDescription
            guard let file = chunk.value[member: "file"] else {
                throw StructureError(message: "chunk \(name) has no file")
            }
            guard case .string(let path) = file.kind else {
                throw StructureError(message: "chunk \(name): file is \(file.typeDescription), not a string")
            }
            try add(path)
            for field in ["css", "assets"] {
                guard let list = chunk.value[member: field] else {
                    continue
                }
                guard case .array(let elements) = list.kind else {
                    throw StructureError(message: "chunk \(name): \(field) is \(list.typeDescription), not an array")
                }
                for (index, element) in elements.enumerated() {
                    guard case .string(let path) = element.kind else {
                        throw StructureError(
                            message: "chunk \(name): \(field)[\(index)] is \(element.typeDescription), not a string"
                        )
                    }
                    try add(path)
                }
            }
        }
        return entries
    }

    private static func checkCount(_ count: Int) throws(StructureError) {
        guard count <= PrecacheManifest.maximumEntryCount else {
            throw StructureError(
                message: "it lists more than \(PrecacheManifest.maximumEntryCount) files, the limit"
            )
        }
    }

    /// `offline.meta.json` paths start with the game's own folder, so they resolve against the
    /// root's parent: `https://cdn.example/games/` for root `https://cdn.example/games/flipart[/]`.
    static func parentFolder(ofRoot root: HTTPURL) -> HTTPURL {
        var path = Substring(root.path)
        while path.hasSuffix("/") {
            path = path.dropLast()
        }
        var base = root
        base.path = path.lastIndex(of: "/").map { String(path[...$0]) } ?? "/"
        base.query = nil
        base.fragment = nil
        return base
    }

    /// The folder holding `.vite` (`https://h/app/` for `https://h/app/.vite/manifest.json`), or the
    /// manifest's own folder when it is not inside a `.vite` folder (Vite before 5).
    static func viteBase(manifestURL: HTTPURL) -> HTTPURL {
        var folder = Substring(manifestURL.path)
        folder = folder.lastIndex(of: "/").map { folder[..<$0] } ?? ""
        if folder.hasSuffix("/.vite") {
            folder = folder.dropLast("/.vite".count)
        }
        var base = manifestURL
        base.path = folder + "/"
        base.query = nil
        base.fragment = nil
        return base
    }
}
