-- ARGV: expected version, tick channel, n, the first entry's prev ('': read it from the entry),
-- then n x (command key, entry, hash, seal: the server's signature made at the append, '' for
-- none), then meta pairs.
local current = 0
local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #top > 0 then current = tonumber(string.match(top[1][1], '^(%d+)')) end
local fence = tonumber(redis.call('GET', KEYS[4]) or '0')
if current < fence then return {'BEHIND', tostring(current)} end
-- An entry that does not chain onto the top at its own version: the stream lost the entry this
-- server acknowledged (an asynchronous failover) and another took its place. Fence the match.
local prev = ARGV[4]
if prev == '' then
  local ok, entry = pcall(cjson.decode, ARGV[6])
  prev = ok and type(entry) == 'table' and type(entry.prev) == 'string' and entry.prev or nil
end
if prev and #top > 0 and current == tonumber(ARGV[1]) and prev ~= top[1][2][4] then
  redis.call('SET', KEYS[4], current + 1)
  return {'BEHIND', tostring(current)}
end
local n = tonumber(ARGV[3])
for i = 0, n - 1 do
  local key = ARGV[5 + 4 * i]
  if key ~= '' then
    local seen = redis.call('HGET', KEYS[2], key)
    if seen then return {'DUPLICATE', seen} end
  end
end
if current ~= tonumber(ARGV[1]) then return {'CONFLICT', tostring(current)} end
for i = 0, n - 1 do
  local version = current + 1 + i
  local added = redis.pcall('XADD', KEYS[1], version .. '-0', 'e', ARGV[6 + 4 * i],
                            'h', ARGV[7 + 4 * i], 's', ARGV[8 + 4 * i])
  -- Only the first XADD can fail: Redis refuses a script for memory before its first write
  -- only, and every later id is greater than the one just added.
  if type(added) == 'table' and added.err then
    if string.find(added.err, 'OOM', 1, true) then return {'FULL', tostring(current)} end
    return {'GAP', tostring(current)}
  end
  local key = ARGV[5 + 4 * i]
  if key ~= '' then redis.call('HSET', KEYS[2], key, version) end
end
local last = current + n
redis.call('SET', KEYS[4], last)
if #ARGV > 4 + 4 * n then redis.call('HSET', KEYS[3], unpack(ARGV, 5 + 4 * n)) end
redis.call('PUBLISH', ARGV[2], last)
return {'OK', tostring(last)}
