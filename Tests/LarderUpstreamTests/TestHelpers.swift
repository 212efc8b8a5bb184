import Foundation
import LarderTestSupport
import NIOCore
import Testing

@testable import LarderUpstream

extension UpstreamBody {
    /// Every byte of the body.
    func collectBytes() async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await chunk in self {
            bytes += chunk.readableBytesView
        }
        return bytes
    }
}

extension ByteBuffer {
    init(bytes: [UInt8]) {
        self = ByteBufferAllocator().buffer(bytes: bytes)
    }
}

/// Runs `body` and returns the ``UpstreamError`` it throws, recording an issue when it throws something else or
/// nothing.
func upstreamError(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async -> UpstreamError? {
    do {
        try await body()
        Issue.record("expected an UpstreamError, nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as UpstreamError {
        return error
    } catch {
        Issue.record("expected an UpstreamError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The bytes of a body, read while recording how many arrived before it failed.
struct PartialBody {
    var bytes: [UInt8] = []
    var error: (any Error)?
}

extension UpstreamBody {
    /// The bytes up to the end or the failure, and the failure.
    func collectUntilFailure() async -> PartialBody {
        var result = PartialBody()
        do {
            for try await chunk in self {
                result.bytes += chunk.readableBytesView
            }
        } catch {
            result.error = error
        }
        return result
    }
}

/// A stream of `chunks`, each yielded after `delay`.
func chunkStream(_ chunks: [[UInt8]], delay: Duration = .zero) -> AsyncStream<ByteBuffer> {
    AsyncStream { continuation in
        let task = Task {
            for chunk in chunks {
                if delay > .zero {
                    try? await Task.sleep(for: delay)
                }
                continuation.yield(ByteBuffer(bytes: chunk))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
    }
}

/// Starts `operation`, failing with a recorded issue when it takes longer than `limit`.
func withTimeLimit<T: Sendable>(
    _ limit: Duration,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        guard let first = try await group.next(), let result = first else {
            group.cancelAll()
            Issue.record("did not finish within \(limit)", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        group.cancelAll()
        return result
    }
}
