import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A child process started with `posix_spawn`: the part of Foundation's `Process` the tests use,
/// under the same names.
///
/// Foundation's `Process.run()` on Linux (Swift 6.3.1) now and then crashes the whole test run
/// with a buffer over-read while it lists `/proc/self/fd` (swift-corelibs-foundation#5472), and
/// the tests start hundreds of processes. Like `Process`, the child gets only its standard
/// streams: every other descriptor is closed in it, so a long-lived child never holds another
/// test's pipe open.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: the settings below are set and read by the one task that configures and runs the
    // process; what other tasks read (the pid, the exit status) is in `state`.

    /// The program to run.
    public var executableURL: URL?
    /// Its arguments, without the program name.
    public var arguments: [String] = []
    /// Its environment; nil inherits this process's.
    public var environment: [String: String]?
    /// A `Pipe` (the child reads its read end) or a `FileHandle`; nil inherits.
    public var standardInput: Any?
    /// A `Pipe` (the child writes its write end) or a `FileHandle`; nil inherits.
    public var standardOutput: Any?
    /// A `Pipe` or a `FileHandle`; nil inherits.
    public var standardError: Any?

    private struct State {
        var pid: pid_t = 0
        var waitStatus: Int32?
    }

    private let state = Mutex(State())

    /// A process to configure, then `run()`.
    public init() {}

    /// The child's process ID (0 before `run()`).
    public var processIdentifier: Int32 {
        self.state.withLock { $0.pid }
    }

    /// Starts the child.
    public func run() throws {
        guard let path = self.executableURL?.path else {
            throw ChildProcessError(description: "no executable set")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, stream) in [(Int32(0), self.standardInput), (1, self.standardOutput), (2, self.standardError)] {
            if let handle = stream as? FileHandle, handle === FileHandle.nullDevice {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            } else if let descriptor = Self.descriptor(stream, isInput: target == 0) {
                posix_spawn_file_actions_adddup2(&actions, descriptor, target)
            }
        }
        guard let closeFrom = Self.addCloseFrom else {
            throw ChildProcessError(description: "posix_spawn_file_actions_addclosefrom_np is missing (glibc 2.34 or later is needed)")
        }
        _ = closeFrom(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Default signal handling and no blocked signals in the child, whatever the test runner set.
        var defaults = sigset_t()
        sigfillset(&defaults)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let environment = self.environment ?? ProcessInfo.processInfo.environment
        let argv = ([path] + self.arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var child: pid_t = 0
        let result = posix_spawn(&child, path, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw ChildProcessError(description: "cannot start \(path): \(String(cString: strerror(result)))")
        }
        self.state.withLock { $0.pid = child }
        // The child has its ends of the pipes now; the parent's copies would keep them open.
        for (stream, isInput) in [(self.standardInput, true), (self.standardOutput, false), (self.standardError, false)] {
            if let pipe = stream as? Pipe {
                try? (isInput ? pipe.fileHandleForReading : pipe.fileHandleForWriting).close()
            }
        }
    }

    /// Whether the child has not exited yet.
    public var isRunning: Bool {
        !self.reap(blocking: false)
    }

    /// Waits for the child to exit (polling, so other threads may ask `isRunning` meanwhile).
    public func waitUntilExit() {
        while !self.reap(blocking: false) {
            usleep(2_000)
        }
    }

    /// The exit status, or the signal that ended the child (as `Process` reports them).
    public var terminationStatus: Int32 {
        let status = self.state.withLock { $0.waitStatus } ?? 0
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : signal
    }

    /// Sends SIGTERM.
    public func terminate() {
        let pid = self.processIdentifier
        if pid > 0, self.isRunning {
            kill(pid, SIGTERM)
        }
    }

    /// Whether the child has been reaped (now or before).
    private func reap(blocking: Bool) -> Bool {
        self.state.withLock { state in
            if state.waitStatus != nil { return true }
            guard state.pid > 0 else { return false }
            var status: Int32 = 0
            let result = waitpid(state.pid, &status, blocking ? 0 : WNOHANG)
            if result == state.pid {
                state.waitStatus = status
                return true
            }
            // ECHILD: someone else reaped it; it is gone either way.
            if result < 0, errno == ECHILD {
                state.waitStatus = 0
                return true
            }
            return false
        }
    }

    private static func descriptor(_ stream: Any?, isInput: Bool) -> Int32? {
        switch stream {
        case let pipe as Pipe:
            return isInput ? pipe.fileHandleForReading.fileDescriptor : pipe.fileHandleForWriting.fileDescriptor
        case let handle as FileHandle:
            return handle.fileDescriptor
        default:
            return nil
        }
    }

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc module does not declare.
    private static let addCloseFrom: CloseFrom? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: CloseFrom.self)
    }()
}

/// A child process could not be started.
public struct ChildProcessError: Error, CustomStringConvertible {
    public var description: String
}
