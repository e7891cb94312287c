local current = 0
local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #top > 0 then current = tonumber(string.match(top[1][1], '^(%d+)')) end
local fence = tonumber(redis.call('GET', KEYS[2]) or '0')
if current > 0 then redis.call('XSETID', KEYS[1], current .. '-0') end
redis.call('SET', KEYS[2], current)
redis.call('HSET', KEYS[3], 'repaired', current)
return {tostring(fence), tostring(current)}
