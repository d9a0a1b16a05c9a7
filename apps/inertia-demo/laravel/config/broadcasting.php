<?php

return [
    'default' => 'pusher-http',
    'connections' => [
        // A Pusher-protocol server (Reverb, Pusher, or this repo's test server); see app/Stand/PusherHttpBroadcaster.php.
        'pusher-http' => [
            'driver' => 'pusher-http',
            'app_id' => env('PUSHER_APP_ID', '1'),
            'key' => env('PUSHER_APP_KEY', 'demo-key'),
            'secret' => env('PUSHER_APP_SECRET'),
            'host' => env('PUSHER_HOST', '127.0.0.1'),
            'port' => (int) env('PUSHER_PORT', 6001),
        ],
    ],
];
