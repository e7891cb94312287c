local added = redis.pcall('ZADD', KEYS[1], ARGV[1], ARGV[2])
if type(added) == 'table' and added.err then
  if string.find(added.err, 'OOM', 1, true) then return 'FULL' end
  return redis.error_reply(added.err)
end
return 'OK'
