-- wrk script of the HTTP benchmark (scripts/bench-http.sh): every request is the same
-- stateless MCP `tools/call` of tatara's `task_note`, a self-contained POST with a JSON reply.
-- A reply counts as good when it is HTTP 200 with a JSON-RPC result that is not a tool
-- error; anything else is counted as bad, and the first bad one is printed.
wrk.method = "POST"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"task_note",'
  .. '"arguments":{"task":"T-1042","kind":"handoff","body":"Tests pass; the refactor of the reader is left for the next pod."}}}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-11-25"

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  good = 0
  bad = 0
  first_bad = ""
end

function response(status, headers, body)
  if status == 200 and body:find('"result"', 1, true) and not body:find('"isError":true', 1, true) then
    good = good + 1
  else
    bad = bad + 1
    if bad == 1 then
      first_bad = status .. " " .. body:sub(1, 300)
    end
  end
end

function done(summary, latency, requests)
  local g, b, first = 0, 0, ""
  for _, t in ipairs(threads) do
    g = g + t:get("good")
    b = b + t:get("bad")
    local f = t:get("first_bad")
    if first == "" and f ~= nil then
      first = f
    end
  end
  local e = summary.errors
  local socket_errors = e.connect + e.read + e.write + e.timeout
  io.write(string.format("BENCH requests=%d seconds=%.3f good=%d bad=%d socket_errors=%d p50_us=%d p99_us=%d max_us=%d\n",
    summary.requests, summary.duration / 1e6, g, b, socket_errors,
    latency:percentile(50), latency:percentile(99), latency.max))
  if first ~= "" then
    io.write("BENCH first bad reply: " .. first .. "\n")
  end
end
