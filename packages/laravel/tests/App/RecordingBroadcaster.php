<?php

namespace Toolmark\Laravel\Tests\App;

use Illuminate\Broadcasting\Broadcasters\Broadcaster;
use Illuminate\Support\Str;
use Symfony\Component\HttpKernel\Exception\AccessDeniedHttpException;

/**
 * TEST APP: a broadcaster that records every event instead of publishing it, and authorizes
 * private channels with the app's channel callbacks the way the Pusher and Reverb broadcasters do.
 */
final class RecordingBroadcaster extends Broadcaster
{
    /** @var list<array{channels: list<string>, event: string, payload: array<string, mixed>}> */
    public array $sent = [];

    /** @var (callable(array<string, mixed>): void)|null called with each payload as it is broadcast */
    public $onBroadcast = null;

    public function auth($request)
    {
        $channel = Str::startsWith($request->channel_name, 'private-') ? Str::after($request->channel_name, 'private-') : null;
        if ($channel === null || $request->user() === null) {
            throw new AccessDeniedHttpException();
        }

        return parent::verifyUserCanAccessChannel($request, $channel);
    }

    public function validAuthenticationResponse($request, $result)
    {
        return ['auth' => 'ok'];
    }

    public function broadcast(array $channels, $event, array $payload = [])
    {
        if ($this->onBroadcast !== null) {
            ($this->onBroadcast)($payload);
        }
        $this->sent[] = ['channels' => array_map('strval', $channels), 'event' => $event, 'payload' => $payload];
    }

    /** @return list<array<string, mixed>> the protocol messages sent as `.toolmark.message` */
    public function messages(): array
    {
        return array_values(array_map(
            fn (array $s): array => $s['payload']['message'],
            array_filter($this->sent, fn (array $s): bool => $s['event'] === 'toolmark.message'),
        ));
    }
}
