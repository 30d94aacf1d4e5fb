-- wrk script for `make bench` (scripts/bench): POST JSON bodies and report as one JSON line.
--
-- Environment (read in every Lua state wrk creates):
--   BENCH_BODY    path of a file holding one request body, sent on every request (wrk builds the
--                 request once, the cheapest way to drive a server)
--   BENCH_BODIES  path of a file holding one body per line, sent in turn (each thread starts at a
--                 different line), for endpoints whose answers are cached by input (odds)
-- `done` prints a line starting with "WRK_JSON " that scripts/harness/wrk.py parses: request count,
-- errors and the latency distribution in microseconds, straight from wrk's own histogram. No
-- `response` callback: it would run Lua on every answer and cap the rate being measured.

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json"

local function slurp(path)
  local f = assert(io.open(path, "rb"))
  local data = f:read("*a")
  f:close()
  return data
end

local single = os.getenv("BENCH_BODY")
local many = os.getenv("BENCH_BODIES")

if single and single ~= "" then
  wrk.body = slurp(single)
elseif many and many ~= "" then
  local bodies = {}
  for line in io.lines(many) do
    if line ~= "" then
      bodies[#bodies + 1] = line
    end
  end
  assert(#bodies > 0, "BENCH_BODIES is empty")
  local next_index = 1
  local thread_count = 0

  setup = function(thread)
    thread:set("offset", thread_count)
    thread_count = thread_count + 1
  end

  init = function(args)
    local offset = tonumber(wrk.thread:get("offset")) or 0
    next_index = (offset * 7919) % #bodies + 1
  end

  request = function()
    local body = bodies[next_index]
    next_index = next_index % #bodies + 1
    return wrk.format(nil, nil, nil, body)
  end
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%.0f,"duration_us":%.0f,"bytes":%.0f,' ..
    '"errors":{"connect":%.0f,"read":%.0f,"write":%.0f,"status":%.0f,"timeout":%.0f},' ..
    '"latency_us":{"min":%.0f,"mean":%.1f,"stdev":%.1f,"max":%.0f,' ..
    '"p50":%.0f,"p75":%.0f,"p90":%.0f,"p99":%.0f,"p999":%.0f}}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.min, latency.mean, latency.stdev, latency.max,
    latency:percentile(50), latency:percentile(75), latency:percentile(90),
    latency:percentile(99), latency:percentile(99.9)))
end
