-- wrk script for Benchmarks/run.
--
-- TARGET_PATH is the request target: an absolute URL (absolute-form, as a browser sends to a
-- forward proxy) or a path (origin-form, for nginx proxy_cache, a reverse proxy). TARGET_HOST,
-- when set, is the Host header (the origin's authority, not the proxy's).
-- done() prints one line starting with BENCH_JSON that Benchmarks/support/bench.py reads.

local target = os.getenv("TARGET_PATH")
if target ~= nil and target ~= "" then
  wrk.path = target
end
local host = os.getenv("TARGET_HOST")
if host ~= nil and host ~= "" then
  wrk.headers["Host"] = host
end

function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests": %d, "duration_s": %.6f, "rps": %.2f, "bytes": %d, ' ..
    '"p50_ms": %.3f, "p90_ms": %.3f, "p99_ms": %.3f, "max_ms": %.3f, ' ..
    '"errors_connect": %d, "errors_read": %d, "errors_write": %d, "errors_status": %d, "errors_timeout": %d}\n',
    summary.requests, seconds, summary.requests / seconds, summary.bytes,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000,
    e.connect, e.read, e.write, e.status, e.timeout))
end
