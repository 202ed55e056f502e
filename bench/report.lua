-- The wrk script of every run of bench/run.sh.
--
-- BENCH_BODY names a file: the run POSTs its bytes as application/json.
-- BENCH_AUTHORIZATION, when set, is sent as the Authorization header.
-- The request is built once (no per-request Lua), so the script costs
-- nothing while the run lasts; done() prints one machine-readable line.

local body_file = os.getenv("BENCH_BODY")
if body_file ~= nil and body_file ~= "" then
    local file = assert(io.open(body_file, "rb"))
    wrk.method = "POST"
    wrk.body = file:read("*a")
    file:close()
    wrk.headers["Content-Type"] = "application/json"
end

local authorization = os.getenv("BENCH_AUTHORIZATION")
if authorization ~= nil and authorization ~= "" then
    wrk.headers["Authorization"] = authorization
end

function done(summary, latency, requests)
    local errors = summary.errors
    io.write(string.format(
        "BENCH_RESULT requests=%.0f duration_us=%.0f bytes=%.0f p50_us=%.0f p90_us=%.0f " ..
        "p99_us=%.0f max_us=%.0f connect=%.0f read=%.0f write=%.0f status=%.0f timeout=%.0f\n",
        summary.requests, summary.duration, summary.bytes, latency:percentile(50),
        latency:percentile(90), latency:percentile(99), latency.max, errors.connect,
        errors.read, errors.write, errors.status, errors.timeout))
end
