import Foundation

/// The values that the declared requests' `{{env:NAME}}` placeholders put into URLs, headers and
/// bodies, and the rule for text Larder shows or logs (a URL, an error naming one, a cache key):
/// each value, as it is or percent-encoded as a URL carries it, is shown as its placeholder
/// (docs/SERVING.md, "What is private and where it is kept").
public struct SubstitutedSecrets: Sendable, Hashable {
    /// One value and the forms it takes in text.
    struct Secret: Sendable, Hashable {
        var name: String
        var value: String
        /// The value and its percent-encoded forms, longest first.
        var forms: [String]
    }

    /// Longest value first, so that a value holding another is replaced whole.
    let secrets: [Secret]

    /// None: text is shown as it is.
    public static let none = SubstitutedSecrets(secrets: [])

    private init(secrets: [Secret]) {
        self.secrets = secrets
    }

    /// The values of the environment variables `requests` name, from `environment`; unset and
    /// empty ones are left out.
    public init(_ requests: [DeclaredRequest], environment: [String: String]) {
        var secrets: [Secret] = []
        for name in Set(requests.flatMap(\.environmentNames)).sorted() {
            guard let value = environment[name], !value.isEmpty else { continue }
            // As it is, as a URL carries it (every byte but the unreserved ones escaped), and with
            // the unreserved punctuation escaped too.
            var forms: Set = [value, PercentEncoding.encodingAllButUnreserved(value.utf8)]
            forms.insert(value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value)
            secrets.append(Secret(name: name, value: value, forms: forms.sorted { ($0.utf8.count, $0) > ($1.utf8.count, $1) }))
        }
        self.secrets = secrets.sorted { ($0.value.utf8.count, $0.name) > ($1.value.utf8.count, $1.name) }
    }

    /// Whether there is no value to hide.
    public var isEmpty: Bool {
        self.secrets.isEmpty
    }

    /// `text` with every value, in any of its forms, replaced by `{{env:NAME}}`.
    public func redacting(_ text: String) -> String {
        var redacted = text
        for secret in self.secrets {
            for form in secret.forms where redacted.contains(form) {
                redacted = redacted.replacingOccurrences(of: form, with: Self.placeholder(secret.name))
            }
        }
        return redacted
    }

    /// `text` with every `{{env:NAME}}` of these values replaced by the value: what a form Larder
    /// showed redacted (a cache key to purge) posts back.
    public func restoring(_ text: String) -> String {
        var restored = text
        for secret in self.secrets where restored.contains(Self.placeholder(secret.name)) {
            restored = restored.replacingOccurrences(of: Self.placeholder(secret.name), with: secret.value)
        }
        return restored
    }

    private static func placeholder(_ name: String) -> String {
        "{{env:\(name)}}"
    }
}
