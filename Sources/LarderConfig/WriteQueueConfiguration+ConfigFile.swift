import LarderHTTP

extension WriteQueueConfiguration {
    /// The settings `queue` may have.
    static let configKeys = ["routes", "retention", "retry", "maxWrites", "maxBytes"]
    /// The shortest and longest `retention` accepted.
    static let retentionRange = Duration.seconds(1)...Duration.seconds(365 * 86_400)
    /// The shortest and longest `retry` waits accepted (`step` may be zero).
    static let retryRange = Duration.milliseconds(100)...Duration.seconds(86_400)

    /// Reads `queue` (docs/SERVING.md, "Queued writes").
    init(configValue value: JSONValue, at path: ConfigKeyPath, reader: ConfigReader) throws(ConfigFileError) {
        let members = try reader.members(
            of: value, at: path, expected: "an object of queue settings", known: Self.configKeys, noun: "a queue setting")
        self.init()
        if let routes = members["routes"] {
            let routesPath = path.appending(member: "routes")
            for (index, element) in try reader.elements(of: routes.value, at: routesPath, expected: "an array of queue route objects")
                .enumerated()
            {
                self.rules.append(try WriteQueueRule(configValue: element, at: routesPath.appending(index: index), reader: reader))
            }
        }
        if let retention = members["retention"] {
            self.retention = try reader.duration(
                retention.value, at: path.appending(member: "retention"), minimum: Self.retentionRange.lowerBound,
                maximum: Self.retentionRange.upperBound)
        }
        if let retry = members["retry"] {
            self.backoff = try Self.backoff(retry.value, at: path.appending(member: "retry"), reader: reader)
        }
        if let member = members["maxWrites"] {
            let memberPath = path.appending(member: "maxWrites")
            guard case .number(let number) = member.value.kind, let count = number.integerValue, count >= 1, count <= Int64(Int32.max)
            else {
                throw reader.mismatch(member.value, at: memberPath, expected: "a whole number of writes, at least 1, such as 1000")
            }
            self.limits.maxWrites = Int(count)
        }
        if let member = members["maxBytes"] {
            let memberPath = path.appending(member: "maxBytes")
            let bytes = try LarderConfigFile.size(member.value, at: memberPath, reader: reader)
            guard bytes >= 1 else {
                throw reader.error(
                    "the queue must keep at least one byte; give a size such as \"64MiB\"", at: memberPath, line: member.value.line)
            }
            self.limits.maxBytes = bytes
        }
    }

    /// `{"base": "1.5s", "step": "1s", "max": "60s"}`, each optional (the seed's values).
    private static func backoff(_ value: JSONValue, at path: ConfigKeyPath, reader: ConfigReader) throws(ConfigFileError) -> ReplayBackoff {
        let members = try reader.members(
            of: value, at: path, expected: "an object such as {\"base\": \"1.5s\", \"step\": \"1s\", \"max\": \"60s\"}",
            known: ["base", "step", "max"], noun: "a retry setting")
        var backoff = ReplayBackoff.standard
        if let member = members["base"] {
            backoff.base = try reader.duration(
                member.value, at: path.appending(member: "base"), minimum: Self.retryRange.lowerBound, maximum: Self.retryRange.upperBound)
        }
        if let member = members["step"] {
            backoff.step = try reader.duration(
                member.value, at: path.appending(member: "step"), minimum: .zero, maximum: Self.retryRange.upperBound)
        }
        if let member = members["max"] {
            backoff.maximum = try reader.duration(
                member.value, at: path.appending(member: "max"), minimum: Self.retryRange.lowerBound, maximum: Self.retryRange.upperBound)
        }
        guard backoff.maximum >= backoff.base else {
            throw reader.error(
                "max (\(ConfigReader.describe(backoff.maximum))) is shorter than base (\(ConfigReader.describe(backoff.base))); the longest wait must be at least the first",
                at: path, line: value.line)
        }
        return backoff
    }
}
