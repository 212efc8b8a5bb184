import Foundation

extension Store {
    /// Opens the cache directory with remembered lookups (``rememberedLookup(of:)``) trusted for
    /// `lookupTrust` seconds instead of a second. For the micro benchmarks only
    /// (Benchmarks/Benchmarks/LarderMicro): memo hits measured over many samples need a lookup
    /// that stays remembered, index reads need one never trusted (0).
    @_spi(Benchmarks)
    public convenience init(directory: String, lookupTrust: TimeInterval) throws {
        try self.init(directory: directory, migratingUpTo: nil, lookupTrust: lookupTrust)
    }
}
