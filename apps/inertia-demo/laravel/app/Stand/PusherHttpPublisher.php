<?php

namespace App\Stand;

use Illuminate\Broadcasting\BroadcastException;

/**
 * STAND-IN for pusher/pusher-php-server (Composer-only, unreachable here): the two pieces of the
 * Pusher HTTP API a Laravel broadcaster needs. `trigger` is the signed REST publish
 * (POST /apps/{id}/events with auth_key, auth_timestamp, auth_version=1.0, body_md5 and
 * auth_signature = HMAC-SHA256(secret, "POST\n{path}\n{sorted query}")); `authSignature` is the
 * private-channel auth string "key:HMAC-SHA256(secret, socket_id:channel[:channel_data])".
 */
final class PusherHttpPublisher
{
    public function __construct(
        private readonly string $appId,
        private readonly string $key,
        private readonly string $secret,
        private readonly string $host,
        private readonly int $port,
    ) {}

    /** @param list<string> $channels */
    public function trigger(array $channels, string $event, array $data, ?string $socketId = null): void
    {
        $body = ['name' => $event, 'channels' => $channels, 'data' => json_encode($data, JSON_THROW_ON_ERROR)];
        if ($socketId !== null) {
            $body['socket_id'] = $socketId;
        }
        $json = json_encode($body, JSON_THROW_ON_ERROR);
        $path = "/apps/{$this->appId}/events";
        $params = [
            'auth_key' => $this->key,
            'auth_timestamp' => (string) time(),
            'auth_version' => '1.0',
            'body_md5' => md5($json),
        ];
        ksort($params);
        $query = implode('&', array_map(fn ($k, $v) => "{$k}={$v}", array_keys($params), $params));
        $signature = hash_hmac('sha256', "POST\n{$path}\n{$query}", $this->secret);
        $url = "http://{$this->host}:{$this->port}{$path}?{$query}&auth_signature={$signature}";
        $context = stream_context_create(['http' => [
            'method' => 'POST',
            // One request per connection, so the answer ends at once (the wrapper reads until EOF).
            'protocol_version' => 1.1,
            'header' => "Content-Type: application/json\r\nConnection: close\r\n",
            'content' => $json,
            'timeout' => 5,
            'ignore_errors' => true,
        ]]);
        $answer = @file_get_contents($url, false, $context);
        $status = isset($http_response_header[0]) && preg_match('/\s(\d{3})\s?/', $http_response_header[0], $m) ? (int) $m[1] : 0;
        if ($answer === false || $status < 200 || $status > 299) {
            throw new BroadcastException("Pusher HTTP publish failed (HTTP {$status})");
        }
    }

    public function authSignature(string $socketId, string $channel, ?string $channelData = null): string
    {
        $signed = $channelData === null ? "{$socketId}:{$channel}" : "{$socketId}:{$channel}:{$channelData}";

        return $this->key.':'.hash_hmac('sha256', $signed, $this->secret);
    }
}
