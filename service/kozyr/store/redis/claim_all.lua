local out, left = {}, tonumber(ARGV[3])
for _, key in ipairs(KEYS) do
  if left <= 0 then break end
  local due = redis.call('ZRANGEBYSCORE', key, '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0,
                         left)
  for i = 1, #due, 2 do
    redis.call('ZADD', key, 'XX', ARGV[2], due[i])
    out[#out + 1] = due[i]
    out[#out + 1] = due[i + 1]
  end
  left = left - #due / 2
end
return out
