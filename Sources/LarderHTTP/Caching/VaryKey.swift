/// Which stored variant answers a request (RFC 9111 section 4.1).
///
/// `Accept-Encoding` is left out: Larder negotiates encodings itself (it stores one representation
/// and decodes it for a client that cannot take it), so that header never splits or misses variants.
public enum VaryKey {
    /// The lower-case field names a response's `Vary` values name, without `Accept-Encoding`;
    /// nil for `Vary: *`.
    public static func names(_ varyFieldValues: [String]) -> [String]? {
        var names: Set<String> = []
        for value in varyFieldValues {
            for token in value.split(separator: ",") {
                let name = token.trimmingWhitespace().lowercased()
                if name == "*" { return nil }
                // A name that is no field name (``AnswerOwner/recordedName``) selects nothing.
                if !name.isEmpty, name != "accept-encoding", !name.hasPrefix(":") { names.insert(name) }
            }
        }
        return names.sorted()
    }

    /// The request's values of the varied headers, in canonical form (sorted names, values of
    /// repeated fields joined, whitespace around commas normalised, `Accept-Language` lower-cased).
    public static func values(_ varyFieldValues: [String], request: some HeaderFields) -> [HeaderField] {
        (self.names(varyFieldValues) ?? []).map { name in
            HeaderField(name: name, value: Self.normalised(request[name].joined(separator: ","), name: name))
        }
    }

    /// Whether a stored response selected by `stored` serves a request with `request`'s headers.
    public static func matches(storedVary: [String], storedValues: [HeaderField], request: some HeaderFields) -> Bool {
        let wanted = self.values(storedVary, request: request)
        let recorded = storedValues.filter { $0.name.lowercased() != "accept-encoding" && $0.name != AnswerOwner.recordedName }
        return wanted.count == recorded.count
            && zip(wanted, recorded.sorted { $0.name < $1.name }).allSatisfy {
                $0.name == $1.name.lowercased() && $0.value == Self.normalised($1.value, name: $0.name)
            }
    }

    /// Whether a stored response answers a request with these headers from `owner`: a personal
    /// response only its owner, and never a page of another site (``AnswerOwner``); then when its
    /// varied headers match, or it is precached (an out-of-band contract, always served; the
    /// runner records no request values, and a CDN's `Vary: Origin` must not make a precached
    /// game unplayable).
    public static func selects(
        storedHeaders: [HeaderField],
        varyRequestHeaders: [HeaderField],
        precached: Bool,
        for request: some HeaderFields,
        owner: AnswerOwner
    ) -> Bool {
        if let digest = AnswerOwner.recordedDigest(in: varyRequestHeaders), digest != owner.digest || owner.isCrossSite {
            return false
        }
        return precached || self.matches(storedVary: storedHeaders["vary"], storedValues: varyRequestHeaders, request: request)
    }

    /// Whether a stored response answers every request for its key, whatever its headers and
    /// owner (``selects(storedHeaders:varyRequestHeaders:precached:for:owner:)`` is then true for
    /// each): it is shared (no owner recorded), and precached or varying on no request header, so
    /// that what it recorded is what any request shows (`Vary: *`, never stored, does not).
    public static func selectsEveryRequest(storedHeaders: [HeaderField], varyRequestHeaders: [HeaderField], precached: Bool) -> Bool {
        guard AnswerOwner.recordedDigest(in: varyRequestHeaders) == nil else { return false }
        let vary = storedHeaders["vary"]
        return precached
            || (self.names(vary) == [] && self.matches(storedVary: vary, storedValues: varyRequestHeaders, request: [HeaderField]()))
    }

    /// What a response to `request` is stored with: the request's values of the headers it varies
    /// on and, when it is personal (``AnswerOwner/isPersonal(request:response:)``, or `personal`:
    /// a page kept against its `no-store`, ``KeptNoStore``), its owner.
    public static func recordedValues(
        response: [HeaderField], request: some HeaderFields, owner: AnswerOwner, personal: Bool = false
    ) -> [HeaderField] {
        let values = self.values(response["vary"], request: request)
        return personal || AnswerOwner.isPersonal(request: request, response: response) ? values + [owner.recorded] : values
    }

    /// The key a response is stored under: the plain key, or a variant named by a digest of the
    /// varied request values.
    public static func storageKey(_ key: CacheKey, values: [HeaderField]) -> CacheKey {
        guard !values.isEmpty else { return key }
        // FNV-1a: stable across runs; a collision only replaces another variant, since lookups
        // compare the recorded values anyway.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for field in values {
            for byte in field.name.utf8 + [0] + field.value.utf8 + [0] {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            }
        }
        let hex = String(hash, radix: 16)
        return key.variant(String(repeating: "0", count: 16 - hex.count) + hex)
    }

    /// A value as the field's grammar compares it: list members trimmed; language ranges in any
    /// case (RFC 4647 section 2), so `en-US` and `en-us` select the same variant. Order stays: an
    /// origin may prefer the first of equal weights.
    private static func normalised(_ value: String, name: String) -> String {
        let members = value.split(separator: ",").map { $0.trimmingWhitespace() }.joined(separator: ", ")
        return name == "accept-language" ? members.lowercased() : members
    }
}
