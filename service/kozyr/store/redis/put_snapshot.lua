local kept = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if tonumber(ARGV[1]) > kept then redis.call('HSET', KEYS[1], 'v', ARGV[1], 's', ARGV[2]) end
return 0
