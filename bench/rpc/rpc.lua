-- wrk script for bench/rpc.sh: POST one RPC request, keep-alive.
--
-- Usage: wrk ... -s rpc.lua URL -- METHOD [HEIGHTS] [HASHES_FILE] [BODY_FILE]
--   METHOD       a JSON-RPC method (POST /json_rpc): getblockheaderbyheight | getblock |
--                getblockheaderbyhash | getlastblockheader | get_info | get_block_count;
--                or a path starting with "/": POST to it, body "{}" (JSON paths) or the
--                contents of BODY_FILE (".bin" paths, no Content-Type, as wallets send them;
--                a BODY_FILE ending in ".hex" holds one body per line in hex, and the requests
--                rotate over them)
--   HEIGHTS      chain height N: the height-taking methods rotate over heights 0..N-1
--   HASHES_FILE  getblockheaderbyhash rotates over the block hashes in this file (one per line)
--
-- RPC_CLOSE=1 in the environment adds "Connection: close" to every request: the server closes the
-- connection after each answer and wrk opens a new one (TCP and, for an https:// URL, a full TLS
-- handshake) per request (bench/tls.sh).
--
-- Every request is formatted once in init(), so request() only hands out a prepared string and the
-- client spends as little CPU as possible (it shares the machine with the server it measures).
-- done() prints one machine-readable line that bench/rpc.sh parses:
--   WRKRESULT requests=.. duration_us=.. rps=.. p50_us=.. p99_us=.. mean_us=.. max_us=.. bytes=..
--             err_connect=.. err_read=.. err_write=.. err_status=.. err_timeout=..

local requests = nil -- prepared raw HTTP requests, built in init()
local next_index = 1

-- body returns the JSON-RPC request body for the method; key is a height or a hash.
local function body(method, key)
  local params = ""
  if method == "getblockheaderbyheight" or method == "getblock" then
    params = string.format(',"params":{"height":%d}', key)
  elseif method == "getblockheaderbyhash" then
    params = string.format(',"params":{"hash":"%s"}', key)
  end
  return string.format('{"jsonrpc":"2.0","id":"0","method":"%s"%s}', method, params)
end

local function read_hashes(path)
  local list = {}
  local f = assert(io.open(path, "r"), "rpc.lua: cannot open hashes file " .. tostring(path))
  for line in f:lines() do
    local h = line:match("^%s*(%x+)%s*$")
    if h then list[#list + 1] = h end
  end
  f:close()
  assert(#list > 0, "rpc.lua: no hashes in " .. path)
  return list
end

-- setup runs in the main Lua state once per thread: number the threads so that each one starts its
-- rotation at a different place (the threads then do not ask for the same block at the same moment).
local thread_count = 0
function setup(thread)
  thread:set("thread_id", thread_count)
  thread_count = thread_count + 1
end

local function read_file(path)
  local f = assert(io.open(path, "rb"), "rpc.lua: cannot open body file " .. tostring(path))
  local b = f:read("*a")
  f:close()
  return b
end

-- read_hex_lines returns the bodies of a file of hex lines, decoded.
function read_hex_lines(path)
  local list = {}
  local f = assert(io.open(path, "r"), "rpc.lua: cannot open body file " .. tostring(path))
  for line in f:lines() do
    local h = line:match("^%s*(%x+)%s*$")
    if h then
      list[#list + 1] = (h:gsub("%x%x", function(x) return string.char(tonumber(x, 16)) end))
    end
  end
  f:close()
  assert(#list > 0, "rpc.lua: no bodies in " .. path)
  return list
end

local close = os.getenv("RPC_CLOSE") == "1"

-- with adds "Connection: close" to a request's headers when RPC_CLOSE asks for it.
local function with(headers)
  if close then headers["Connection"] = "close" end
  return headers
end

function init(args)
  local method = args[1] or "get_info"
  if method:sub(1, 1) == "/" then
    local headers, b = with({ ["Content-Type"] = "application/json" }), "{}"
    if method:sub(-4) == ".bin" then
      headers = with({})
      local file = args[4] or error("rpc.lua: " .. method .. " needs a body file")
      if file:sub(-4) == ".hex" then
        -- one body per line, in hex: requests rotate over them
        requests = {}
        for _, hb in ipairs(read_hex_lines(file)) do
          requests[#requests + 1] = wrk.format("POST", method, headers, hb)
        end
        local id = tonumber(thread_id) or 0
        next_index = (id * 7919) % #requests + 1
        return
      end
      b = read_file(file)
    end
    requests = { wrk.format("POST", method, headers, b) }
    next_index = 1
    return
  end
  local keys = {}
  if method == "getblockheaderbyheight" or method == "getblock" then
    local n = tonumber(args[2]) or error("rpc.lua: " .. method .. " needs the chain height")
    for h = 0, n - 1 do keys[#keys + 1] = h end
  elseif method == "getblockheaderbyhash" then
    keys = read_hashes(args[3] or error("rpc.lua: getblockheaderbyhash needs a hashes file"))
  else
    keys = { false } -- methods without parameters: one request
  end
  local headers = with({ ["Content-Type"] = "application/json" })
  requests = {}
  for i, k in ipairs(keys) do
    requests[i] = wrk.format("POST", "/json_rpc", headers, body(method, k))
  end
  local id = tonumber(thread_id) or 0
  next_index = (id * 7919) % #requests + 1 -- 7919: any stride that spreads thread starts
end

function request()
  if requests == nil then
    -- wrk calls request() once in its main state (never init()ed) to check the request parses.
    return wrk.format("POST", "/json_rpc", { ["Content-Type"] = "application/json" }, body("get_info"))
  end
  local r = requests[next_index]
  next_index = next_index + 1
  if next_index > #requests then next_index = 1 end
  return r
end

function done(summary, latency, _)
  local secs = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format(
    "WRKRESULT requests=%d duration_us=%d rps=%.2f p50_us=%d p99_us=%d mean_us=%.1f max_us=%d bytes=%d " ..
    "err_connect=%d err_read=%d err_write=%d err_status=%d err_timeout=%d\n",
    summary.requests, summary.duration, summary.requests / secs,
    latency:percentile(50), latency:percentile(99), latency.mean, latency.max, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout))
end
