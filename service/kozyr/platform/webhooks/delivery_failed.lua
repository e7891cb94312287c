local now = tonumber(ARGV[2])
local tries = redis.call('HGET', KEYS[2], ARGV[1])
local attempts, first = 0, now
if tries then
  local a, f = string.match(tries, '^(%d+) (%d+)$')
  attempts, first = tonumber(a), tonumber(f)
end
attempts = attempts + 1
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
if now - first >= tonumber(ARGV[4]) then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('ZADD', KEYS[4], now, ARGV[1])
  return 1
end
local wait = math.min(tonumber(ARGV[6]), tonumber(ARGV[5]) * 2 ^ (attempts - 1))
redis.call('HSET', KEYS[2], ARGV[1], attempts .. ' ' .. first)
redis.call('ZADD', KEYS[1], 'XX', now + math.floor(wait), ARGV[1])
return 0
