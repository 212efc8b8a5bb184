/// The `Via` entry Larder adds as an intermediary (RFC 9110 section 7.6.3), on the requests it
/// sends upstream and on the answers it gives, after whatever `Via` the message had: the one
/// place its text is written.
public enum ViaField {
    /// Larder's own entry: the protocol it received and its pseudonym.
    public static let larder = "1.1 larder"

    /// The field's value with Larder's entry after `received` (the values of the message's own
    /// `Via` fields, in order).
    public static func value(after received: [String] = []) -> String {
        (received + [Self.larder]).joined(separator: ", ")
    }
}
