/// The `Via` entry Larder adds as an intermediary (RFC 9110 section 7.6.3), on the requests it
/// sends upstream and on the answers it gives, after whatever `Via` the message had: the one
/// place its text is written.
public enum ViaField {
    /// Larder's own entry: the protocol it received and its pseudonym.
    static let larder = "1.1 larder"

    /// The `Via` field with Larder's entry after `received` (the values of the message's own
    /// `Via` fields, in order; none for a request Larder makes itself).
    public static func field(after received: [String] = []) -> HeaderField {
        HeaderField(name: "Via", value: (received + [Self.larder]).joined(separator: ", "))
    }
}
