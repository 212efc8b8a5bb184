import Foundation

/// The reads sent as POST added with **Answer offline**, as /dev/offline and its JSON show them.
public struct AnsweredOfflineReport: Sendable, Codable {
    /// One URL's requests of one method.
    public struct Entry: Sendable, Codable {
        public var method: String
        public var url: String
        /// When **Answer offline** was chosen for it (nil: before Larder kept the time).
        public var chosenAt: Date?
    }

    /// The file they are kept in.
    public var file: String
    public var entries: [Entry]
    /// Why the file could not be read (nil when it was, or there is none).
    public var problem: String?
}
