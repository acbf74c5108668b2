-- wrk script for bench/scale.sh: one JSON-RPC method at heights drawn at random, keep-alive.
--
-- Usage: wrk ... -s scale.lua URL -- METHOD FROM TO [SEED]
--   METHOD   getblockheaderbyheight | getblock, or a path such as /get_height (a baseline: no store read;
--            FROM and TO are then ignored)
--   FROM TO  heights are drawn uniformly from [FROM, TO); bench/scale.sh passes [1, height) for
--            "random" and [height-100, height) for "tip" (blocks the writer adds meanwhile are above TO)
--   SEED     random seed (default 1); each thread adds its number, so threads ask different heights
--
-- 4,096 requests are formatted in init() (a chain of 4 M heights cannot be formatted whole), so the
-- client spends its CPU on sending, not on Lua. done() prints the line bench/scale.sh parses:
--   WRKRESULT requests=.. rps=.. p50_us=.. p90_us=.. p99_us=.. p999_us=.. max_us=.. err_status=.. ...

local requests = nil
local next_index = 1
local thread_count = 0

function setup(thread)
  thread:set("thread_id", thread_count)
  thread_count = thread_count + 1
end

function init(args)
  local method = args[1] or error("scale.lua: METHOD is required")
  local from = tonumber(args[2]) or error("scale.lua: FROM is required")
  local to = tonumber(args[3]) or error("scale.lua: TO is required")
  assert(to > from, "scale.lua: empty height range")
  math.randomseed((tonumber(args[4]) or 1) + (tonumber(thread_id) or 0))
  local headers = { ["Content-Type"] = "application/json" }
  requests = {}
  if method:sub(1, 1) == "/" then
    -- a baseline that does not read the store (e.g. /get_height, answered from the chain's published state)
    requests[1] = wrk.format("POST", method, headers, "{}")
    return
  end
  for i = 1, 4096 do
    local h = from + math.floor(math.random() * (to - from))
    requests[i] = wrk.format("POST", "/json_rpc", headers,
      string.format('{"jsonrpc":"2.0","id":"0","method":"%s","params":{"height":%d}}', method, h))
  end
end

function request()
  if requests == nil then
    return wrk.format("POST", "/json_rpc", { ["Content-Type"] = "application/json" },
      '{"jsonrpc":"2.0","id":"0","method":"get_info"}')
  end
  local r = requests[next_index]
  next_index = next_index % #requests + 1
  return r
end

function done(summary, latency, _)
  local e = summary.errors
  io.write(string.format(
    "WRKRESULT requests=%d rps=%.1f p50_us=%d p90_us=%d p99_us=%d p999_us=%d max_us=%d " ..
    "err_connect=%d err_read=%d err_write=%d err_status=%d err_timeout=%d\n",
    summary.requests, summary.requests / (summary.duration / 1e6),
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9), latency.max,
    e.connect, e.read, e.write, e.status, e.timeout))
end
