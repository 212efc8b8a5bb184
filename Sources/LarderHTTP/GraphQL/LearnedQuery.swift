import Foundation

/// The app's own version of a declared GraphQL request (docs/SERVING.md, "Following the app's
/// query"). A declared request whose body names an `operationName` says *which* request to keep,
/// not its final text: the app's query changes with every web deploy. When the app sends that
/// operation, as a read, to the declared URL and gets a 2xx, its body becomes the declared
/// request's body, with the dates in its variables written back as placeholders relative to the
/// day it was sent (`{{today}}`, `{{today-1}}`...), so the next day's run asks the next day's
/// question the way the app now asks it.
public enum LearnedQuery {
    /// How far from the day it was sent a date in the variables may be to be read as relative.
    public static let maximumDayOffset = 31

    /// The template `body` (the app's request body) makes of `declared` on the day of `now` in
    /// its zone; nil when it is not `declared`'s operation (another name, a mutation, not
    /// GraphQL) or holds text that reads as a placeholder.
    public static func template(of body: [UInt8], for declared: DeclaredRequest, now: Date) -> JSONValue? {
        guard let name = declared.operationName, body.count <= BodyKey.maximumBodySize,
            let value = try? JSONParser.parse(body), GraphQLRequest(body: value) != nil,
            case .string(name)? = value[member: "operationName"]?.kind
        else { return nil }
        let today = CalendarDay(now, in: declared.timeZone)
        var readsAsPlaceholder = false
        _ = value.mappingStrings { string in
            readsAsPlaceholder = readsAsPlaceholder || string.contains("{{")
            return string
        }
        guard !readsAsPlaceholder, case .object(var members) = value.kind else { return nil }
        for index in members.indices where members[index].name == "variables" {
            members[index].value = members[index].value.mappingStrings { string in
                guard let day = CalendarDay(parsing: string), day.description == string else { return string }
                let offset = today.days(to: day)
                guard abs(offset) <= Self.maximumDayOffset else { return string }
                return offset == 0 ? "{{today}}" : offset > 0 ? "{{today+\(offset)}}" : "{{today\(offset)}}"
            }
        }
        return JSONValue(.object(members), line: value.line)
    }
}
