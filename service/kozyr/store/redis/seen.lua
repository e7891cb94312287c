local latest = 0
for i = 1, #ARGV, 2 do
  local held = tonumber(redis.call('HGET', KEYS[1], ARGV[i]) or '0')
  if tonumber(ARGV[i + 1]) > held then redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
  latest = math.max(latest, tonumber(ARGV[i + 1]))
end
local now = redis.call('TIME')
local left = latest - (tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000))
redis.call('PEXPIRE', KEYS[1], math.max(left, 0) + 60000)
return 1
