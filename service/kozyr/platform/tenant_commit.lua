local fed = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
local after = tonumber(ARGV[3])
if fed >= after then return {'DUPLICATE', tostring(fed)} end
if fed ~= tonumber(ARGV[2]) then return {'BEHIND', tostring(fed)} end
local i = 9
for k = 1, tonumber(ARGV[8]) do
  redis.call('XADD', KEYS[1], '*', 'e', ARGV[i]); i = i + 1
end
redis.call('HSET', KEYS[2], ARGV[1], after)
redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
redis.call('HSETNX', KEYS[5], ARGV[1], ARGV[5])
local seq = redis.call('HGET', KEYS[6], ARGV[1])
if not seq then
  seq = redis.call('INCR', KEYS[7]); redis.call('HSET', KEYS[6], ARGV[1], seq)
end
local drops = tonumber(ARGV[7])
for k = 8, 7 + drops do redis.call('ZREM', KEYS[k], ARGV[1]) end
for k = 8 + drops, #KEYS do redis.call('ZADD', KEYS[k], seq, ARGV[1]) end
if ARGV[6] == '1' then redis.call('ZREM', KEYS[4], ARGV[1])
else redis.call('ZADD', KEYS[4], ARGV[i], ARGV[1]) end
return {'OK', tostring(after)}
