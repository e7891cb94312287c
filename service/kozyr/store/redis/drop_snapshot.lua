if redis.call('HGET', KEYS[1], 'v') == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
