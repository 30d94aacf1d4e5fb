-- wrk script for `make loadtest` (scripts/loadtest): one endpoint per wrk process, its requests
-- rotating through a pool, every status counted by class, results printed as one JSON line.
--
-- Environment (read in every Lua state wrk creates):
--   LOADTEST_PATH    the path to POST to, with LOADTEST_BODIES naming a file of bodies, one JSON
--                    document per line, sent in turn (each thread starts at its own offset)
--   LOADTEST_GETS    instead: a file of paths, one per line, fetched in turn with GET
-- Every request carries a unique X-Request-ID (thread, counter), so the audit log can be matched.
-- `done` prints a line starting with "WRK_JSON " that scripts/harness/wrk.py parses.

local function lines(path)
  local out = {}
  for line in io.lines(path) do
    if line ~= "" then
      out[#out + 1] = line
    end
  end
  assert(#out > 0, path .. " is empty")
  return out
end

local post_path = os.getenv("LOADTEST_PATH")
local bodies_file = os.getenv("LOADTEST_BODIES")
local gets_file = os.getenv("LOADTEST_GETS")
local items = lines(bodies_file ~= nil and bodies_file ~= "" and bodies_file or gets_file)
local is_post = bodies_file ~= nil and bodies_file ~= ""

local threads = {}
local thread_count = 0

setup = function(thread)
  thread:set("id", thread_count)
  thread_count = thread_count + 1
  threads[#threads + 1] = thread
end

local index = 1
local counter = 0
local prefix = "lt"

init = function(args)
  local id = tonumber(wrk.thread:get("id")) or 0
  index = (id * 7919) % #items + 1
  prefix = string.format("lt%s-%d-", os.getenv("LOADTEST_NAME") or "x", id)
  s2xx, s3xx, s4xx, s5xx, sother = 0, 0, 0, 0, 0
end

request = function()
  local item = items[index]
  index = index % #items + 1
  counter = counter + 1
  local headers = { ["X-Request-ID"] = prefix .. counter }
  if is_post then
    headers["Content-Type"] = "application/json"
    return wrk.format("POST", post_path, headers, item)
  end
  return wrk.format("GET", item, headers, nil)
end

response = function(status, headers, body)
  if status >= 200 and status < 300 then
    s2xx = s2xx + 1
  elseif status < 400 then
    s3xx = s3xx + 1
  elseif status < 500 then
    s4xx = s4xx + 1
  elseif status < 600 then
    s5xx = s5xx + 1
  else
    sother = sother + 1
  end
end

done = function(summary, latency, requests)
  local c = { s2xx = 0, s3xx = 0, s4xx = 0, s5xx = 0, sother = 0 }
  for _, thread in ipairs(threads) do
    for key, _ in pairs(c) do
      c[key] = c[key] + (tonumber(thread:get(key)) or 0)
    end
  end
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%.0f,"duration_us":%.0f,"bytes":%.0f,' ..
    '"errors":{"connect":%.0f,"read":%.0f,"write":%.0f,"status":%.0f,"timeout":%.0f},' ..
    '"statuses":{"2xx":%.0f,"3xx":%.0f,"4xx":%.0f,"5xx":%.0f,"other":%.0f},' ..
    '"latency_us":{"min":%.0f,"mean":%.1f,"stdev":%.1f,"max":%.0f,' ..
    '"p50":%.0f,"p75":%.0f,"p90":%.0f,"p99":%.0f,"p999":%.0f}}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    c.s2xx, c.s3xx, c.s4xx, c.s5xx, c.sother,
    latency.min, latency.mean, latency.stdev, latency.max,
    latency:percentile(50), latency:percentile(75), latency:percentile(90),
    latency:percentile(99), latency:percentile(99.9)))
end
