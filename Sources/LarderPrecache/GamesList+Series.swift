import Foundation
import LarderHTTP
import LarderStore

extension GamesList.Builder {
    /// A `series` line: `series MANIFEST-URL|URL-TEMPLATE [past=N] [future=N] [tz=Area/City] [from=YYYY-MM-DD]`.
    /// A word holding `{` is a template; any other is a manifest URL. Each option at most once.
    mutating func addSeries(_ words: [String], number: Int) {
        guard words.count >= 2 else {
            self.problem(number, "\"series\" needs a manifest URL or a URL template with {date} after it")
            return
        }
        let target = words[1]
        let kind: SeriesSource.Kind
        if target.contains("{") || target.contains("}") {
            let template: SeriesTemplate
            do {
                template = try SeriesTemplate(parsing: target)
            } catch {
                self.problem(number, "series template: \(error.description)")
                return
            }
            // The template must make a valid URL for any day.
            let sample = template.url(for: CalendarDay(year: 2025, month: 10, day: 26)!)
            do {
                let url = try HTTPURL(parsing: sample)
                guard url.fragment == nil else {
                    self.problem(number, "series template \(target.debugDescription) has a fragment; a fragment never reaches the server")
                    return
                }
            } catch {
                self.problem(
                    number, "series template \(target.debugDescription) does not make a URL (\(sample.debugDescription)): \(error.reason)")
                return
            }
            kind = .template(template)
        } else {
            guard let url = self.url(target, number: number) else { return }
            kind = .manifest(Self.withoutFragment(url))
        }

        var options: [String: String] = [:]
        for word in words.dropFirst(2) {
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                self.problem(
                    number, "series option \(word.debugDescription) is not NAME=VALUE (past=N, future=N, tz=Area/City, from=YYYY-MM-DD)")
                return
            }
            let name = String(word[..<equals])
            let value = String(word[word.index(after: equals)...])
            guard ["past", "future", "tz", "from"].contains(name) else {
                self.problem(number, "unknown series option \(name.debugDescription); the options are past, future, tz and from")
                return
            }
            guard options.updateValue(value, forKey: name) == nil else {
                self.problem(number, "series option \(name) is given twice")
                return
            }
        }

        let isTemplate = if case .template = kind { true } else { false }
        guard
            let past = self.count(
                options["past"], name: "past", maximum: SeriesSource.maximumPast,
                default: isTemplate ? SeriesSource.defaultTemplatePast : SeriesSource.maximumPast, number: number),
            let future = self.count(
                options["future"], name: "future", maximum: SeriesSource.maximumFuture, default: SeriesSource.defaultFuture,
                number: number)
        else { return }
        var timeZone = TimeZone.current
        if let name = options["tz"] {
            guard let zone = TimeZone(identifier: name) else {
                self.problem(number, "series tz=\(name): not a known time zone; use an IANA name such as Europe/Paris or UTC")
                return
            }
            timeZone = zone
        }
        var from: CalendarDay?
        if let text = options["from"] {
            guard let day = CalendarDay(parsing: text) else {
                self.problem(number, "series from=\(text): not a date; write YYYY-MM-DD, e.g. from=2025-10-26")
                return
            }
            from = day
        }

        let source = SeriesSource(
            kind: kind, line: words.joined(separator: " "), lineNumber: number, past: past, future: future, timeZone: timeZone,
            timeZoneName: options["tz"], from: from)
        // Two lines for one manifest or template would precache the same days twice: first wins.
        guard self.seenSeries.insert(source.location).inserted else { return }
        self.entries.append(.series(source))
    }

    /// A `past=`/`future=` value: a whole number from 0 to `maximum`, or `default` when absent.
    mutating func count(_ text: String?, name: String, maximum: Int, default value: Int, number: Int) -> Int? {
        guard let text else { return value }
        guard let count = Int(text), count >= 0, count <= maximum, text.allSatisfy(\.isASCII) else {
            self.problem(number, "series \(name)=\(text): expected a whole number of days from 0 to \(maximum)")
            return nil
        }
        return count
    }
}
