import Foundation

/// The fields Larder adds to every answer it gives, in one place and one order: its `Via` entry
/// after the ones the answer carries (RFC 9110 section 7.6.3), `age` for an answer from a stored
/// response (RFC 9111 section 5.1), `Cache-Status` (RFC 9211), `Larder-Offline: 1` when it stands
/// in for an origin that could not answer (`navigator.onLine` stays true behind a proxy), and
/// `Connection: close` when the connection ends after it. Stored answers, relays, status pages,
/// refusals, queued writes' answers, preflights, `CONNECT` and WebSocket handshakes all write them
/// through here.
public enum ProxyAnswerFields {
    /// Calls `field` with each field that follows an answer's own, in wire order, making no array
    /// of them (the immediate hit path writes them straight out). `cacheStatus` is the field's
    /// value (``CacheStatus/description``), made once by a caller that also logs it.
    public static func forEach(
        age: Int?, cacheStatus: String?, disconnected: Bool = false, close: Bool = false, _ field: (String, String) -> Void
    ) {
        if let age {
            field("age", String(age))
        }
        if let cacheStatus {
            field("Cache-Status", cacheStatus)
        }
        if disconnected {
            field("Larder-Offline", "1")
        }
        if close {
            field("Connection", "close")
        }
    }

    /// Adds Larder's fields to an answer's `headers`. With `via`, any `Via` the answer carries is
    /// replaced by one that ends with Larder's entry; without, none is added (an answer Larder
    /// makes itself, not forwarded, carries none).
    public static func add<Fields: HeaderFields>(
        to headers: inout Fields, via: Bool, age: Int? = nil, cacheStatus: CacheStatus?, disconnected: Bool = false,
        close: Bool = false
    ) {
        if via {
            let field = ViaField.field(after: headers["via"])
            headers.remove(name: "via")
            headers.add(name: field.name, value: field.value)
        }
        Self.forEach(age: age, cacheStatus: cacheStatus?.description, disconnected: disconnected, close: close) { name, value in
            headers.add(name: name, value: value)
        }
    }

    /// An answer from a stored response with `freshness`: its `age` now, and a hit's
    /// `Cache-Status` with the time it has left to live (`ttl`, negative once stale) and `detail`.
    public static func hit(freshness: ResponseFreshness, now: Date, detail: String?) -> (age: Int, cacheStatus: CacheStatus) {
        let age = freshness.currentAge(now: now)
        return (age, CacheStatus.hit(ttl: Int(freshness.lifetime) - age, detail: detail))
    }
}
