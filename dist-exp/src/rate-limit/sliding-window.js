"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.SLIDING_WINDOW_LUA = void 0;
exports.SLIDING_WINDOW_LUA = `
local key, limit, window, add = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3] == '1'
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if add and count < limit then
  redis.call('ZADD', key, now, now .. ':' .. ARGV[4])
  redis.call('PEXPIRE', key, window)
  count = count + 1
  allowed = 1
end
local reset = window
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
return { allowed, count, reset }`;
//# sourceMappingURL=sliding-window.js.map