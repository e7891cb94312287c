local cur = redis.call('GET', KEYS[2])
if not cur then return 0 end
local rows = redis.call('XRANGE', KEYS[1], '(' .. cur, '+', 'COUNT', ARGV[2])
for _, row in ipairs(rows) do
  for i = 3, #ARGV do redis.call('ZADD', KEYS[3], 'NX', ARGV[1], ARGV[i] .. '|' .. row[1]) end
end
if #rows > 0 then redis.call('SET', KEYS[2], rows[#rows][1]) end
return #rows
