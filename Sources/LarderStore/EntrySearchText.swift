import Foundation

/// A user's entry search text, made into an FTS5 query that matches it literally.
///
/// Matching is by substring of the entry URL, ignoring case (the trigram tokenizer folds Unicode
/// case; it does not remove accents).
struct EntrySearchText {
    /// The text without surrounding white space and line breaks (a URL holds none).
    let text: String

    /// The search text in `query`, or nil when it is nil or only white space (no search).
    init?(_ query: String?) {
        guard let query else {
            return nil
        }
        let text = query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else {
            return nil
        }
        self.text = text
    }

    /// The trigram index matches text of at least three characters (Unicode scalars).
    var isLongEnoughForIndex: Bool {
        self.text.unicodeScalars.count >= Store.minimumSearchLength
    }

    /// Whether any URL could contain the text: SQLite ends an FTS5 query at a NUL, and a URL holds none.
    var canMatchAURL: Bool {
        !self.text.unicodeScalars.contains("\u{0}")
    }

    /// An FTS5 query for the text as one phrase: in double quotes, with inner double quotes doubled,
    /// so operators (`AND`, `NOT`, `*`, `^`, parentheses, column filters) are plain characters. The
    /// trigram tokenizer splits it into overlapping trigrams, consecutive in a match: a substring.
    var fullTextPhrase: String {
        "\"\(self.text.replacingOccurrences(of: "\"", with: "\"\""))\""
    }
}
