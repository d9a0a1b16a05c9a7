<?php

namespace App\Stand;

use Illuminate\Broadcasting\Broadcasters\Broadcaster;
use Illuminate\Broadcasting\Broadcasters\UsePusherChannelConventions;
use Illuminate\Support\Arr;
use Symfony\Component\HttpKernel\Exception\AccessDeniedHttpException;

/**
 * STAND-IN for Laravel 8's PusherBroadcaster (which needs the Composer-only Pusher SDK): the same
 * channel authorization (routes/channels.php callbacks, through /broadcasting/auth) and publishing,
 * on {@see PusherHttpPublisher}. Registered with Broadcast::extend('pusher-http', ...).
 */
final class PusherHttpBroadcaster extends Broadcaster
{
    use UsePusherChannelConventions;

    public function __construct(private readonly PusherHttpPublisher $publisher) {}

    public function auth($request)
    {
        $channelName = $this->normalizeChannelName((string) $request->channel_name);
        if (empty($request->channel_name)
            || ! preg_match('/^\d+\.\d+$/', (string) $request->socket_id)
            || ($this->isGuardedChannel($request->channel_name) && ! $this->retrieveUser($request, $channelName))) {
            throw new AccessDeniedHttpException();
        }

        return parent::verifyUserCanAccessChannel($request, $channelName);
    }

    public function validAuthenticationResponse($request, $result)
    {
        if (str_starts_with((string) $request->channel_name, 'presence-')) {
            $user = $this->retrieveUser($request, $this->normalizeChannelName($request->channel_name));
            $data = json_encode(['user_id' => $user->getAuthIdentifier(), 'user_info' => $result], JSON_THROW_ON_ERROR);

            return [
                'auth' => $this->publisher->authSignature($request->socket_id, $request->channel_name, $data),
                'channel_data' => $data,
            ];
        }

        return ['auth' => $this->publisher->authSignature($request->socket_id, $request->channel_name)];
    }

    public function broadcast(array $channels, $event, array $payload = [])
    {
        $socket = Arr::pull($payload, 'socket');
        $this->publisher->trigger($this->formatChannels($channels), $event, $payload, $socket);
    }
}
