extension String {
    /// The string with HTML's special characters escaped, for text and attribute values.
    var htmlEscaped: String {
        var result = ""
        result.reserveCapacity(self.utf8.count)
        for character in self.unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }
}
