local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0,
                       ARGV[3])
for i = 1, #due, 2 do redis.call('ZADD', KEYS[1], 'XX', ARGV[2], due[i]) end
return due
