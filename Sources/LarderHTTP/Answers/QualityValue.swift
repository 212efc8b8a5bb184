/// The weight (`q` parameter, RFC 9110 section 12.4.2) of one element of an `Accept`-style list.
enum QualityValue {
    /// The weight among an element's parameters (after its name): 1 without a `q` parameter; nil
    /// when the weight is not a decimal number. Lenient: any decimal is read, even beyond the
    /// grammar's range and three decimals; parameters other than `q` are ignored.
    static func weight(_ parameters: some Sequence<Substring>) -> Double? {
        for parameter in parameters {
            let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2, pair[0].trimmingWhitespace().lowercased() == "q" else { continue }
            let number = pair[1].trimmingWhitespace()
            let isDecimal =
                number.contains { $0 != "." } && number.count { $0 == "." } <= 1
                && number.allSatisfy { $0 == "." || ($0.isASCII && $0.isNumber) }
            guard isDecimal else { return nil }
            return Double(number.hasPrefix(".") ? "0" + number : number)
        }
        return 1
    }
}
